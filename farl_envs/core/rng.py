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

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

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


@njit(cache=True)
def rng_next(rng):
    """Advance ``rng`` (uint64[1]) and return the next 64-bit word."""
    rng[0] += _GOLDEN
    z = rng[0]
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True)
def rng_uniform(rng):
    """Uniform float in [0, 1) with 53 random bits."""
    return float(rng_next(rng) >> _S11) * _INV53


@njit(cache=True)
def rng_below(rng, n):
    """Uniform integer in ``0 .. n-1`` (``n >= 1``)."""
    return int(rng_uniform(rng) * n)


@intrinsic
def _popcount(typingctx, x):
    """Number of set bits of a ``uint64`` (LLVM ``ctpop``)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


_LOW_BITS = np.uint64(0x0101010101010101)


@njit(cache=True, inline="always")
def _nonzero_bytes(w):
    """Number of nonzero bytes of the ``uint64`` ``w`` (as ``int64``: numba makes uint64 + int64 a float)."""
    w |= w >> np.uint64(4)
    w |= w >> np.uint64(2)
    w |= w >> np.uint64(1)
    return np.int64(_popcount(w & _LOW_BITS))


@njit(cache=True, inline="always")
def _mask_words(mask):
    """``mask`` read as ``uint64`` words (eight byte entries each), or an empty array when it cannot be."""
    words = mask.shape[0] // 8 if mask.itemsize == 1 and mask.flags.c_contiguous else 0
    if words > 0:
        return mask[: words * 8].view(np.uint64)
    return np.empty(0, dtype=np.uint64)  # wider entries, or a strided view: entry by entry


@njit(cache=True, inline="always")
def _kth_set(mask, packed, k):
    """Index of the ``k``-th (0-based) nonzero entry of ``mask``; -1 if there are not that many."""
    n = mask.shape[0]
    start = packed.shape[0] * 8
    for i in range(packed.shape[0]):
        c = _nonzero_bytes(packed[i])
        if k < c:
            start = 8 * i
            break
        k -= c
    for i in range(start, n):
        if mask[i] != 0:
            if k == 0:
                return i
            k -= 1
    return -1


@njit(cache=True)
def rng_choice_mask(rng, mask):
    """Uniform index ``i`` among the entries with ``mask[i] != 0``; -1 if none.

    Byte masks (the kernels' ``int8``) are read eight entries at a time, so
    games with many action numbers and few legal ones (Breakthrough's 768)
    skip the empty stretches; the pick is the same as entry by entry.
    """
    packed = _mask_words(mask)
    count = 0
    for i in range(packed.shape[0]):
        count += _nonzero_bytes(packed[i])
    for i in range(packed.shape[0] * 8, mask.shape[0]):
        if mask[i] != 0:
            count += 1
    if count == 0:
        return -1
    return _kth_set(mask, packed, rng_below(rng, count))


@njit(cache=True)
def rng_choice_mask_counted(rng, mask, count):
    """:func:`rng_choice_mask` when ``count``, the number of nonzero entries, is known (a kernel's
    ``legal_actions`` returns it): the same draw and the same pick, without the counting pass."""
    if count <= 0:
        return -1
    return _kth_set(mask, _mask_words(mask), rng_below(rng, count))


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
