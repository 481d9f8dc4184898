"""Search wrappers around a trained agent (``pretrained+mcts100``, ``+maxn<D>``, ``+paranoid<D>``, ``+expectimax<D>``).

What is checked against reasoning independent of the searches: a depth-1 Max-N wrapper values each move
exactly as the agent itself does (reward + the agent's afterstate value); one PUCT iteration plays the
agent's own greedy move; on a TicTacToe position where an untrained agent blunders (it does not see the
opponent's threat), every wrapper blocks; the parser is strict; the names work from every front end.
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import farl_envs
from farl_agents import cli, pretrained
from farl_agents.evaluate import evaluate
from farl_agents.learners.agent import NTupleAgent
from farl_agents.learners.config import LearnerConfig
from farl_agents.loading import load_player
from farl_agents.opponents import make_opponent
from farl_agents.opponents.maxn import MaxN
from farl_agents.opponents.paranoid import Paranoid
from farl_agents.opponents.puct import PUCT
from farl_agents.opponents.wrappers import split_wrapped
from farl_agents.players import RandomPlayer
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL, TO_MOVE

TTT = farl_envs.game_spec("tictactoe")


def position(game, actions, seed=0):
    """The kernel state after ``actions`` from the start (no chance in these games)."""
    s = game.initial_state(game.p, make_rng(seed))
    rew = np.zeros(game.n_players)
    for a in actions:
        game.afterstate(game.p, s, a, s, rew)
    return s


def agent_choice_values(agent, game, s):
    """r + V_mover(afterstate) of every legal move in the game's reward units, computed with the agent's own
    public method (which answers in the network's units: reward_scale times the game's)."""
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    out, after, rew = {}, np.zeros_like(s), np.zeros(game.n_players)
    mover = int(s[TO_MOVE])
    for a in np.flatnonzero(mask):
        game.afterstate(game.p, s, int(a), after, rew)
        v = 0.0 if after[TERMINAL] else agent.afterstate_value(after, mover) / agent.config.reward_scale
        out[int(a)] = rew[mover] + v
    return out


# ------------------------------------------------------------------ parser
@pytest.mark.parametrize("text, parts", [
    ("pretrained+mcts100", ("pretrained", "mcts", 100)),
    (" PRETRAINED+MCTS7 ", ("PRETRAINED", "mcts", 7)),
    ("agent:runs/a+b/agent.npz+maxn3", ("agent:runs/a+b/agent.npz", "maxn", 3)),
    ("runs/hex+paranoid2", ("runs/hex", "paranoid", 2)),
    ("pretrained+expectimax1", ("pretrained", "expectimax", 1)),
])
def test_wrapped_names_parse(text, parts):
    assert tuple(split_wrapped(text)) == parts


@pytest.mark.parametrize("text, needle", [
    ("pretrained+mcts", "needs its iterations"), ("pretrained+mcts0", "1..10,000,000"),
    ("pretrained+mcts 5", "not a wrapped player"), ("pretrained+mcts-5", "not a wrapped player"),
    ("pretrained+uct5", "unknown search"), ("+mcts5", "name the wrapped player"),
    ("pretrained+maxn101", "1..100"), ("pretrained+maxn00000000000001", "1..100"),
])
def test_bad_wrapped_names_are_refused_with_the_forms(text, needle):
    with pytest.raises(ValueError, match=needle):
        split_wrapped(text)


def test_plain_names_are_not_wrapped_names():
    assert split_wrapped("mcts100") is None and split_wrapped("runs/c4") is None


def test_only_agents_with_afterstate_values_can_be_wrapped():
    for inner in ("random", "mcts10", "maxn2"):
        with pytest.raises(ValueError, match="afterstate value"):
            load_player(f"{inner}+mcts10", TTT)
    with pytest.raises(ValueError, match="has none: use"):
        make_opponent("pretrained+expectimax2", "connect_four")


@pytest.mark.slow  # compiles Max-N with Sim's potential for this test alone (~15 CPU s)
def test_an_agent_trained_with_progress_shaping_is_searched_with_the_values_it_plays_by():
    # its value is tables + shaping x the game's heuristic (the potential it was trained against): a depth-1
    # Max-N around it must give every player's reward + that value, not the tables alone
    game = farl_envs.game_spec("sim", players=3)
    agent = NTupleAgent(game, LearnerConfig(shaping=3.0, use_symmetry=False, ntuple_count=4, ntuple_length=3,
                                            ntuples="random-walk"))
    agent.net.weights[:] = np.random.default_rng(5).normal(0.0, 0.3, agent.net.weights.shape)
    s = position(game, [0, 5, 9, 1, 6, 14])
    vals = MaxN(1, agent=agent).action_values(game, s)
    mask = np.zeros(game.n_actions, dtype=np.int8)
    game.legal_actions(game.p, s, mask)
    after, rew, checked, phi, largest = np.zeros_like(s), np.zeros(3), 0, np.zeros(3), 0.0
    for a in np.flatnonzero(mask):
        game.afterstate(game.p, s, int(a), after, rew)
        game.heuristic(game.p, after, phi)
        largest = max(largest, np.abs(phi).max())
        for i in range(3):  # a finished game keeps w x its potential (the agent's greedy score of such a move)
            v = 3.0 * phi[i] if after[TERMINAL] else agent.afterstate_value(after, i)
            assert vals[a, i] == pytest.approx(rew[i] + v, abs=1e-9)
            checked += 1
    assert checked >= 3 * 10
    assert largest > 0.01  # the potential is in play: the tables alone would give other values
    # over whole games (moves that end them included) the depth-1 search plays the agent's own moves
    wrapped, rnd, rng = MaxN(1, agent=agent), RandomPlayer(), make_rng(8)
    agent_moves = 0
    for _ in range(3):
        s = game.initial_state(game.p, rng)
        while not s[TERMINAL]:
            if s[TO_MOVE] == 0:
                a = agent.act(game, s.copy(), make_rng(1))
                assert wrapped.act(game, s.copy(), make_rng(1)) == a
                agent_moves += 1
            else:
                a = rnd.act(game, s.copy(), rng)
            game.afterstate(game.p, s, int(a), s, rew)
    assert agent_moves >= 6


# ----------------------------------------------------------- hand-built positions
def test_depth_one_maxn_wrapper_values_moves_as_the_agent_does():
    # TicTacToe: the Max-N loop with an agent's leaf is compiled for this game in this file anyway (the blocking
    # test below); two moves are taken, so the illegal moves' NaN rows are checked too
    agent = pretrained.load("tictactoe")
    game = agent.game
    s = position(game, [4, 0])
    expected = agent_choice_values(agent, game, s)
    vals = MaxN(1, agent=agent).action_values(game, s)
    mover = int(s[TO_MOVE])
    for a, v in expected.items():
        assert vals[a, mover] == pytest.approx(v, abs=1e-9)
        assert vals[a, 1 - mover] == pytest.approx(-v, abs=1e-9)  # two players: zero-sum
    assert np.isnan(vals[[a for a in range(game.n_actions) if a not in expected]]).all()


def test_one_puct_iteration_plays_the_agents_greedy_move():
    # Hex 6x6: the PUCT loop around this agent is compiled in this file anyway (pretrained+mcts30 below)
    agent = pretrained.load("hex")
    game = agent.game
    rng = make_rng(3)
    s = position(game, [19, 18, 17])
    values = agent_choice_values(agent, game, s)
    best = max(values.values())
    assert PUCT(agent, 1).act(game, s, rng) in [a for a, v in values.items() if v == best]


def test_every_wrapper_blocks_the_threat_an_untrained_agent_misses():
    # X: 0 and 1, O: 4; O to move must take 2, and has no win of its own. The untrained agent values every
    # move 0 and picks at random; a search one reply deep sees X win.
    s = position(TTT, [0, 4, 1])
    blank = NTupleAgent("tictactoe")
    bare = [blank.act(TTT, s, make_rng(seed)) for seed in range(40)]
    assert sum(a != 2 for a in bare) >= 20  # the bare agent blunders most of the time
    for wrapped in (MaxN(2, agent=blank), Paranoid(2, agent=blank), PUCT(blank, 200)):
        assert {wrapped.act(TTT, s, make_rng(seed)) for seed in range(10)} == {2}, wrapped


def test_puct_values_follow_the_game_not_the_agent_near_the_end():
    # a won position for the mover: X (to move) completes 0-1-2; the root's visit-weighted value is a win
    s = position(TTT, [0, 3, 1, 4])
    visits, q = PUCT(NTupleAgent("tictactoe"), 300).search(TTT, s, make_rng(1))
    assert int(np.argmax(visits)) == 2 and q[2, 0] == pytest.approx(1.0)


def test_expectimax_around_the_2048_agent_averages_the_tiles():
    agent = pretrained.load("game2048")
    game = agent.game
    s = game.initial_state(game.p, make_rng(5))
    d1 = make_opponent("pretrained+expectimax1", "game2048").action_values(game, s)
    values = agent_choice_values(agent, game, s)
    for a, v in values.items():
        assert d1[a, 0] == pytest.approx(v, rel=1e-9, abs=1e-6)
    d2 = make_opponent("pretrained+expectimax2", "game2048")
    assert d2.act(game, s, make_rng(1)) in values


# ------------------------------------------------------------------ playing
def test_wrapped_players_play_whole_games_and_pickle():
    hex_ = make_opponent("pretrained+mcts30", "hex")
    again = pickle.loads(pickle.dumps(hex_))
    r = evaluate(hex_.agent.game, [again], "random", n_games=2, seed=1)
    assert r.matchups[0].n_games == 4 and r.matchups[0].win_rate > 0.5
    sim = load_player("pretrained+maxn2", pretrained.load("sim").game)[0]
    r = evaluate(sim.agent.game, [sim], "random", n_games=1, seed=2)
    assert r.matchups[0].n_games == 3


def test_agent_files_and_run_folders_can_be_wrapped(tmp_path):
    agent = NTupleAgent("tictactoe")
    agent.train(200)
    path = agent.save(tmp_path / "ttt.npz")
    for text in (f"agent:{path}+mcts20", f"{path}+maxn3"):
        player, game = load_player(text, None)
        assert player.name == text and game.id == TTT.id
        assert player.act(game, position(game, [0, 4, 1]), make_rng(0)) == 2


def test_farl_eval_takes_wrapped_players(capsys):
    assert cli.main(["eval", "pretrained", "--game", "tictactoe", "--vs", "pretrained+mcts20", "--games", "2"]) == 0
    assert "pretrained+mcts20" in capsys.readouterr().out
    assert cli.main(["eval", "pretrained", "--game", "tictactoe", "--vs", "pretrained+mcts0", "--games", "2"]) == 2
    assert "1..10,000,000" in capsys.readouterr().err


def test_farl_serve_seats_wrap_within_the_servers_caps(tmp_path):
    pytest.importorskip("starlette")
    from farl_agents.serve.app import MAX_MCTS_ITERATIONS, App
    from farl_agents.serve.session import RequestError

    app = App(tmp_path)
    seat = app.seat("pretrained+mcts40", TTT)
    assert isinstance(seat.player, PUCT) and seat.player.iterations == 40
    with pytest.raises(RequestError, match=f"1..{MAX_MCTS_ITERATIONS:,}"):
        app.seat(f"pretrained+mcts{MAX_MCTS_ITERATIONS + 1}", TTT)
    with pytest.raises(RequestError, match="afterstate value"):
        app.seat("random+maxn2", TTT)


def test_farl_train_curves_take_wrapped_players(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["train", "tictactoe", "--episodes", "100", "--eval-every", "100", "--eval-games", "2", "--out", str(out),
            "--quiet", "--eval-vs"]
    assert cli.main(argv + ["pretrained+mcts0"]) == 2 and "1..10,000,000" in capsys.readouterr().err
    assert cli.main(argv + ["pretrained+mcts10"]) == 0
    header = (out / "curve.csv").read_text().splitlines()[0]
    assert "score_pretrained+mcts10" in header


def test_a_wrapped_pretrained_agent_brings_its_game_parameters(capsys):
    # the shipped Sim agent plays 3 players on K12, not the game's default of 2 players: as for plain
    # `pretrained` (Sim: its Max-N loop with the agent's leaf is compiled in this file anyway, pretrained+maxn2 above)
    assert cli.main(["eval", "pretrained+maxn1", "--game", "sim", "--vs", "random", "--games", "1"]) == 0
    assert "pretrained+maxn1" in capsys.readouterr().out
