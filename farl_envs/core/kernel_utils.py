"""Tiny numba helpers shared by the game kernels and the compiled loops over them."""
from __future__ import annotations

from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


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


def _borrow(context, builder, ty, val):
    if isinstance(ty, types.Array):
        ary = context.make_array(ty)(context, builder, value=val)
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        return ary._getvalue()
    if isinstance(ty, types.BaseTuple):
        for i, t in enumerate(ty.types):
            val = builder.insert_value(val, _borrow(context, builder, t, builder.extract_value(val, i)), i)
        return val
    return val


@intrinsic
def borrowed(typingctx, x):
    """``x`` (an array, or a tuple of arrays and scalars) without its owner: numba counts no references to it.

    numba counts the references to every array a compiled function receives, takes from a named tuple or
    slices, with atomic instructions; in a loop that passes the same few arrays around every ply (a playout, a
    self-play episode) that costs more than the rules or the learning (a TicTacToe training ply paid ~2 µs of
    its ~4 µs; an Amazons playout ply 60 %). The borrowed copy has a null ``meminfo``, which numba does not
    count. Only for arrays that outlive every use of the copy (a caller's arguments, held until the compiled
    call returns): never return, store or box a borrowed array.
    """
    def codegen(context, builder, signature, args):
        return _borrow(context, builder, signature.args[0], args[0])

    return x(x), codegen
