"""Tiny numba helpers shared by the game kernels."""
from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def copy_state(s, out):
    """``out[:] = s`` unless both are the same array (in-place play).

    Copying an array onto itself makes numba allocate a temporary to stay
    safe against overlap, which costs more than a whole ply; the address
    test avoids it.
    """
    if out.ctypes.data != s.ctypes.data:
        for i in range(s.shape[0]):
            out[i] = s[i]
