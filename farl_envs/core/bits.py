"""Bit tricks shared by the bitboard kernels (Othello, Breakthrough, Clobber, Lines of Action) and the random draw.

Two LLVM intrinsics numba does not expose (count trailing zeros, count set
bits), and the step that turns a run of board cells into a bit set.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def lowest_bit(typingctx, x):
    """Index of the lowest set bit of an integer, in its own type (LLVM ``cttz``; the width for 0)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return x(x), codegen


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an integer, in its own type (LLVM ``ctpop``)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@njit(cache=True, inline="always")
def row_bits(s, start, count, value):
    """Bit ``j`` set where ``s[start + j] == value``, for ``j < count`` (``count <= 63``), as ``int64``.

    Unsigned indices spare numba's negative-index test, so LLVM reads the
    cells with a few vector compares; an index pair rather than a slice
    leaves no view to count references to.
    """
    bits = np.int64(0)
    first = np.uint64(start)
    for j in range(count):
        bits |= np.int64(s[first + np.uint64(j)] == value) << j
    return bits


@njit(cache=True, inline="always")
def first_column(k, cols):
    """The bits of column 0 in ``k`` rows of ``cols`` bits each (bit ``i * cols`` for ``i < k``)."""
    bits = np.int64(0)
    for i in range(k):
        bits |= np.int64(1) << (i * cols)
    return bits
