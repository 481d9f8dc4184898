"""Learner settings: one frozen dataclass, saved as JSON beside the weights.

Field names are plain words; the paper's symbols are in the docstrings.
The named settings of the papers (Konen & Bagheri 2020, Appendix A.6, and
Thill, Bagheri, Koch & Konen 2014, Table I) are built from this class by
:func:`farl_agents.learners.presets.paper_config`; this module does not
know them, so the dependency runs one way (presets -> config).
"""
from __future__ import annotations

import dataclasses
import json
import numbers
from dataclasses import dataclass, fields

from farl_agents.config_flags import check_field_types

ALGOS = ("td", "sarsa", "q")
SCHEDULES = ("linear", "exponential")
TRACE_MODES = ("et", "res", "rep", "rr")
TCL_MODES = ("none", "id", "exp")
NTUPLE_KINDS = ("fixed", "random-walk", "random-points", "explicit")
TABLE_LAYOUTS = ("auto", "dense", "paged")
TD_CHAINS = ("player", "ply")
CHANCE_TARGETS = ("sampled", "expected")


@dataclass(frozen=True)
class LearnerConfig:
    """Everything that defines an n-tuple FARL learner and its training run."""

    algo: str = "td"
    """``td`` (afterstate values, Alg. 2), ``sarsa`` (Alg. 5) or ``q`` (Alg. 3): the last two learn Q(s, a)."""
    farl: bool = True
    """Final adaptation, part 1: at the end, every other player's last state is adapted towards its final reward."""
    farl_terminal: bool = True
    """Final adaptation, part 2 (TD only): the mover's terminal afterstate is adapted towards 0.

    Footnote 7 of Konen & Bagheri 2020 switches this part alone."""
    alpha: float = 0.2
    """α at the first episode: the step size (each update is scaled by α/(m·N_S))."""
    alpha_final: float | None = None
    """α at the last episode (``None``: constant)."""
    alpha_schedule: str = "exponential"
    """How α moves from ``alpha`` to ``alpha_final``: ``exponential`` (GBG's geometric decay) or ``linear``."""
    epsilon: float = 0.1
    """ε at the first episode: probability of a uniformly random (explorative) move in training."""
    epsilon_final: float | None = None
    """ε at the last episode (``None``: constant)."""
    epsilon_schedule: str = "linear"
    """How ε moves from ``epsilon`` to ``epsilon_final`` (GBG: linear)."""
    gamma: float = 1.0
    """γ, the discount factor."""
    lam: float = 0.0
    """λ, the trace decay of TD(λ) with horizon."""
    horizon_cut: float = 0.01
    """Older states are updated while λ^age ≥ horizon_cut: h = floor(log_λ(horizon_cut)) (Alg. 7)."""
    trace_mode: str = "et"
    """``et`` standard, ``res`` reset on random move, ``rep`` replacing, ``rr`` reset + replacing.

    The four variants of Thill, Bagheri, Koch & Konen 2014."""
    learn_from_random_moves: bool = False
    """T_lrnRM: also learn from transitions that random moves produced (else those updates are skipped)."""
    reset_all_players: bool = True
    """``res`` / ``rr`` traces: a random move empties every player's eligibility list (True; Alg. 1 of Thill et
    al. 2014 resets its one trace vector), or only the mover's (False: to the other players the random move is
    part of what their own move led to, not their exploration)."""
    td_chain: str = "player"
    """Which states one TD error reaches (TD, two or more players): ``player`` — a player's afterstate moves
    towards that player's next afterstate, each player valuing from its own side, with its own eligibility list
    (Konen & Bagheri 2020, player-centred); ``ply`` — one chain through every ply. With two players each
    afterstate moves towards the next ply's afterstate, the opponent's, seen from the other side, and one
    eligibility list holds both players' states (Alg. 1 of Thill, Bagheri, Koch & Konen 2014); with three or
    more, every player's tables learn on every ply's afterstate, each towards its own value of the next ply's
    (learners/td_farl.py). λ decays per entry of the chain, so per own move under ``player``, per ply under
    ``ply``. Under ``ply`` the last update of a game already moves the other players' values of the last
    afterstate before the end to their final rewards, which is what final adaptation adds to ``player``:
    ``farl`` and ``farl_terminal`` have no effect there."""
    chance_target: str = "sampled"
    """TD, player-centred chain, games with chance (dice): ``sampled`` — a player's TD target is the value of its
    next afterstate, made after the roll that actually came (the papers' learner); ``expected`` — the part of
    that target which the roll before the player's move and its answer decide is replaced by its expectation
    over the roll's outcomes, each answered greedily (the game's declared ``chance_outcome_count`` /
    ``apply_chance_outcome``): the targets lose the noise of the dice, at the cost of valuing every outcome's
    candidates on each move. farl's own games, player-centred chain, no teacher."""
    tanh_output: bool = True
    """σ = tanh on the output ("output sigmoid"), else identity."""
    use_symmetry: bool = True
    """Sum the value over the game's symmetric boards (N_S > 1)."""
    tcl: str = "none"
    """Temporal coherence learning: ``none``, ``id`` (α_i = |N|/A) or ``exp`` (α_i = e^{β(|N|/A − 1)})."""
    tcl_beta: float = 2.7
    """β of TC-EXP."""
    tcl_init: float = 1e-4
    """Initial value of the TCL accumulators N and A."""
    reward_scale: float = 1.0
    """Rewards are multiplied by this before learning (GBG's 2048 uses 1/3,932,156)."""
    shaping: float = 0.0
    """w, the weight of progress shaping (TD; 0: off, the paper's learner): the reward between a player's
    consecutive afterstates (per-ply chain: between consecutive plies, for every player) gets
    w·(γ·Φ(s') − Φ(s_last)), Φ the game's leaf evaluation (``GameSpec.heuristic``, on the final position too, so
    progress at the end counts beside the result), and the agent values an afterstate as its tables' output plus
    w·Φ (potential-based shaping, Ng, Harada & Russell 1999; for games whose self-play rarely ends, such as
    Chinese Checkers; see learners/td_farl.py)."""
    episode_plies: int = 0
    """Training episodes stop after this many plies (0: only when the game ends), as a time limit of training,
    not an end of the game: the last afterstate keeps its bootstrapped TD target and no final adaptation
    follows (GBG's episode length, e.g. its 2x2x2 cube runs' 16 twists, "ET16"). A cap the game itself
    declares (``max_twists``, ``max_moves``) ends the game instead, with the rules' rewards and final
    adaptation. The evaluations play whole games."""
    learn_start: bool = False
    """TD, compiled self-play: the episode's start position is learnt as the afterstate of the player who moved
    before it (one player: the mover itself), so the first move's TD target r + γ·V(s'_1) also trains V(start).
    GBG's ``TDNTuple4Agt`` does this for every game (its ``precedingAfterstate``); for the Rubik's cube it is
    what trains the scrambled starts themselves (a start is a position an unknown twist made). Off: farl's
    learner of Konen & Bagheri 2020, whose first update is the mover's second afterstate."""
    teacher: str = ""
    """An opponent name (``make_opponent``, e.g. ``maxn1``) that plays the seats the learner does not play in
    training (TD, player-centred chain; empty: pure self-play). Each episode has one learning seat, rotating, and
    every other seat is the teacher with probability ``teacher_share``; only learning seats learn
    (:mod:`farl_agents.learners.teaching`). For N-player games whose self-play never shows the learner what
    other players do to it (3-player Yavalath's trap; docs/results/nplayer_learning.md, section 7)."""
    teacher_share: float = 1.0
    """With ``teacher``: the probability that a seat other than the episode's learning seat is the teacher."""
    random_start_prob: float = 0.0
    """choose-start-01: probability that an episode starts after ``random_start_plies`` random plies."""
    random_start_plies: int = 1
    """Random opening plies of choose-start-01 (Othello: 4)."""
    ntuples: str = "random-walk"
    """How the n-tuples are made: ``fixed`` (the paper's set for the game), ``random-walk``, ``random-points``
    or ``explicit``."""
    ntuple_count: int = 10
    """m, the number of n-tuples (random kinds)."""
    ntuple_length: int = 6
    """n, the cells per n-tuple (random kinds)."""
    ntuple_cells: tuple = ()
    """The tuples themselves for ``explicit`` (a tuple of tuples of cells)."""
    episodes: int = 10_000
    """Training episodes (the schedules run over this many)."""
    seed: int = 0
    """Seeds the n-tuple draw, exploration, start states and the game's chance."""
    carry_traces: bool = False
    """Keep eligibility lists across episodes (GBG does; the paper starts each episode fresh)."""
    sarsa_reselect: bool = True
    """SARSA: choose the next action again after the update (the paper); False plays the one chosen before (GBG)."""
    table_layout: str = "auto"
    """How the weight tables are held: ``dense`` (every entry from the start; fastest), ``paged`` (memory grows
    with the entries written; 2048's 768 MiB net needs about 100 MiB after 3,000 games, at ~1.2x the time per
    game) or ``auto`` (paged from 256 MiB of dense tables). The learned floats are the same."""

    def __post_init__(self):
        """Types first (``TypeError``/``ValueError`` naming the field: ``episodes=1.5``, ``episodes=True``,
        ``alpha=nan`` are refused), then ranges and choices (``ValueError``)."""
        def need(cond, msg):
            if not cond:
                raise ValueError(msg)

        check_field_types(self)
        object.__setattr__(self, "ntuple_cells", _cells(self.ntuple_cells))
        need(self.algo in ALGOS, f"algo must be one of {ALGOS}, got {self.algo!r}")
        need(self.alpha_schedule in SCHEDULES and self.epsilon_schedule in SCHEDULES,
             f"schedules must be one of {SCHEDULES}")
        need(self.trace_mode in TRACE_MODES, f"trace_mode must be one of {TRACE_MODES}, got {self.trace_mode!r}")
        need(self.tcl in TCL_MODES, f"tcl must be one of {TCL_MODES}, got {self.tcl!r}")
        need(self.ntuples in NTUPLE_KINDS, f"ntuples must be one of {NTUPLE_KINDS}, got {self.ntuples!r}")
        need(self.td_chain in TD_CHAINS, f"td_chain must be one of {TD_CHAINS}, got {self.td_chain!r}")
        need(self.td_chain == "player" or self.algo == "td",
             f"td_chain='ply' is a TD learner's chain of afterstates; algo {self.algo!r} needs td_chain='player'")
        need(self.chance_target in CHANCE_TARGETS,
             f"chance_target must be one of {CHANCE_TARGETS}, got {self.chance_target!r}")
        need(self.chance_target == "sampled" or (self.algo == "td" and self.td_chain == "player" and not self.teacher),
             "chance_target='expected' needs algo td, td_chain player and no teacher")
        need(self.table_layout in TABLE_LAYOUTS,
             f"table_layout must be one of {TABLE_LAYOUTS}, got {self.table_layout!r}")
        need(self.alpha > 0, "alpha must be > 0")
        need(self.alpha_final is None or self.alpha_final > 0, "alpha_final must be > 0")
        need(0 <= self.epsilon <= 1 and (self.epsilon_final is None or 0 <= self.epsilon_final <= 1),
             "epsilon values must be in [0, 1]")
        need(self.alpha_schedule != "exponential" or self.alpha_final is None or self.alpha_final > 0,
             "an exponential schedule needs a positive final value")
        need(self.epsilon_schedule != "exponential" or self.epsilon_final is None
             or (self.epsilon_final > 0 and self.epsilon > 0),
             "an exponential epsilon schedule needs positive start and final values")
        need(0 <= self.gamma <= 1, "gamma must be in [0, 1]")
        need(0 <= self.lam < 1, "lam (λ) must be in [0, 1)")
        need(0 < self.horizon_cut < 1, "horizon_cut must be in (0, 1)")
        need(0 <= self.random_start_prob <= 1, "random_start_prob must be in [0, 1]")
        need(self.random_start_plies >= 0, "random_start_plies must be >= 0")
        need(self.episode_plies >= 0, "episode_plies must be >= 0 (0: no cap)")
        need(self.ntuple_count >= 1 and self.ntuple_length >= 1, "ntuple_count and ntuple_length must be >= 1")
        need(self.episodes >= 1, "episodes must be >= 1")
        need(self.ntuples != "explicit" or len(self.ntuple_cells) > 0, "explicit n-tuples need ntuple_cells")
        need(self.reward_scale > 0, "reward_scale must be > 0")
        need(self.shaping >= 0, f"shaping must be >= 0, got {self.shaping}")
        need(self.shaping == 0 or self.algo == "td", "shaping is for TD (algo='td')")
        need(not self.learn_start or (self.algo == "td" and self.td_chain == "player" and self.shaping == 0),
             "learn_start needs algo td, td_chain player and no shaping")
        need(0 <= self.teacher_share <= 1, f"teacher_share must be in [0, 1], got {self.teacher_share}")
        need(not self.teacher or (self.algo == "td" and not self.learn_start),
             "a teacher trains TD (algo='td', learn_start off)")
        need(self.tcl_init > 0, "tcl_init must be > 0 (the accumulators divide by it)")
        need(self.seed >= 0, f"seed must be an integer >= 0, got {self.seed}")

    def weight_sets(self, n_players: int) -> int:
        """Weight sets of the network: one per player, or for TD's per-ply chain with three or more players one
        per (valuer, maker) pair, since a player's value of an afterstate depends on who made it and a board
        need not show that (``learners/td_farl.py``, ``table_of``)."""
        per_pair = self.algo == "td" and self.td_chain == "ply" and n_players > 2
        return n_players * n_players if per_pair else n_players

    # ----------------------------------------------------------- schedules
    def alpha_at(self, episode: int) -> float:
        """α used in 0-based ``episode`` (reaches ``alpha_final`` after ``episodes`` episodes)."""
        return _schedule(self.alpha, self.alpha_final, self.alpha_schedule, episode, self.episodes)

    def epsilon_at(self, episode: int) -> float:
        """ε used in 0-based ``episode``."""
        return _schedule(self.epsilon, self.epsilon_final, self.epsilon_schedule, episode, self.episodes)

    # --------------------------------------------------------------- JSON
    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["ntuple_cells"] = [list(t) for t in self.ntuple_cells]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "LearnerConfig":
        known = {f.name for f in fields(cls)}
        for name, today in RETIRED.items():
            if name in d:
                if d[name] != today:
                    raise ValueError(f"learner option {name}={d[name]!r} is no longer supported (only {today!r}, "
                                     "which every learner now does)")
                d = {k: v for k, v in d.items() if k != name}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown learner options: {', '.join(sorted(unknown))}")
        return cls(**d)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    def replace(self, **changes) -> "LearnerConfig":
        return dataclasses.replace(self, **changes)


RETIRED = {"fast_math": False}
"""Options that once existed, with the one value that means what farl does today: a file that sets it so (agents
and runs of that time) loads without it, any other value is refused. ``fast_math`` (cheaper ``exp``/``tanh``)
was removed in November 2026: it bought no measurable speed (docs/results/vs_gbg.md)."""


def _cells(tuples) -> tuple:
    """``ntuple_cells`` as a tuple of tuples of ints; ``TypeError`` for anything but integer cells (a float
    cell would otherwise be truncated), ``ValueError`` for negative ones or an empty tuple."""
    out = []
    for i, t in enumerate(tuples):
        if not isinstance(t, (tuple, list)) or not t:
            raise ValueError(f"LearnerConfig.ntuple_cells[{i}] must be a non-empty list of cells, got {t!r}")
        for c in t:
            if isinstance(c, bool) or not isinstance(c, numbers.Integral):
                raise TypeError(f"LearnerConfig.ntuple_cells[{i}] holds {c!r}: cells are integers")
            if c < 0:
                raise ValueError(f"LearnerConfig.ntuple_cells[{i}] holds {c}: cells are >= 0")
        out.append(tuple(int(c) for c in t))
    return tuple(out)


def _schedule(start: float, final: float | None, kind: str, episode: int, episodes: int) -> float:
    if final is None or final == start:
        return start
    x = min(max(episode, 0), episodes) / episodes
    if kind == "linear":
        return start + (final - start) * x
    return start * (final / start) ** x
