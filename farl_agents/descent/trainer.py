"""The self-play learning loop of Cohen-Solal 2020 (Alg. 3-7) with a wall-clock budget.

One game: the tree starts empty (T = ∅), every move runs the search from the
current state (its table kept for the whole game), then the action selection
picks a child (completed ε-greedy / softmax / ordinal, annealed by t / T).
At the end of the game the learning data (tree / root / terminal) go through
the experience replay (Alg. 6) and one LMS epoch fits f_θ (Alg. 7).

Searches for learning: ``descent`` (Alg. 9, completion), ``ubfm`` (Alg. 1 +
9), ``id`` (iterative-deepening alpha-beta; tree learning then uses the
exact values of its last completed iteration) and ``mcts`` (UCT over f_θ,
:mod:`farl_agents.descent.mcts_learn`; tree learning uses the mean values
of the visited states). With ``mcts`` the resolved values r are those of
terminal children only (no completion inside UCT). Budget per move:
``move_iterations`` iterations or ``move_seconds`` seconds (ID: seconds).

Time t counts only training (not checkpoints), across resumes, so a run cut
into pieces anneals exactly like one run of T = ``minutes``. It is wall-clock
time, or CPU time of the process with ``cpu_clock`` (then the per-move search
budget is CPU time too), which keeps runs comparable on a shared machine.
"""
from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field

import numpy as np

import farl_envs
from farl_agents.config_flags import check_field_types, settings_from_dict
from farl_agents.descent.alphabeta import AlphaBeta
from farl_agents.descent.evaluation import make_evaluation
from farl_agents.descent.heuristics import HEURISTICS, make_heuristic
from farl_agents.descent.learning import LEARNINGS, ReplayBuffer, game_data
from farl_agents.descent.mcts_learn import EvalMCTS
from farl_agents.descent.search import TreeSearch
from farl_agents.descent.selection import SELECTIONS, select
from farl_agents.ntuple.budget import LIMIT_VARIABLE, human, memory_limit
from farl_agents.safe_files import loads_json
from farl_envs.core.rng import make_rng

LEARN_SEARCHES = ("descent", "ubfm", "id", "mcts")


@dataclass(frozen=True)
class DescentConfig:
    """Every option of a descent-family training run (saved with the agent and in run.json)."""

    game: str = "tictactoe"
    """Game name (farl registry)."""
    game_params: dict = field(default_factory=dict)
    """Game parameters, e.g. ``{"size": 6}``."""
    search: str = "descent"
    """Search used during learning: descent, ubfm or id."""
    learning: str = "tree"
    """Learning data: tree, root or terminal."""
    heuristic: str = "classic"
    """Terminal evaluation f_t (reinforcement heuristic)."""
    selection: str = "egreedy"
    """Action selection: egreedy, softmax or ordinal (completed)."""
    completion: bool = True
    """Completion and resolution stop in the tree searches (Alg. 9)."""
    minutes: float = 1.0
    """T: total learning time (the annealing horizon)."""
    move_iterations: int = 0
    """Search budget per move in iterations (0: use move_seconds)."""
    move_seconds: float = 0.05
    """Search budget per move in seconds (when move_iterations is 0)."""
    evaluation: str = "ntuple"
    """f_θ: ntuple (numba) or conv (the paper's small conv net, torch)."""
    alpha: float = 0.2
    """α of the n-tuple LMS fit."""
    memory_size: int = 200_000
    """μ: replay memory size (Alg. 6)."""
    sampling_rate: float = 0.25
    """σ: fraction of the memory learnt per game once it holds more than min_sample pairs."""
    min_sample: int = 20_000
    """Below this many pairs the whole memory is learnt after each game."""
    seed: int = 0
    """Seed of the action selection, replay sampling and f_θ's initial weights."""
    cpu_clock: bool = False
    """Count every budget (T and the search time per move) in CPU seconds of this process instead of
    wall-clock seconds: runs that share a busy machine then get the same computation."""

    def __post_init__(self):
        self.check()

    def check(self) -> "DescentConfig":
        """``TypeError`` / ``ValueError`` naming the field for a value of the wrong type (``memory_size=1.5``,
        ``minutes=nan``) or out of range; returns ``self``."""
        def need(ok, msg):
            if not ok:
                raise ValueError(msg)
        check_field_types(self)
        need(self.search in LEARN_SEARCHES, f"--search for learning must be one of {', '.join(LEARN_SEARCHES)}")
        need(self.learning in LEARNINGS, f"--learning must be one of {', '.join(LEARNINGS)}")
        need(self.heuristic in HEURISTICS, f"--heuristic must be one of {', '.join(HEURISTICS)}")
        need(self.selection in SELECTIONS, f"--selection must be one of {', '.join(SELECTIONS)}")
        need(self.minutes > 0, "--minutes must be > 0")
        need(self.move_iterations >= 0 and self.move_seconds >= 0, "move_iterations and move_seconds must be >= 0")
        need(self.move_iterations > 0 or self.move_seconds > 0, "give a per-move budget > 0")
        need(self.memory_size >= 1 and self.min_sample >= 1, "memory_size and min_sample must be >= 1")
        need(0 < self.sampling_rate <= 1, f"sampling_rate must be in (0, 1], got {self.sampling_rate}")
        need(self.seed >= 0, f"seed must be an integer >= 0, got {self.seed}")
        need(self.alpha > 0, "alpha must be > 0")
        need(self.evaluation in ("ntuple", "conv"), "--evaluation must be ntuple or conv")
        return self

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "DescentConfig":
        return settings_from_dict(cls, d, "descent options").check()


class DescentTrainer:
    """Runs self-play games and fits f_θ; ``run(seconds)`` trains for a slice of the budget."""

    def __init__(self, config: DescentConfig):
        self.config = config.check()
        self.game = farl_envs.game_spec(config.game, **config.game_params)
        need, limit = config.memory_size * (self.game.n_cells + 8), memory_limit()  # int8 boards + float64 targets
        if need > limit:
            raise ValueError(f"memory_size {config.memory_size:,} needs {human(need)} of replay memory on "
                             f"{self.game.id}; the limit is {human(limit)} (set {LIMIT_VARIABLE} to raise it)")
        self.heuristic = make_heuristic(config.heuristic, self.game)
        self.evaluation = make_evaluation(config.evaluation, self.game, self.heuristic.scale,
                                          config.heuristic == "classic", config.alpha, seed=config.seed)
        self.replay = ReplayBuffer(self.game.n_cells, config.memory_size, config.sampling_rate,
                                   config.min_sample)
        self.rng = make_rng(config.seed)  # action selection (farl stream)
        self.np_rng = np.random.default_rng(config.seed)  # replay sampling and fit order
        self.elapsed = 0.0
        self.games = 0
        self.plies = 0
        self.results = [0, 0, 0]  # first-player wins, draws, second-player wins
        self.last_error = float("nan")
        self.clock = time.process_time if config.cpu_clock else time.perf_counter
        self.rebuild_engine()

    def rebuild_engine(self) -> None:
        """(Re)make the learning search over the current ``evaluation``."""
        config = self.config
        if config.search == "id":
            self.engine = AlphaBeta(self.game, self.evaluation, self.heuristic)
        elif config.search == "mcts":
            self.engine = EvalMCTS(self.game, self.evaluation, self.heuristic)
        else:
            self.engine = TreeSearch(self.game, self.evaluation, self.heuristic, config.search,
                                     config.completion, "best")
        self.engine.clock = self.clock

    @property
    def total_seconds(self) -> float:
        return 60.0 * self.config.minutes

    def progress(self) -> float:
        return min(self.elapsed / self.total_seconds, 1.0)

    def _move(self, state, t0):
        """Search from ``state``; returns (chosen child, root value v(s), child states, chosen child's r)."""
        cfg = self.config
        progress = min((self.elapsed + self.clock() - t0) / self.total_seconds, 1.0)
        first = int(state[0]) == 0
        if cfg.search == "id":
            eng = self.engine
            best, value = eng.search(state, seconds=cfg.move_seconds if cfg.move_seconds > 0 else 0.05)
            acts, static = eng.root_children(state)
            r = np.round(static / eng.big).astype(np.int64)
            v = static - r * eng.big
            i_best = int(np.flatnonzero(acts == best)[0])
            v = v.copy()
            v[i_best] = value - round(value / eng.big) * eng.big  # the searched value of the chosen line
            r[i_best] = round(value / eng.big)
            states = eng._cache[state.tobytes()][1]
            i = select(cfg.selection, v, r, first, progress, self.rng, self.heuristic.scale)
            return i, v[i_best], states, int(r[i])
        eng = self.engine
        root = eng.search(state, cfg.move_iterations or None, None if cfg.move_iterations else cfg.move_seconds)
        if cfg.search == "mcts":
            v = np.array([c.q for c in root.children])
            r = np.array([c.r for c in root.children])
            i = select(cfg.selection, v, r, first, progress, self.rng, self.heuristic.scale)
            return i, root.q, [c.state for c in root.children], root.children[i].r
        v = np.array([c.v for c in root.children])
        r = np.array([c.r for c in root.children])
        i = select(cfg.selection, v, r, first, progress, self.rng, self.heuristic.scale)
        return i, root.v, [c.state for c in root.children], root.children[i].r

    def play_game(self):
        """One self-play game + learning phase; returns the game's result w."""
        cfg, g = self.config, self.game
        t0 = self.clock()
        state = np.ascontiguousarray(g.initial_state(g.p, make_rng(0)), dtype=np.int32)
        self.engine.clear()
        mob = [0, 0]
        path_boards, path_values = [], []
        id_boards, id_values = [], []
        board = np.zeros(g.n_cells, dtype=np.int32)
        while not state[1]:
            if cfg.search != "id":  # ID's terminal values ignore mobility (c₁ = c₂ = 0)
                self.engine.root_mobility = (mob[0], mob[1])
            i, root_value, child_states, child_r = self._move(state, t0)
            g.board(g.p, state, board)
            path_boards.append(board.copy())
            path_values.append(root_value)
            if cfg.search == "id" and cfg.learning == "tree":
                b, v = self.engine.tree_data()
                id_boards.append(b)
                id_values.append(v)
            mob[int(state[0])] += len(child_states)  # legal moves (whole turns: see expand.py)
            state = np.ascontiguousarray(child_states[i], dtype=np.int32).copy()
        # the final state: its result w (the resolved value of a terminal child) and f_t
        rewards_w = child_r
        g.board(g.p, state, board)
        pieces = (int((board == 1).sum()), int((board == 2).sum()))
        final = self.heuristic.value(rewards_w, int(state[2]), pieces[0], pieces[1], mob[0], mob[1],
                                     state=state)
        path_boards.append(board.copy())
        path_values.append(final)
        pb, pv = np.stack(path_boards), np.array(path_values, dtype=np.float64)
        if cfg.learning == "tree":
            if cfg.search == "id":
                tb = np.concatenate(id_boards + [pb[-1:]])
                tv = np.concatenate(id_values + [pv[-1:]])
            else:
                tb, tv = self.engine.tree_data()
        else:
            tb, tv = None, None
        boards, targets = game_data(cfg.learning, tb, tv, pb, pv, final)
        xb, xy = self.replay.experience_replay(boards, targets, self.np_rng)
        self.last_error = self.evaluation.fit(xb, xy, self.np_rng)
        self.games += 1
        self.plies += int(state[2])
        self.results[1 - rewards_w] += 1
        self.elapsed += self.clock() - t0
        return rewards_w

    def run(self, seconds: float, on_game=None) -> None:
        """Train until ``seconds`` more of training time are spent or the budget T is used up."""
        stop = min(self.elapsed + seconds, self.total_seconds)
        while self.elapsed < stop:
            self.play_game()
            if on_game is not None:
                on_game(self)

    # ------------------------------------------------------------ state
    def state_arrays(self) -> dict:
        arrays = self.replay.state_arrays()
        arrays["agent_rng"] = self.rng.copy()
        arrays["np_rng"] = np.array(json.dumps(self.np_rng.bit_generator.state))
        return arrays

    def info(self) -> dict:
        return {"trainer": self.config.to_dict(), "games": self.games, "plies": self.plies,
                "train_seconds": self.elapsed,
                "results_first_draw_second": list(self.results)}

    def restore(self, arrays: dict, info: dict) -> None:
        self.replay.load_arrays(arrays["replay_boards"], arrays["replay_targets"])
        self.rng[:] = arrays["agent_rng"]
        self.np_rng.bit_generator.state = loads_json(str(arrays["np_rng"]), "the saved generator state")
        self.games = int(info["games"])
        self.plies = int(info.get("plies", 0))  # not saved by farl 0.1
        self.elapsed = float(info["train_seconds"])
        self.results = list(info["results_first_draw_second"])
