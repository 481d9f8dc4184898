"""GBG's Poker: does TD-FARL learn it (docs/results/poker.md)."""
