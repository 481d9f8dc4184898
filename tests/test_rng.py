"""The shared random stream: the word-at-a-time uniform pick picks exactly what an entry-by-entry scan picks."""
from __future__ import annotations

import numpy as np
import pytest

from farl_envs.core.rng import make_rng, rng_below, rng_choice_mask


def _reference_pick(rng, mask) -> int:
    """The plain definition: count the legal entries, draw k below the count, return the k-th legal entry."""
    legal = [i for i in range(len(mask)) if mask[i] != 0]
    if not legal:
        return -1
    return legal[rng_below(rng, len(legal))]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_, np.int32, np.int64])
def test_choice_matches_the_plain_definition_on_random_masks(dtype):
    gen = np.random.default_rng(11)
    fast, slow = make_rng(5), make_rng(5)
    for trial in range(400):
        n = int(gen.integers(1, 90))
        density = gen.choice([0.0, 0.02, 0.2, 0.9, 1.0])
        mask = (gen.random(n) < density).astype(dtype)
        assert rng_choice_mask(fast, mask) == _reference_pick(slow, mask), (trial, n, mask)
    assert fast[0] == slow[0]  # both consumed the stream identically


def test_choice_on_a_slice_and_on_a_sparse_wide_mask():
    mask = np.zeros(768, dtype=np.int8)  # Breakthrough-sized: few legal actions among many numbers
    mask[[5, 300, 767]] = 1
    rng = make_rng(1)
    picks = {rng_choice_mask(rng, mask) for _ in range(200)}
    assert picks == {5, 300, 767}
    rows = np.zeros((3, 20), dtype=np.int8)
    rows[1, 17] = 1
    assert rng_choice_mask(make_rng(2), rows[1]) == 17
    assert rng_choice_mask(make_rng(2), np.zeros(16, dtype=np.int8)) == -1
    strided = np.zeros(40, dtype=np.int8)
    strided[[6, 22]] = 1
    fast, slow = make_rng(3), make_rng(3)
    for _ in range(50):  # every other entry: not readable as words, the same pick all the same
        assert rng_choice_mask(fast, strided[::2]) == _reference_pick(slow, strided[::2])
