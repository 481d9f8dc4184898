"""How much memory an n-tuple network needs, checked before anything is allocated.

A network holds, per output and player, ``m * P**n`` weights (``m`` tuples
of length ``n`` over ``P`` cell values), as ``float32``, and with TCL two
accumulators beside each weight. Large settings grow fast: 200 14-tuples on
a 13x13 Hex board already ask for ~21 GiB. :func:`check_network_memory`
computes the figure from the sizes alone and refuses a network larger than
the limit with the number in the message, instead of letting numpy fail
with a traceback or the machine swap.

The limit is half of the machine's RAM unless the environment variable
``FARL_MAX_MEMORY`` sets another (bytes, or with a K/M/G/T suffix, e.g.
``FARL_MAX_MEMORY=40G``).
"""
from __future__ import annotations

import os

LIMIT_VARIABLE = "FARL_MAX_MEMORY"
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def network_bytes(n_tuples: int, length: int, n_values: int, n_players: int, n_outputs: int, tcl: bool) -> int:
    """Bytes of the weight tables (and TCL accumulators) of a network of these sizes."""
    entries = int(n_tuples) * int(n_values) ** int(length) * int(n_players) * int(n_outputs)
    return entries * 4 * (3 if tcl else 1)


def memory_limit() -> int:
    """The most memory (bytes) one network may take: ``FARL_MAX_MEMORY`` or half the RAM."""
    text = os.environ.get(LIMIT_VARIABLE, "").strip().upper().removesuffix("B")
    if text:
        unit = text[-1] if text[-1] in _UNITS else ""
        number = text[: len(text) - len(unit)]
        try:
            value = float(number) * _UNITS[unit]
        except ValueError:
            raise ValueError(f"{LIMIT_VARIABLE} must be a size such as 8G or 500M, got {text!r}") from None
        if value <= 0:
            raise ValueError(f"{LIMIT_VARIABLE} must be positive, got {text!r}")
        return int(value)
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2


def human(nbytes: float) -> str:
    """``nbytes`` in the largest binary unit that keeps it >= 1 (e.g. ``"21.0 GiB"``)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if nbytes < 1024 or unit == "PiB":
            return f"{nbytes:.1f} {unit}" if unit != "B" else f"{int(nbytes)} B"
        nbytes /= 1024
    raise AssertionError("unreachable")


def check_network_memory(n_tuples: int, length: int, n_values: int, n_players: int, n_outputs: int,
                         tcl: bool, what: str = "this n-tuple network") -> int:
    """The bytes the network needs; ``ValueError`` naming the figure and the limit when it is over the limit."""
    need = network_bytes(n_tuples, length, n_values, n_players, n_outputs, tcl)
    limit = memory_limit()
    if need > limit:
        raise ValueError(
            f"{what} needs {human(need)} of tables ({n_tuples} tuples of length {length} over {n_values} cell "
            f"values, {n_players} players x {n_outputs} outputs{', with TCL' if tcl else ''}); the limit is "
            f"{human(limit)} (set {LIMIT_VARIABLE} to raise it): use fewer or shorter tuples")
    return need


def check_search_memory(name: str, game_id: str, iterations: int, n_actions: int, need: int) -> int:
    """``need`` (the bytes of a tree search's node arrays); ``ValueError`` with the figure when it is over the
    limit (MCTS and the PUCT wrapper preallocate one row per iteration)."""
    limit = memory_limit()
    if need > limit:
        raise ValueError(f"{name} on {game_id} needs {human(need)} of search nodes ({iterations:,} iterations x "
                         f"{n_actions} actions); the limit is {human(limit)} (set {LIMIT_VARIABLE} to raise it): "
                         f"use fewer iterations")
    return need
