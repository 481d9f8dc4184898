"""Hex 6x6, Table 1's FARL cell, with GBG's random-walk rule for the n-tuples beside Table 1's first runs.

Command: ``python -m studies.hex_tuples.hex_tuples --seeds 0 ... 9 --old-runs DIR --out docs/results``.
Page: ``docs/results/hex_tuples.md``.
"""
