"""Start positions of evaluations: every position after k plies, the 244 Othello openings, random openings.

:func:`resolve_starts` turns the ``start_states`` argument of
:func:`farl_agents.evaluate.evaluate` into positions; every position is
checked with the game's own ``validate``.
"""
from __future__ import annotations

import numpy as np

from farl_envs.core.rng import make_rng, rng_choice_mask
from farl_envs.core.spec import TERMINAL, GameSpec

OTHELLO_4PLY_COUNT = 244
"""4-ply Othello move sequences (the paper's start set)."""
OTHELLO_4PLY_DISTINCT = 236
"""Different positions among them."""


def seeded_rng(*words) -> np.ndarray:
    """A farl generator seeded from a tuple of non-negative ints."""
    word = np.random.SeedSequence([int(w) for w in words]).generate_state(1, dtype=np.uint64)[0]
    return make_rng(int(word))


def _children(game: GameSpec, s: np.ndarray) -> list:
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    rew = np.zeros(game.n_players)
    out = []
    for a in np.flatnonzero(mask):
        nxt = np.empty_like(s)
        game.afterstate(game.p, s, int(a), nxt, rew)
        out.append(nxt)
    return out


def positions_after(game: GameSpec, plies: int, distinct: bool = True) -> list:
    """The non-terminal positions ``plies`` moves after the start (deterministic games).

    ``distinct=True`` keeps each position once (first found); ``distinct=False``
    keeps one entry per move sequence, in depth-first order of the actions.
    """
    if game.has_chance:
        raise ValueError(f"{game.id} has chance events: its k-ply positions cannot be enumerated")
    level = [game.initial_state(game.p, make_rng(0))]
    for _ in range(plies):
        seen, nxt = set(), []
        for s in level:
            for c in _children(game, s):
                if c[TERMINAL]:
                    continue
                if distinct:
                    key = c.tobytes()
                    if key in seen:
                        continue
                    seen.add(key)
                nxt.append(c)
        level = nxt
    return level


def othello_4ply_starts(game: GameSpec | None = None, distinct: bool = False) -> list:
    """The paper's Othello start set: every 4-ply opening, 244 of them.

    Konen & Bagheri 2020 (appendix A.6) evaluates "from all 244 4-ply start states". 244
    is the number of 4-move *sequences* (GBG ``EvaluatorOthello.diffStartList``
    collects the leaves of the 4-ply move tree); only 236 of the positions are
    different (GBG's comment, after van der Ree & Wiering), because some
    openings transpose. ``distinct=False`` (default) returns the 244 leaves
    as GBG does, in action order, so transposed positions are played twice;
    ``distinct=True`` the 236 different positions. Both counts are asserted.
    """
    if game is None:
        import farl_envs
        game = farl_envs.game_spec("othello")
    if game.name != "othello":
        raise ValueError(f"the 4-ply start set is for Othello, not {game.id}")
    starts = positions_after(game, 4, distinct=distinct)
    want = OTHELLO_4PLY_DISTINCT if distinct else OTHELLO_4PLY_COUNT
    if len(starts) != want:
        raise RuntimeError(f"expected {want} {'distinct ' if distinct else ''}4-ply Othello "
                           f"positions, found {len(starts)}")
    return starts


def random_opening(game: GameSpec, plies: int, rng: np.ndarray, tries: int = 100) -> np.ndarray:
    """A uniformly random ``plies``-move opening (chance events drawn from ``rng``), not yet over."""
    mask = np.zeros(game.n_actions, dtype=np.int8)
    rew = np.zeros(game.n_players)
    for _ in range(tries):
        s = game.initial_state(game.p, rng)
        for _ in range(plies):
            if s[TERMINAL]:
                break
            game.legal_actions(game.p, s, mask)
            game.afterstate(game.p, s, int(rng_choice_mask(rng, mask)), s, rew)
            if game.has_chance and not s[TERMINAL]:
                game.chance(game.p, s, rng)
        if not s[TERMINAL]:
            return s
    raise ValueError(f"{game.id}: no random {plies}-ply opening that is not over in {tries} tries")


def random_start(game: GameSpec, tries: int = 4) -> bool:
    """True when ``game``'s ``initial_state`` draws from its rng (Rubik's cube's scramble, Kuhn poker's deal):
    seen by comparing the starts of a few seeds. Such a game's "initial" evaluations start every game afresh, as
    a chance game's do; one fixed start would evaluate a single scramble or deal."""
    first = np.asarray(game.initial_state(game.p, make_rng(0)))
    return any(not np.array_equal(first, game.initial_state(game.p, make_rng(seed))) for seed in range(1, tries + 1))


def resolve_starts(game: GameSpec, start_states):
    """``(description, starts)``; ``starts`` is a list of states or a tag ``"fresh"``/``("random", k)``."""
    if isinstance(start_states, str):
        if start_states == "initial":
            if game.has_chance or random_start(game):  # a scramble or a deal: a fresh one every game
                return "initial", "fresh"
            return "initial", [game.initial_state(game.p, make_rng(0))]
        if start_states == "all-1ply":
            return "all-1ply", positions_after(game, 1)
        if start_states in ("othello-4ply", "othello-4ply-distinct"):
            if game.name != "othello":
                raise ValueError(f"start_states={start_states!r} is for Othello, not {game.id}")
            return start_states, othello_4ply_starts(game, distinct=start_states.endswith("distinct"))
        raise ValueError(f"unknown start_states {start_states!r}: use 'initial', 'all-1ply', "
                         f"'othello-4ply', 'othello-4ply-distinct', ('random', k) or a list of states")
    if isinstance(start_states, tuple) and len(start_states) == 2 and start_states[0] == "random":
        k = start_states[1]
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ValueError(f"('random', k) needs an integer k >= 0, got {k!r}")
        return f"random-{int(k)}ply", ("random", int(k))
    if isinstance(start_states, (list, np.ndarray)):
        starts = []
        for i, s in enumerate(start_states):
            a = np.asarray(s)
            if a.shape != (game.state_size,) or not np.array_equal(a, a.astype(np.int32)):
                raise ValueError(f"start state {i} must be {game.state_size} integers, got shape {a.shape}")
            a = a.astype(np.int32)
            reason = game.validate(game.p, a)
            if reason:
                raise ValueError(f"start state {i} is not a legal {game.id} position: {reason}")
            if a[TERMINAL]:
                raise ValueError(f"start state {i} is a finished game")
            starts.append(a)
        if not starts:
            raise ValueError("start_states is an empty list")
        return "list", starts
    raise ValueError(f"start_states must be a string, ('random', k) or a list of states, got {start_states!r}")
