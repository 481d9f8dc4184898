"""The Hex random-walk comparison page: per-seed rows from the evaluations on disk, and the compactness measure."""
from __future__ import annotations

import json

import numpy as np

from studies.hex_tuples import hex_tuples


def _evaluation(first: float, second: float) -> dict:
    return {"matchups": [{"win_rate": (first + second) / 2,
                          "per_seat": [{"seat": 0, "win_rate": first}, {"seat": 1, "win_rate": second}]}]}


def test_page_lists_both_rules_per_seed_with_means(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    for seed, (a, b) in enumerate([(0.9, 0.5), (0.8, 0.4)]):
        (old / f"farl-seed{seed}").mkdir(parents=True)
        (old / f"farl-seed{seed}" / "final_eval.json").write_text(json.dumps(_evaluation(a, b)))
    (new / "seed0").mkdir(parents=True)
    (new / "seed0" / "eval.json").write_text(json.dumps(_evaluation(1.0, 0.6)))
    page = hex_tuples.write_page([0, 1], runs=new, old_runs=old, page=tmp_path / "page.md")
    text = page.read_text()
    assert "| 0 | 70 % | 90 % | 50 % | 80 % | 100 % | 60 % |" in text
    assert "| 1 | 60 % | 80 % | 40 % | – | – | – |" in text
    # two old runs: 65 % ± 5 (s.e. of 0.7 and 0.6); one new run has no s.e.
    assert "mean ± s.e. (2 / 1 runs) | 65.0 % ± 5.0 | 85.0 % ± 5.0 | 45.0 % ± 5.0 | – | – | – |" in text


def test_compactness_counts_adjacent_pairs_inside_a_tuple():
    # Hex 6x6 cells 6r+c: 0-1-2 in a row (2 pairs), 0, 6, 1 a triangle (3 pairs: 0-1, 0-6, 1-6)
    assert hex_tuples.compactness(np.array([[0, 1, 2]])) == 2
    assert hex_tuples.compactness(np.array([[0, 1, 6]])) == 3
