"""``NTupleAgent``: an n-tuple FARL learner you can train, play, save and load.

>>> from farl_agents.learners import NTupleAgent, paper_config
>>> agent = NTupleAgent("tictactoe", paper_config("tictactoe"))         # doctest: +SKIP
>>> agent.train(5_000)                      # compiled self-play          # doctest: +SKIP
>>> agent.save("ttt.farl.npz")                                          # doctest: +SKIP
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

import farl_envs
from farl_agents.learners import agent_io, sarsa_farl, td_farl, teaching
from farl_agents.learners.agent_io import AgentFileError
from farl_agents.learners.config import TABLE_LAYOUTS, LearnerConfig
from farl_agents.learners.kernels import NO_POTENTIAL, kernels_of, potential, potential_of
from farl_agents.ntuple import network
from farl_agents.ntuple.budget import check_network_memory, network_bytes
from farl_agents.ntuple.network import Net, board_indices, build_net, value
from farl_agents.ntuple.sets import make_set
from farl_agents.ntuple.traces import TRACE_MODES, horizon_entries, make_traces
from farl_envs.core.hooks import hooks_of
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TO_MOVE, GameSpec
from farl_envs.numba_setup import fast_inline_copies

ENV_SEED_OFFSET = 0x5EED
PAGED_FROM_BYTES = 256 * 2**20
"""``layout="auto"`` pages the tables (:mod:`farl_agents.ntuple.network`) when dense ones would take at least this
much (2048's paper preset: 768 MiB); smaller ones stay dense, where a read costs no page look-up."""


def _schedule_run(start: float, final: float | None, kind: str, first: int, n: int, episodes: int) -> np.ndarray:
    """The values of a :class:`LearnerConfig` schedule for episodes ``first .. first + n - 1``.

    The same arithmetic as ``LearnerConfig.alpha_at`` (the same floats: both
    call the C library's ``pow``), in one compiled loop: per episode in
    Python it took a third of a TicTacToe training chunk.
    """
    if final is None or final == start:
        return np.full(n, float(start))
    return _schedule_values(float(start), float(final), kind == "linear", int(first), int(n), int(episodes))


@njit(cache=True)
def _schedule_values(start, final, linear, first, n, episodes):
    out = np.empty(n)
    for i in range(n):
        x = min(max(first + i, 0), episodes) / episodes
        out[i] = start + (final - start) * x if linear else start * (final / start) ** x
    return out


def check_against_game(config: LearnerConfig, game) -> None:
    """Refuse settings that ``game`` cannot take (ValueError): the per-ply TD chain needs two or more players; SARSA / Q
    with symmetries need the game's action symmetries. ``farl train`` calls it, and :func:`described_tuples`,
    on the settings it is given, so that a mistake is reported as a bad setting before a run folder exists."""
    if config.td_chain == "ply" and game.n_players < 2:
        raise ValueError(f"td_chain='ply' chains the plies of two or more players; {game.id} has one player, "
                         f"whose player-centred chain already runs through every ply")
    if config.algo != "td" and config.use_symmetry and game.action_symmetries is None:
        raise ValueError(f"{game.id} defines no action symmetries: SARSA/Q need them (or use_symmetry=False)")
    teaching.check_teacher(config, game)
    if config.shaping != 0.0:
        if not isinstance(game, GameSpec):
            raise ValueError("shaping reads the game's heuristic on kernel states: farl's own games only")
        potential_of(game, config.shaping)  # ValueError when the game declares no heuristic
    expected_target_hooks(game, config)


def expected_target_hooks(game, config: LearnerConfig):
    """The game's chance hooks for ``chance_target = "expected"`` (:mod:`farl_envs.core.hooks`),
    None for sampled targets. ValueError when the game cannot take expected targets: not one of farl's own games,
    no chance events, or chance outcomes it does not enumerate."""
    if config.chance_target == "sampled":
        return None
    if not isinstance(game, GameSpec) or not game.has_chance:
        raise ValueError(f"chance_target='expected' takes the expectation over a game's chance events: "
                         f"{game.id} has none (farl's own games with dice or tiles only)")
    return hooks_of(game, heuristic=False)  # ValueError when the game does not enumerate its outcomes


def network_outputs(config: LearnerConfig, game) -> int:
    """Outputs per n-tuple entry: one value (TD's afterstates) or one per action (SARSA / Q)."""
    return 1 if config.algo == "td" else game.n_actions


def described_tuples(config: LearnerConfig, game) -> np.ndarray:
    """The n-tuple set that the settings describe on ``game``; ValueError when its tables would exceed the memory
    limit (checked before a random set is drawn; a given set, ``fixed`` or ``explicit``, by its own size, not by
    ``ntuple_count`` / ``ntuple_length``) or its tuples do not fit the board."""
    outputs, tcl = network_outputs(config, game), config.tcl != "none"
    if config.ntuples in ("fixed", "explicit"):
        tuples = make_set(game, config.ntuples, config.ntuple_count, config.ntuple_length, config.seed,
                          config.ntuple_cells)
        check_network_memory(tuples.shape[0], tuples.shape[1], game.n_cell_values, config.weight_sets(game.n_players),
                             outputs, tcl)
        return tuples
    check_network_memory(config.ntuple_count, config.ntuple_length, game.n_cell_values,
                         config.weight_sets(game.n_players), outputs, tcl)
    return make_set(game, config.ntuples, config.ntuple_count, config.ntuple_length, config.seed,
                    config.ntuple_cells)


class NTupleAgent:
    """A player-centred n-tuple learner (TD-FARL, SARSA-FARL or Q-FARL) for one game.

    Args:
        game: a game name (``"connect_four"``) or a :class:`GameSpec`.
        config: the learner settings; ``presets.paper_config(game)`` gives Konen & Bagheri 2020's.
        tuples: use this n-tuple set instead of making one from ``config``
            (loading a saved agent does this).
        layout: how the weight tables are held, instead of ``config.table_layout``: ``dense`` (every entry from
            the start), ``paged`` (memory grows with the entries written; see :mod:`farl_agents.ntuple.network`)
            or ``auto`` (paged from :data:`PAGED_FROM_BYTES` of dense tables). All learn the same floats and write
            the same files.
        **game_params: the game's parameters when ``game`` is a name.
    """

    def __init__(self, game: str | GameSpec, config: LearnerConfig | None = None, tuples=None,
                 layout: str | None = None, **game_params):
        self.game = farl_envs.game_spec(game, **game_params) if isinstance(game, str) else game
        self.config = config or LearnerConfig()
        cfg, g = self.config, self.game
        if layout is None:
            layout = cfg.table_layout
        elif layout not in TABLE_LAYOUTS:
            raise ValueError(f"unknown layout {layout!r}; use one of {', '.join(TABLE_LAYOUTS)}")
        check_against_game(cfg, g)
        n_outputs = network_outputs(cfg, g)
        if tuples is None:
            self.tuples = described_tuples(cfg, g)
        else:
            tuples = np.asarray(tuples)
            if tuples.ndim == 2:
                check_network_memory(tuples.shape[0], tuples.shape[1], g.n_cell_values, cfg.weight_sets(g.n_players),
                                     n_outputs, cfg.tcl != "none")
            self.tuples = make_set(g, "explicit", 0, 0, 0, tuples)
        cell_syms = g.symmetries(g.p)
        if g.action_symmetries is not None:
            action_syms = g.action_symmetries(g.p)
        else:  # TD, or SARSA/Q without symmetries (check_against_game refused the rest)
            action_syms = np.tile(np.arange(g.n_actions, dtype=np.int32), (cell_syms.shape[0], 1))
        if layout == "auto":
            dense_bytes = network_bytes(self.tuples.shape[0], self.tuples.shape[1], g.n_cell_values,
                                        cfg.weight_sets(g.n_players), n_outputs, cfg.tcl != "none")
            layout = "paged" if dense_bytes >= PAGED_FROM_BYTES else "dense"
        self.net: Net = build_net(self.tuples, g.n_cell_values, cfg.weight_sets(g.n_players), n_outputs, cell_syms,
                                  action_syms, cfg.use_symmetry, cfg.tcl != "none", cfg.tcl_init,
                                  paged=layout == "paged")
        n_sym, m = self.net.sym_cells.shape[:2]
        self.traces = make_traces(g.n_players, horizon_entries(cfg.lam, cfg.horizon_cut), n_sym, m)
        # a foreign game (a spec-like object trained through its own AEC env, see train_aec) has no kernels:
        # no state to buffer and no compiled self-play
        native = isinstance(g, GameSpec)
        sizes = (g.n_players, g.n_actions, n_sym, m, g.n_cells, g.state_size if native else 0)
        self.memory = td_farl.make_memory(*sizes) if cfg.algo == "td" else sarsa_farl.make_memory(*sizes)
        self.kernels = kernels_of(g) if native else None
        self.potential = potential_of(g, cfg.shaping) if native else NO_POTENTIAL
        self.chance_hooks = expected_target_hooks(g, cfg) if native else None
        self.params = td_farl.TDParams(
            gamma=float(cfg.gamma), lam=float(cfg.lam), trace_mode=TRACE_MODES[cfg.trace_mode],
            learn_from_random=bool(cfg.learn_from_random_moves), tanh_output=bool(cfg.tanh_output),
            tcl_exp=cfg.tcl == "exp", tcl_beta=float(cfg.tcl_beta), farl=bool(cfg.farl),
            farl_terminal=bool(cfg.farl_terminal), reward_scale=float(cfg.reward_scale),
            reset_all=bool(cfg.reset_all_players), ply_chain=cfg.td_chain == "ply", shaping=float(cfg.shaping),
            episode_plies=int(cfg.episode_plies), learn_start=bool(cfg.learn_start),
            maker_tables=cfg.weight_sets(g.n_players) != g.n_players)
        self.agent_rng = make_rng(cfg.seed)
        self.env_rng = make_rng(self.env_seed)
        self.episodes_done = 0
        self._board = np.zeros(2 * g.n_cells, dtype=np.int32)
        self.teacher_player = None
        """The player of the teaching seats when ``config.teacher`` is set (``make_opponent(config.teacher,
        game)``; the run stack sets it, a script sets it before :meth:`train`)."""

    # ------------------------------------------------------------ training
    @property
    def env_seed(self) -> int:
        """The seed of the game's chance stream (the AEC env must be reset with it to match the fast path)."""
        return self.config.seed + ENV_SEED_OFFSET

    def schedules(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """α and ε for the next ``n`` episodes (``config.alpha_at`` and ``epsilon_at`` of each, compiled)."""
        cfg, first = self.config, self.episodes_done
        return (_schedule_run(cfg.alpha, cfg.alpha_final, cfg.alpha_schedule, first, n, cfg.episodes),
                _schedule_run(cfg.epsilon, cfg.epsilon_final, cfg.epsilon_schedule, first, n, cfg.episodes))

    def train(self, episodes: int) -> np.ndarray:
        """Self-play ``episodes`` episodes in the compiled loop.

        Returns ``float64[episodes, n_players + 1]``: each episode's final
        reward per player and its length in plies.
        """
        if episodes < 0:
            raise ValueError("episodes must be >= 0")
        g, cfg = self.game, self.config
        alphas, epsilons = self.schedules(episodes)
        results = np.zeros((episodes, g.n_players + 1))
        common = (self.kernels, g.p, self.net, self.params, self.memory, self.traces, alphas, epsilons,
                  float(cfg.random_start_prob), int(cfg.random_start_plies), bool(cfg.carry_traces))
        with fast_inline_copies():  # only matters when numba compiles the loop (farl_envs.numba_setup)
            if cfg.teacher:
                teaching.train_with_teacher(self, self.teacher(), alphas, epsilons, results)
            elif cfg.algo == "td":
                td_farl.self_play(self.kernels, self.potential, *common[1:], self.agent_rng, self.env_rng, results,
                                  self.chance_hooks)
            else:
                sarsa_farl.self_play(*common, cfg.algo == "sarsa", bool(cfg.sarsa_reselect), self.agent_rng,
                                     self.env_rng, results)
        self.episodes_done += episodes
        return results

    def teacher(self):
        """:attr:`teacher_player`; ValueError when ``config.teacher`` names one and none was set."""
        if self.teacher_player is None:
            raise ValueError(f"this learner trains with a teacher ({self.config.teacher!r}): set "
                             f"agent.teacher_player = make_opponent({self.config.teacher!r}, agent.game) "
                             f"(farl_agents.opponents) before training")
        return self.teacher_player

    def compile(self) -> None:
        """Compile the self-play loop for this game and learner, or load it from numba's cache, without playing.

        The loop is called with zero episodes: the same argument types as :meth:`train`'s (so the same
        compiled code), no random number drawn, no weight or counter changed. A run calls it before its
        clock starts, so compiling is never counted as training (:mod:`farl_agents.compile_notice`). With a
        teacher, the steps its Python loop calls and the teacher's move (:func:`teaching.compile_steps`).
        """
        if self.config.teacher:
            with fast_inline_copies():
                teaching.compile_steps(self, self.teacher())
            return
        self.train(0)

    def train_aec(self, env, episodes: int) -> list[dict]:
        """Self-play ``episodes`` episodes through a PettingZoo AEC ``env`` (the generic path).

        The first call resets ``env`` with :attr:`env_seed`, so a fresh agent
        trained here ends with the same weights as one trained with
        :meth:`train`. ``env`` must have farl's afterstate extension: farl's
        own envs, or any copyable AEC env wrapped by :mod:`farl_envs.adapters`.
        """
        cfg = self.config
        raw = env.unwrapped
        needed = ("afterstates",) if cfg.algo == "td" else ("board", "action_mask")
        missing = [n for n in needed if not callable(getattr(raw, n, None))]
        if missing:
            raise TypeError(f"{type(raw).__name__} has no {', '.join(missing)}: train_aec needs farl's afterstate "
                            f"extension; wrap the env with farl_envs.adapters (docs/adapters.md)")
        if cfg.learn_start:
            raise ValueError("learn_start is a setting of the compiled self-play (train), not of train_aec")
        if cfg.teacher:
            raise ValueError("a teacher is a setting of train (farl's own games), not of train_aec")
        alphas, epsilons = self.schedules(episodes)
        out = []
        with fast_inline_copies():  # the steps compile on the first episode (farl_envs.numba_setup)
            for e in range(episodes):
                out.append(self._aec_episode(env, cfg, float(alphas[e]), float(epsilons[e])))
        return out

    def _aec_episode(self, env, cfg, alpha: float, epsilon: float) -> dict:
        """One episode of :meth:`train_aec`."""
        env.reset(seed=self.env_seed if self.episodes_done == 0 else None)
        args = (env, self.net, self.params, self.memory, self.traces, alpha, epsilon, self.agent_rng)
        opening = (cfg.random_start_prob, cfg.random_start_plies, cfg.carry_traces)
        if cfg.algo == "td":
            result = td_farl.play_episode_aec(*args, *opening, pot=self.potential, p=self.game.p,
                                              kernels=self.kernels, hooks=self.chance_hooks)
        else:
            result = sarsa_farl.play_episode_aec(*args, cfg.algo == "sarsa", cfg.sarsa_reselect, *opening)
        self.episodes_done += 1
        return result

    # ------------------------------------------------------------- playing
    def afterstate_value(self, state: np.ndarray, player: int) -> float:
        """V_player of an afterstate given as a kernel state (with shaping: the tables' output plus w·Φ_player; see
        :mod:`~farl_agents.learners.td_farl`)."""
        idx = np.empty(self.net.sym_cells.shape[:2], dtype=np.int64)
        board = self._board[: self.game.n_cells]
        self.game.board(self.game.p, state, board)
        board_indices(self.net, board, idx)
        own = td_farl.table_of(self.params, self.game.n_players, player, player)
        v = float(value(self.net, own, 0, idx, self.params.tanh_output))
        if self.params.shaping != 0.0:  # shaping: the tables hold V - w·Φ
            v += self.params.shaping * potential(self.potential, self.game.p, state, self.memory.potential_out, player)
        return v

    def act(self, game: GameSpec, state: np.ndarray, rng: np.ndarray) -> int:
        """Greedy move in ``state`` (the evaluation-harness player protocol); ties broken with ``rng``."""
        g = self.game
        mem = self.memory
        if self.config.algo != "td":
            n = sarsa_farl._load_state(self.kernels, g.p, state, self.net, mem)
            if n == 0:
                raise ValueError("no legal move: the game is over")
            a, _ = sarsa_farl.select(self.net, self.params, mem, int(state[TO_MOVE]), n, 0.0, rng)
            return int(a)
        n = td_farl.fill_candidates(self.kernels, self.potential, g.p, state, self.net, self.params, mem)
        if n == 0:
            raise ValueError("no legal move: the game is over")
        k, _ = td_farl.choose_move(self.net, self.params, mem, int(state[TO_MOVE]), n, 0.0, rng)
        return int(mem.cand_action[k])

    # ----------------------------------------------------------- files
    def save(self, path, weight_format: str | None = None) -> Path:
        """Write the agent to ``path`` (``.npz``) atomically; the layout is in :mod:`farl_agents.learners.agent_io`.

        ``weight_format``: None stores the weight table dense, or sparse when few entries are set; ``levels``,
        ``float16`` or ``float32`` store a bit per entry and the non-zero weights in that format (exact: the
        weights must already be rounded to it, as shipped agents' are; see
        :func:`~farl_agents.learners.agent_io.put_masked_table`).
        """
        g, cfg, net = self.game, self.config, self.net
        meta = {"game": g.name, "game_params": g.params, "n_cell_values": g.n_cell_values,
                "config": cfg.to_dict(), "episodes_done": self.episodes_done}
        arrays = {"tuples": self.tuples, "agent_rng": self.agent_rng, "env_rng": self.env_rng}
        tables = [("weights", net.weights, 0.0)]
        if net.tcl_n.size:
            tables += [("tcl_n", net.tcl_n, cfg.tcl_init), ("tcl_a", net.tcl_a, cfg.tcl_init)]
        for name, table, base in tables:
            if name == "weights" and weight_format is not None:
                agent_io.put_masked_table(arrays, name, network.as_dense(net, table), base, weight_format)
            elif network.is_paged(net):  # the entries of the pages handed out; no whole table is built
                keys, slots = network.written(net)
                rows = np.arange(table.shape[0] * table.shape[1], dtype=np.int64)[:, None]
                positions = (rows * network.lut_size(net) + keys).ravel()
                agent_io.put_entries(arrays, name, positions, table[:, :, slots].ravel(), base)
            else:
                agent_io.put_table(arrays, name, table, base)
        if cfg.carry_traces:
            for field in self.traces._fields:
                arrays["traces_" + field] = getattr(self.traces, field)
        return agent_io.write_agent_file(path, meta, arrays)

    @classmethod
    def load(cls, path, game: str | None = None, layout: str | None = None) -> "NTupleAgent":
        """Read an agent written by :meth:`save`; ``game`` (optional) must match the file's game; ``layout`` as in
        the constructor (any layout loads any file; None: the file's ``table_layout`` setting).

        Raises :class:`~farl_agents.learners.agent_io.AgentFileError` (a
        ``ValueError``) for anything that is not a valid farl agent file,
        ``FileNotFoundError`` if there is no file.
        """
        meta, arrays = agent_io.read_agent_file(path, game)
        tuples = arrays.get("tuples")
        if tuples is None or tuples.ndim != 2 or tuples.dtype.kind not in "iu":
            found = "missing" if tuples is None else f"{tuples.dtype} array of shape {tuples.shape}"
            raise AgentFileError(f"{path}: field 'tuples' must be a 2-D integer array, found {found}")
        episodes_done = meta.get("episodes_done", 0)
        if isinstance(episodes_done, bool) or not isinstance(episodes_done, int) or episodes_done < 0:
            raise AgentFileError(f"{path}: field 'episodes_done' must be a whole number >= 0, got {episodes_done!r}")
        try:
            config = LearnerConfig.from_dict(meta["config"])
            agent = cls(meta["game"], config, tuples=arrays["tuples"], layout=layout, **meta["game_params"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise AgentFileError(f"{path}: inconsistent agent description ({exc})") from None
        stored_p = meta.get("n_cell_values")
        if stored_p is not None and stored_p != agent.game.n_cell_values:
            raise AgentFileError(f"{path} was trained on a {stored_p}-valued {meta['game']} n-tuple board; this farl "
                                 f"encodes that game with {agent.game.n_cell_values} values: train the agent again")
        net = agent.net
        try:
            agent._load_table(arrays, "weights", net.weights, 0.0)
        except AgentFileError as exc:
            if stored_p is None:  # written before the files recorded P: the encoding may have changed since
                raise AgentFileError(f"{path}: {exc} (the file may come from a farl whose {meta['game']} n-tuple "
                                     f"board had other cell values: train the agent again)") from None
            raise AgentFileError(f"{path}: {exc}") from None
        try:
            if net.tcl_n.size:
                agent._load_table(arrays, "tcl_n", net.tcl_n, config.tcl_init)
                agent._load_table(arrays, "tcl_a", net.tcl_a, config.tcl_init)
        except AgentFileError as exc:
            raise AgentFileError(f"{path}: {exc}") from None
        for name in ("agent_rng", "env_rng"):
            rng = arrays.get(name)
            if rng is None or rng.shape != (1,) or rng.dtype != np.uint64:
                raise AgentFileError(f"{path}: bad {name}")
            getattr(agent, name)[:] = rng
        if config.carry_traces:
            for field in agent.traces._fields:
                stored = arrays.get("traces_" + field)
                target = getattr(agent.traces, field)
                if stored is None or stored.shape != target.shape:
                    raise AgentFileError(f"{path}: bad traces_{field}")
                target[...] = stored
        agent.episodes_done = episodes_done
        return agent

    def _load_table(self, arrays: dict, name: str, table: np.ndarray, base: float) -> None:
        """Fill this fresh agent's ``table`` (all entries at ``base``) from the file's field ``name``."""
        net = self.net
        shape = table.shape[:2] + (network.lut_size(net),)
        positions, values = agent_io.get_entries(arrays, name, shape)
        if positions is None:
            if not network.is_paged(net):
                table[...] = values
                return
            positions = np.flatnonzero(values != np.float32(base))
            values = values.ravel()[positions]
        network.store(net, table, positions, values)

    @classmethod
    def pretrained(cls, game: str) -> "NTupleAgent":
        """The agent shipped with farl for ``game`` (see :mod:`farl_agents.pretrained`; its card says how it
        was trained and how strong it is). Raises ``ValueError`` naming the games that have one."""
        from farl_agents.zoo import agent_path, game_key

        return cls.load(agent_path(game), game=game_key(game))

    @property
    def name(self) -> str:
        return f"{self.config.algo}{'-farl' if self.config.farl else ''}"
