"""The AlphaZero family (farl_agents.alphazero): search, symmetries, files as data, a run resumed, learning.

The common train / Ctrl-C / resume / eval / play path of every family runs in test_families.py (its
FAMILY_RUNS has an alphazero entry). Skipped without torch (the ``baselines`` extra), but for the import test.
"""
import json
import pickle
import subprocess
import sys

import numpy as np
import pytest

import farl_envs
from farl_agents.alphazero.search import Trees, root_visits, run_search, search_kernels
from farl_agents.alphazero.symmetry import Augmenter, observation_symmetries
from farl_envs.core.spec import HEADER


def test_the_family_and_the_cli_import_no_torch():
    code = ("import sys; sys.modules['torch'] = None\n"
            "from farl_agents import families, cli\n"
            "fam = families.of_algo('alphazero'); hooks = fam.hooks()\n"
            "import farl_agents.alphazero.search, farl_agents.alphazero.symmetry\n"
            "cli.build_parser(['train', 'tictactoe', '--algo', 'alphazero'])\n"
            "assert cli.main(['train', 'tictactoe', '--algo', 'alphazero', '--out', '/nonexistent/x']) == 2\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "baselines' extra" in r.stderr


class AllSymmetries:
    """A stand-in generator: row i gets symmetry i (every symmetry once)."""

    def integers(self, low, high, size):
        return np.arange(size) % high


def _apply_all(game, state):
    """The augmenter's output for ``state`` under every symmetry: (obs, masks) with one row per symmetry."""
    perms, amaps = observation_symmetries(game)
    n = len(perms)
    obs = np.zeros((n,) + tuple(game.obs_shape), dtype=np.int8)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.observe(game.p, state, int(state[0]), obs[0])
    game.legal_actions(game.p, state, mask)
    obs[:] = obs[0]
    pi = np.tile(mask / mask.sum(), (n, 1)).astype(np.float32)
    masks = np.tile(mask.astype(bool), (n, 1))
    new_obs, new_pi, new_masks = Augmenter(game, (perms, amaps))(obs, pi, masks, AllSymmetries())
    return perms, new_obs, new_pi, new_masks


def test_tictactoe_symmetries_map_observation_and_policy_as_the_rotated_board_does():
    game = farl_envs.game_spec("tictactoe")
    s = game.initial_state(game.p, np.zeros(1, np.uint64))
    s[HEADER:] = [1, 0, 2, 0, 1, 0, 0, 0, 0]  # X: 0, 4; O: 2; X... O to move
    s[0], s[2] = 1, 3
    perms, new_obs, new_pi, new_masks = _apply_all(game, s)
    assert len(perms) == 8
    for k, perm in enumerate(perms):
        t = s.copy()
        t[HEADER:] = s[HEADER:][perm]
        obs = np.zeros(game.obs_shape, dtype=np.int8)
        mask = np.zeros(game.n_actions, dtype=np.int8)
        game.observe(game.p, t, 1, obs)
        game.legal_actions(game.p, t, mask)
        np.testing.assert_array_equal(new_obs[k], obs)
        np.testing.assert_array_equal(new_masks[k], mask.astype(bool))
        assert np.all((new_pi[k] > 0) == (mask != 0))


def test_connect_four_mirror_maps_observation_and_policy():
    game = farl_envs.game_spec("connect_four")
    rows, cols = game.grid_shape
    s = game.initial_state(game.p, np.zeros(1, np.uint64))
    rew = np.zeros(2)
    for a in (0, 0, 1, 5, 6, 6, 6):
        game.afterstate(game.p, s, a, s, rew)
    perms, new_obs, new_pi, new_masks = _apply_all(game, s)
    assert len(perms) == 2
    t = s.copy()
    t[HEADER:HEADER + cols] = s[HEADER:HEADER + cols][::-1]
    t[HEADER + cols:] = s[HEADER + cols:][perms[1]]
    assert game.validate(game.p, t) == ""
    obs = np.zeros(game.obs_shape, dtype=np.int8)
    game.observe(game.p, t, int(t[0]), obs)
    np.testing.assert_array_equal(new_obs[1], obs)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, t, mask)
    np.testing.assert_array_equal(new_masks[1], mask.astype(bool))


@pytest.mark.parametrize("name", ["nim", "sim", "chinese_checkers"])
def test_no_augmentation_where_the_observation_does_not_follow_the_board(name):
    assert observation_symmetries(farl_envs.game_spec(name)) is None


def _uniform(game):
    def evaluate(obs, masks):
        return np.zeros((len(obs), game.n_actions), np.float32), np.zeros((len(obs), game.n_players), np.float32)
    return evaluate


def _search(game, states, sims, evaluate=None):
    states = np.asarray(states, dtype=np.int32)
    b = len(states)
    trees = Trees(game, b, sims + 1)
    active = np.ones(b, dtype=np.bool_)
    calls = run_search(trees, game, search_kernels(game), states, active, sims, evaluate or _uniform(game), 1.25,
                       None, 0.0, np.arange(1, b + 1, dtype=np.uint64).reshape(b, 1))
    visits = np.zeros((b, game.n_actions))
    root_visits(trees.children, trees.visits, active, visits)
    return visits, calls, trees


def test_batched_search_finds_wins_and_blocks_for_either_player_with_one_call_per_step():
    game = farl_envs.game_spec("tictactoe")
    win = game.initial_state(game.p, np.zeros(1, np.uint64))
    win[HEADER:] = [1, 1, 0, 2, 2, 0, 0, 0, 0]  # X to move wins at 2
    win[0], win[2] = 0, 4
    block = win.copy()
    block[HEADER:] = [1, 1, 0, 2, 0, 0, 0, 0, 0]  # O to move must block at 2
    block[0], block[2] = 1, 3
    o_win = win.copy()
    o_win[HEADER:] = [1, 1, 0, 2, 2, 0, 1, 0, 0]  # O to move wins at 5 (X's threat at 2 comes too late)
    o_win[0], o_win[2] = 1, 5
    sizes = []

    def evaluate(obs, masks):
        sizes.append(len(obs))
        return _uniform(game)(obs, masks)

    visits, calls, _ = _search(game, [win, block, o_win], 300, evaluate)
    # at most one network call per simulation step, for the leaves of all three trees (none once every
    # descent ends at a finished game: these small trees are solved before the 300th step)
    assert calls == len(sizes) <= 300 and sizes[0] == 3 and max(sizes) == 3
    assert [int(np.argmax(v)) for v in visits] == [2, 2, 5]


def test_value_vectors_are_rotated_from_the_mover_to_seats():
    """Three players: the net's value v[k] belongs to seat (mover + k) % 3. Seat 0 expands the root, then
    steps to a child where seat 1 moves; a value that only the seat after that mover (seat 2) likes is backed
    up into the child's sums for seat 2 (Nim3P's returns in [0, 1]: mid 0.5, half 0.5)."""
    game = farl_envs.game_spec("nim3p")
    s = game.initial_state(game.p, np.zeros(1, np.uint64))

    def evaluate(obs, masks):
        v = np.zeros((len(obs), 3), np.float32)
        v[:, 1] = 1.0
        return np.zeros((len(obs), game.n_actions), np.float32), v

    visits, _, trees = _search(game, [s], 2, evaluate)
    child = trees.children[0, 0, int(np.argmax(visits[0]))]
    assert visits[0].sum() == 1 and trees.expanded[0, child] == 1
    np.testing.assert_allclose(trees.wsum[0, child], [0.5, 0.5, 1.0])


@pytest.fixture(scope="module")
def torch():
    t = pytest.importorskip("torch")
    t.set_num_threads(1)
    return t


@pytest.fixture(scope="module")
def ttt_run(torch, tmp_path_factory):
    """A run of 4 training seconds, stopped after 2 and resumed."""
    from farl_agents import cli
    from farl_agents.runs import Run

    out = tmp_path_factory.mktemp("az") / "ttt"
    argv = ["train", "tictactoe", "--algo", "alphazero", "--minutes", str(4 / 60), "--games", "32",
            "--simulations", "8", "--play-simulations", "4", "--eval-every", "2", "--eval-vs", "random",
            "--eval-games", "2", "--quiet", "--out", str(out)]
    assert cli.main([*argv, "--stop-after", "2"]) == 0
    stopped = Run.open(out).trainer.agent
    assert 2 <= stopped.elapsed < 4 and stopped.games_played > 0 and stopped.updates > 0
    before = (stopped.games_played, stopped.updates, stopped.buf_size, stopped.rng.bit_generator.state)
    assert cli.main(["train", "--resume", str(out), "--quiet"]) == 0
    return out, before


def test_a_run_stops_and_resumes_from_its_checkpoint(ttt_run):
    from farl_agents.runs import Run, read_curve

    out, (games, updates, buf_size, rng_state) = ttt_run
    run = Run.open(out)
    t = run.trainer.agent
    assert run.finished and t.games_played > games and t.updates > updates and t.buf_size >= buf_size
    rows = read_curve(out / "curve.csv")
    assert [r["train_seconds"] > 0 for r in rows] == [False] + [True] * (len(rows) - 1)
    assert all(0 <= r["score_random"] <= 1 for r in rows)
    state = json.loads((out / "checkpoint.json").read_text())
    assert len(state["files"]) == 2 and state["finished"]


def test_a_resumed_learner_has_the_saved_optimizer_buffer_and_generators(ttt_run):
    from farl_agents.runs import Run

    out, _ = ttt_run
    a = Run.open(out).trainer.agent
    b = Run.open(out).trainer.agent
    assert a.games_played == b.games_played and a.buf_size == b.buf_size > 0
    np.testing.assert_array_equal(a.buf_obs[:a.buf_size], b.buf_obs[:b.buf_size])
    assert a.rng.bit_generator.state == b.rng.bit_generator.state
    for p, q in zip(a.net.parameters(), b.net.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
        np.testing.assert_array_equal(a.optimizer.state[p]["exp_avg_sq"].numpy(),
                                      b.optimizer.state[q]["exp_avg_sq"].numpy())


def test_eval_play_and_a_pickled_player_through_the_agent_file(ttt_run, capsys):
    import io

    from farl_agents import cli
    from farl_agents.alphazero.agent import AlphaZeroAgent
    from farl_agents.cli import play
    from farl_agents.loading import load_player

    out, _ = ttt_run
    player, game = load_player(str(out))
    assert isinstance(player, AlphaZeroAgent) and player.simulations == 4 and game.name == "tictactoe"
    copy = pickle.loads(pickle.dumps(player))  # --jobs ships players to worker processes
    s = game.initial_state(game.p, np.zeros(1, np.uint64))
    assert copy.act(game, s, np.ones(1, np.uint64)) == player.act(game, s, np.ones(1, np.uint64))
    scores = player.move_scores(game, s, np.ones(1, np.uint64))
    assert abs(np.nansum(scores) - 1) < 1e-9
    assert cli.main(["eval", str(out), "--vs", "random", "--games", "2", "--jobs", "2"]) == 0
    assert "win rate" in capsys.readouterr().out
    args = cli.build_parser(["play"]).parse_args(["play", str(out), "--seat", "0"])
    opp, game = play.main_player(args.game, None, None)
    transcript = io.StringIO()
    assert play.play_session(game, opp, 0, io.StringIO("quit\n"), transcript) == 0


class Payload:
    """Unpickling this writes ``marker``: the proof that a file's pickle ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').write('ran')",))


def _rewrite(src, dst, **changes):
    """A copy of the agent file ``src`` at ``dst`` with members replaced (raw .npy bytes or arrays)."""
    import io
    import zipfile

    with zipfile.ZipFile(src) as z:
        members = {n: z.read(n) for n in z.namelist()}
    for name, value in changes.items():
        if isinstance(value, np.ndarray):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, value, allow_pickle=value.dtype.hasobject)
            value = buf.getvalue()
        members[name.replace("__", "/") + ".npy"] = value
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)


def test_a_crafted_agent_file_cannot_run_code(ttt_run, tmp_path, capsys):
    from farl_agents import cli
    from farl_agents.alphazero.agent import read_agent_file
    from farl_agents.safe_files import AgentFileError

    src = ttt_run[0] / "agent.npz"
    marker = tmp_path / "ran"
    pickled = np.empty(1, dtype=object)
    pickled[0] = Payload(marker)
    meta = json.loads(str(np.load(src)["meta"]))
    huge = dict(meta, network=dict(meta["network"], filters=10**7))
    cases = {
        "pickle.npz": {"net__stem.weight": pickled},
        "meta_pickle.npz": {"meta": pickled},
        "huge.npz": {"meta": np.array(json.dumps(huge))},
        "shape.npz": {"net__stem.weight": np.zeros((2, 2), np.float32)},
        "nan.npz": {"net__stem.bias": np.full(32, np.nan, np.float32)},
        "foreign.npz": {"meta": np.array(json.dumps(dict(meta, format="farl-agent")))},
        "extra.npz": {"evil": np.zeros(3)},
    }
    for name, changes in cases.items():
        path = tmp_path / name
        _rewrite(src, path, **changes)
        with pytest.raises(AgentFileError):
            read_agent_file(path)
        assert cli.main(["eval", str(path), "--vs", "random", "--games", "1"]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1, (name, err)
    assert not marker.exists()


@pytest.mark.slow  # ~11 s of self-play learning; the default run checks AlphaZero's steps and resume
def test_self_play_teaches_the_searching_agent_to_hold_the_perfect_player(torch):
    """Learning, far from noise: with 16 simulations per move from TicTacToe's 10 Table 1 starts against
    Max-N10 (perfect), the untrained net scores 0.175 (s.e. 0.055); after 250 self-play steps of 64 games
    (about 1,800 games, 7 s here) 0.45 (s.e. 0.03; seeds 1 and 3: 0.375, 0.30, so the threshold, 0.35, keeps
    three s.e. below this seed's score rather than claiming every seed passes). Single-threaded torch and
    seeded generators make the run repeatable."""
    from farl_agents.alphazero.agent import AlphaZeroAgent
    from farl_agents.alphazero.config import AlphaZeroConfig
    from farl_agents.alphazero.selfplay import SelfPlay
    from farl_agents.evaluate import evaluate
    from farl_agents.runs import start_states

    game = farl_envs.game_spec("tictactoe")
    sp = SelfPlay(AlphaZeroConfig(games=64, simulations=16, seed=2), game)
    settings = {"kind": "resnet", "filters": 32, "blocks": 2, "hidden": 64}

    def score():
        player = AlphaZeroAgent(game, sp.net, settings, simulations=16)
        return evaluate(game, player, ["maxn10"], start_states=start_states(game, "start+1ply"), seed=3,
                        keep_games=False).matchups[0].score

    assert score() <= 0.25
    for _ in range(250):
        sp.step()
    assert score() >= 0.35


@pytest.mark.parametrize("cpu_clock", [False, True])
def test_the_budget_is_counted_on_the_clock_the_settings_name(torch, monkeypatch, cpu_clock):
    """``cpu_clock`` counts training time in CPU seconds of the process (the AlphaZero contest's equal-CPU
    budgets on a shared machine), else wall-clock: a fake clock of the named kind advances 5 s per reading, so
    a run of 4 s makes one self-play step (the reading after it is 5 s on) and adds the 10 s from the first
    reading to the last; the other clock is never read."""
    import time as real_time

    from farl_agents.alphazero import selfplay
    from farl_agents.alphazero.config import AlphaZeroConfig

    readings = []

    def fake():
        readings.append(1)
        return 5.0 * len(readings)

    def untouched():
        raise AssertionError("the other clock was read")

    clock_name, other = ("process_time", "perf_counter") if cpu_clock else ("perf_counter", "process_time")

    class Clocks:
        pass

    clocks = Clocks()
    setattr(clocks, clock_name, fake)
    setattr(clocks, other, untouched)
    sp = selfplay.SelfPlay(AlphaZeroConfig(games=4, simulations=2, cpu_clock=cpu_clock),
                           farl_envs.game_spec("tictactoe"))
    steps = []
    monkeypatch.setattr(sp, "step", lambda: steps.append(1) or (0, 0.0, 0.0))
    monkeypatch.setattr(selfplay, "time", clocks)
    sp.run(4.0)
    monkeypatch.setattr(selfplay, "time", real_time)
    assert len(steps) == 1 and sp.elapsed == 10.0
