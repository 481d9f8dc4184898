"""A tiny seeded random generator that compiled code and Python share.

Why not ``numpy.random``? Inside numba, ``np.random`` draws from one hidden
per-thread stream that Python cannot see or copy; that makes it impossible for
the Python AEC environment and a compiled training loop to draw *the same*
numbers from *the same* seed. farl therefore keeps its random state in a plain
array that is passed around explicitly: ``rng = make_rng(seed)`` gives a
``uint64[1]`` array, and the ``@njit`` functions below advance it in place.
The same seed gives the same stream everywhere, it can be saved with a
checkpoint (``rng.copy()``), and two streams never interfere.

The generator is SplitMix64 (Steele, Lea & Flood 2014): one 64-bit word of
state, period 2**64, passes BigCrush; ample for games and exploration.
"""
from __future__ import annotations

import sys

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from farl_envs.core.bits import lowest_bit, popcount

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


def make_rng(seed: int | None = None) -> np.ndarray:
    """Return a fresh generator state (``np.uint64[1]``) for ``seed``.

    ``seed=None`` draws the seed from the operating system's entropy.
    Negative or huge seeds are folded into 64 bits.
    """
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0])
    if not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
    state = np.array([int(seed) & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64)
    rng_next(state)  # decorrelate nearby seeds such as 0, 1, 2
    return state


@njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64's output function: a bijection of 64-bit words that spreads every input bit over the output
    (the generator below, Max-N's state hash and the vector envs' per-game streams all finish with it)."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


GOLDEN_GAMMA = _GOLDEN
"""SplitMix64's increment (the golden ratio's 64-bit fraction), for streams built on :func:`mix64`."""


@njit(cache=True)
def rng_next(rng):
    """Advance ``rng`` (uint64[1]) and return the next 64-bit word."""
    rng[0] += _GOLDEN
    return mix64(rng[0])


@njit(cache=True)
def rng_uniform(rng):
    """Uniform float in [0, 1) with 53 random bits."""
    return float(rng_next(rng) >> _S11) * _INV53


@njit(cache=True)
def rng_below(rng, n):
    """Uniform integer in ``0 .. n-1`` (``n >= 1``)."""
    return int(rng_uniform(rng) * n)


_LOW_BITS = np.uint64(0x0101010101010101)
_ONE = np.uint64(1)
_LITTLE_ENDIAN = sys.byteorder == "little"
"""Byte ``j`` of a word loaded from memory is its bits ``8 j .. 8 j + 7`` (every platform numba targets)."""


@njit(cache=True, inline="always")
def _nonzero_flags(w):
    """Bit ``8 j`` set for each nonzero byte ``j`` of the ``uint64`` ``w``, every other bit clear."""
    w |= w >> np.uint64(4)
    w |= w >> np.uint64(2)
    w |= w >> np.uint64(1)
    return w & _LOW_BITS


@njit(cache=True, inline="always")
def _nonzero_bytes(w):
    """Number of nonzero bytes of the ``uint64`` ``w`` (as ``int64``: numba makes uint64 + int64 a float)."""
    return np.int64(popcount(_nonzero_flags(w)))


@intrinsic
def _word_at(typingctx, mask, i):
    """Entries ``8 i .. 8 i + 7`` of the byte array ``mask`` as one ``uint64``: one unaligned load.

    Only for a C-contiguous array of 1-byte entries with at least ``8 i + 8``
    of them (:func:`_n_words`). A ``mask.view(np.uint64)`` would do the same
    through a numba call that checks the layout and counts a reference on
    every draw, which cost more than the scan it serves.
    """
    if not isinstance(mask, types.Array):
        return None

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, value=args[0])
        first = builder.gep(builder.bitcast(ary.data, ir.IntType(8).as_pointer()),
                            [builder.mul(args[1], ir.Constant(args[1].type, 8))])
        return builder.load(builder.bitcast(first, ir.IntType(64).as_pointer()), align=1)

    return types.uint64(mask, types.intp), codegen


@njit(cache=True, inline="always")
def _n_words(mask):
    """Words of eight entries :func:`_word_at` may read from ``mask``: 0 for wider entries or a strided view."""
    return mask.shape[0] // 8 if mask.itemsize == 1 and mask.flags.c_contiguous else 0


@njit(cache=True, inline="always")
def _kth_set(mask, words, k):
    """Index of the ``k``-th (0-based) nonzero entry of ``mask``; -1 if there are not that many.

    The first ``words`` words of eight entries are read a word at a time
    (:func:`_word_at`): whole words are skipped by their count of nonzero
    bytes, and inside the word that holds the pick the ``k`` lower nonzero
    bytes are cleared off its flags. The rest is read entry by entry. One
    ``return``: inlined copies then count no references to ``mask``.
    """
    n = mask.shape[0]
    start = words * 8
    found = -1
    for i in range(words):
        flags = _nonzero_flags(_word_at(mask, i))
        c = np.int64(popcount(flags))
        if k < c:
            if _LITTLE_ENDIAN:
                for _ in range(k):
                    flags &= flags - _ONE
                found = 8 * i + (np.int64(lowest_bit(flags)) >> 3)
                start = n
            else:
                start = 8 * i
            break
        k -= c
    for i in range(start, n):
        if mask[i] != 0:
            if k == 0:
                found = i
                break
            k -= 1
    return found


@njit(cache=True)
def rng_choice_mask(rng, mask):
    """Uniform index ``i`` among the entries with ``mask[i] != 0``; -1 if none.

    Byte masks (the kernels' ``int8``) are read eight entries at a time, so
    games with many action numbers and few legal ones (Breakthrough's 768)
    skip the empty stretches; the pick is the same as entry by entry.
    """
    words = _n_words(mask)
    count = 0
    for i in range(words):
        count += _nonzero_bytes(_word_at(mask, i))
    for i in range(words * 8, mask.shape[0]):
        if mask[i] != 0:
            count += 1
    if count == 0:
        return -1
    return _kth_set(mask, words, rng_below(rng, count))


@njit(cache=True)
def rng_choice_mask_counted(rng, mask, count):
    """:func:`rng_choice_mask` when ``count``, the number of nonzero entries, is known (a kernel's
    ``legal_actions`` returns it): the same draw and the same pick, without the counting pass."""
    if count <= 0:
        return -1
    return _kth_set(mask, _n_words(mask), rng_below(rng, count))


@njit(cache=True)
def rng_argmax(scores, n, rng):
    """Index of the largest of ``scores[:n]``, uniformly at random among exact ties.

    Draws from ``rng`` only when there is a tie.
    """
    best = -np.inf
    ties = 0
    for k in range(n):
        if scores[k] > best:
            best = scores[k]
            ties = 1
        elif scores[k] == best:
            ties += 1
    pick = rng_below(rng, ties) if ties > 1 else 0
    for k in range(n):
        if scores[k] == best:
            if pick == 0:
                return k
            pick -= 1
    return 0
