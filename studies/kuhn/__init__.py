"""Kuhn poker: exact exploitability of policies and agents (docs/results/kuhn_poker.md)."""
