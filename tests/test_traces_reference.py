"""farl's horizon ring buffer (``ntuple/traces.py``) against a dense TD(λ) trace vector, for the four trace modes.

The reference keeps, per player, a trace ``e`` over every table entry (Thill, Bagheri, Koch & Konen 2014, Alg. 1,
player-centred as in Konen & Bagheri 2020): an update of player p's state s with error δ and gradient factor g
first sets ``e_p = λ·e_p`` and then, for every entry active in s (once, however many symmetric boards hit it:
index inhibition), ``e_p += g`` (et, res) or ``e_p = g`` (rep, rr); then ``w_p += α/(m·N_S) · δ · e_p``. An update
skipped for a random move changes nothing, except that res and rr clear every player's ``e``. With TCL each
weight reads its factor ``|N|/A`` (TC-id) or ``exp(β(|N|/A − 1))`` (TC-EXP) once per update and then accumulates
``r = δ·e`` (Alg. 2); like farl's ``apply_change``, an entry hit by c symmetric boards accumulates c times (a
second trace ``h`` counts the hits).

Both are driven by the same synthetic sequence (two players, three 2-tuples over four cells with three values,
two symmetries, random states, errors, gradient factors and four random-move steps) and compared after every step.
The horizon is long enough that no entry falls off the ring buffer.

Findings:

* without TCL all four modes agree with the dense reference;
* with TCL, rep and rr agree; et and res do not, by design: ``adapt`` calls ``apply_change`` once per ring entry,
  so a weight in several entries gets several partial changes δ·λ^age·g and re-reads its TCL factor between
  them, after the newer entries' changes were already added to N and A (GBG's ``NTuple2ValueFunc.update`` does the
  same); Alg. 2 reads α_i once and applies it to the whole δ·e_i. :func:`_per_entry` is that per-entry order
  written with dense vectors, and it reproduces farl in every mode. Replacing traces visit a weight once per
  update, so the order cannot matter for rep and rr.
"""
from __future__ import annotations

import numpy as np
import pytest

from farl_agents.ntuple.network import board_indices, build_net
from farl_agents.ntuple.traces import TRACE_MODES, adapt, clear_traces, horizon_entries, make_traces

LAM, ALPHA, BETA, TCL_INIT = 0.64, 7.0, 2.7, 1e-4   # the tcl-rr preset's α, λ and β; farl's default TC init
TUPLES = np.array([[0, 1], [1, 2], [2, 3]])
PERMS = np.array([[0, 1, 2, 3], [3, 2, 1, 0]])       # identity and mirror image
N_PLAYERS, N_VALUES, STEPS = 2, 3, 60
M, N_SYM = TUPLES.shape[0], PERMS.shape[0]
LUT = M * N_VALUES ** TUPLES.shape[1]
RANDOM_MOVES = (9, 10, 23, 41)                       # steps whose update is skipped
SEEDS = (0, 1, 2)
HORIZON_CUT = 1e-30                                  # H = 155 entries > STEPS: nothing is truncated
RTOL, ATOL = 1e-5, 5e-6                              # float32 weights in farl, float64 in the reference


def _net(tcl: bool):
    return build_net(TUPLES, N_VALUES, N_PLAYERS, 1, PERMS, np.zeros((N_SYM, 1), np.int32), True, tcl, TCL_INIT)


def _sequence(seed: int) -> list[tuple[int, np.ndarray, float, float, bool]]:
    """``(player, idx[n_sym, m], δ, g, random move)`` per step; every 7th state is a mirror-symmetric board."""
    rng = np.random.default_rng(seed)
    net = _net(False)
    seq = []
    for t in range(STEPS):
        board = rng.integers(0, N_VALUES, PERMS.shape[1]).astype(np.int32)
        if t % 7 == 3:
            board = board[[0, 1, 1, 0]]
        idx = np.empty((N_SYM, M), np.int64)
        board_indices(net, board, idx)
        seq.append((int(rng.integers(0, N_PLAYERS)), idx, float(rng.normal(0.0, 0.5)), float(rng.uniform(0.2, 1.0)),
                    t in RANDOM_MOVES))
    return seq


def _tcl_factor(n: np.ndarray, a: np.ndarray, tcl: str) -> np.ndarray:
    ratio = np.abs(n) / a
    if tcl == "id":
        return ratio
    return np.where(ratio == 1.0, 1.0, np.exp(BETA * (ratio - 1.0)))


def _hits(idx: np.ndarray) -> np.ndarray:
    """How many (symmetric board, tuple) pairs of one state hit each table entry."""
    return np.bincount(idx.ravel(), minlength=LUT).astype(np.float64)


def _dense(seq, mode: str, tcl: str) -> list[np.ndarray]:
    """The dense reference (module docstring); the weights ``[player, entry]`` after every step."""
    reset, replacing = mode in ("res", "rr"), mode in ("rep", "rr")
    step = ALPHA / (M * N_SYM)
    w, e, h = np.zeros((N_PLAYERS, LUT)), np.zeros((N_PLAYERS, LUT)), np.zeros((N_PLAYERS, LUT))
    n, a = np.full((N_PLAYERS, LUT), TCL_INIT), np.full((N_PLAYERS, LUT), TCL_INIT)
    out = []
    for p, idx, delta, grad, random_move in seq:
        if random_move:
            if reset:
                e[:], h[:] = 0.0, 0.0
        else:
            hits = _hits(idx)
            active = hits > 0
            e[p] *= LAM
            h[p] *= LAM
            if replacing:
                e[p, active], h[p, active] = grad, grad * hits[active]
            else:
                e[p, active] += grad
                h[p, active] += grad * hits[active]
            if tcl == "none":
                w[p] += step * delta * e[p]
            else:
                live = e[p] != 0.0
                w[p, live] += step * delta * e[p, live] * _tcl_factor(n[p, live], a[p, live], tcl)
                n[p] += delta * h[p]
                a[p] += np.abs(delta * h[p])
        out.append(w.copy())
    return out


def _per_entry(seq, mode: str, tcl: str) -> list[np.ndarray]:
    """The same traces split into one change per past update (newest first), each reading the TCL factor anew:
    farl's and GBG's order. Replacing: a weight changes only with the newest update that hit it."""
    reset, replacing = mode in ("res", "rr"), mode in ("rep", "rr")
    step = ALPHA / (M * N_SYM)
    w = np.zeros((N_PLAYERS, LUT))
    n, a = np.full((N_PLAYERS, LUT), TCL_INIT), np.full((N_PLAYERS, LUT), TCL_INIT)
    past = [[] for _ in range(N_PLAYERS)]   # (hits, g) since the last reset, newest last
    out = []
    for p, idx, delta, grad, random_move in seq:
        if random_move:
            if reset:
                past = [[] for _ in range(N_PLAYERS)]
        else:
            past[p].append((_hits(idx), grad))
            seen = np.zeros(LUT, bool)
            for age, (hits, g) in enumerate(reversed(past[p])):
                visit = (hits > 0) & ~seen if replacing else hits > 0
                change = delta * LAM ** age * g
                factor = 1.0 if tcl == "none" else _tcl_factor(n[p, visit], a[p, visit], tcl)
                w[p, visit] += step * change * factor
                if tcl != "none":
                    n[p, visit] += hits[visit] * change
                    a[p, visit] += hits[visit] * abs(change)
                seen |= hits > 0
        out.append(w.copy())
    return out


def _farl(seq, mode: str, tcl: str) -> list[np.ndarray]:
    """farl's ``adapt`` / ``clear_traces``, called as ``td_farl.after_move`` calls them."""
    net = _net(tcl != "none")
    entries = horizon_entries(LAM, HORIZON_CUT)
    traces = make_traces(N_PLAYERS, entries, N_SYM, M)
    code = TRACE_MODES[mode]
    out = []
    for p, idx, delta, grad, random_move in seq:
        if random_move:
            if code in (1, 3):
                clear_traces(traces)
        else:
            adapt(net, traces, p, 0, idx, delta, grad, ALPHA, LAM, code, tcl == "exp", BETA)
        assert traces.length.max() < entries, "an entry fell off the ring buffer: the comparison needs a longer one"
        out.append(net.weights[0].astype(np.float64))
    return out


def _assert_same(expected: list[np.ndarray], got: list[np.ndarray], what: str) -> None:
    for t, (x, y) in enumerate(zip(expected, got, strict=True)):
        if not np.allclose(x, y, rtol=RTOL, atol=ATOL):
            p, k = np.unravel_index(np.argmax(np.abs(x - y)), x.shape)
            pytest.fail(f"{what}: step {t}, player {p}, entry {k}: expected {x[p, k]:.7g}, farl {y[p, k]:.7g}")


def _cases(agreeing: bool):
    """(mode, TCL) pairs where farl agrees with the dense Alg. 2 reference (``agreeing``) or, by design, does not."""
    for tcl in ("none", "exp", "id"):
        for mode in TRACE_MODES:
            if (tcl == "none" or mode in ("rep", "rr")) == agreeing:
                yield pytest.param(mode, tcl, id=f"{mode}-{tcl}")


def test_the_sequence_exercises_every_case():
    """Symmetric duplicates, entries shared between a player's states, resets of non-empty traces, and four
    modes that end with different weights: otherwise the comparison would prove little."""
    seq = _sequence(SEEDS[0])
    assert sum(len(np.unique(idx)) < idx.size for _, idx, *_ in seq) >= 10
    updates_before = [sum(not r for *_, r in seq[s:t]) for s, t in zip((0, *RANDOM_MOVES), RANDOM_MOVES)]
    assert sum(u > 0 for u in updates_before) >= 3   # 9 and 10: a reset of already empty traces too
    final = {mode: _dense(seq, mode, "exp")[-1] for mode in TRACE_MODES}
    modes = list(TRACE_MODES)
    for i, x in enumerate(modes):
        for y in modes[i + 1:]:
            assert np.abs(final[x] - final[y]).max() > 0.05, (x, y)


@pytest.mark.parametrize("mode,tcl", list(_cases(True)))
def test_ring_buffer_matches_the_dense_traces(mode, tcl):
    for seed in SEEDS:
        seq = _sequence(seed)
        _assert_same(_dense(seq, mode, tcl), _farl(seq, mode, tcl), f"seed {seed}")


@pytest.mark.parametrize("mode,tcl", list(_cases(False)))
def test_accumulating_traces_with_tcl_read_the_factor_per_entry(mode, tcl):
    """By design (GBG's order, ``apply_change``): et and res with TCL differ from Alg. 2's one factor per update."""
    seq = _sequence(SEEDS[0])
    dense, got = _dense(seq, mode, tcl)[-1], _farl(seq, mode, tcl)[-1]
    assert np.abs(dense - got).max() > 0.01


@pytest.mark.parametrize("mode,tcl", [*_cases(True), *_cases(False)])
def test_the_per_entry_tcl_order_reproduces_farl(mode, tcl):
    """The diagnosis of the et/res difference: with the factor re-read per entry, every mode agrees."""
    for seed in SEEDS:
        seq = _sequence(seed)
        _assert_same(_per_entry(seq, mode, tcl), _farl(seq, mode, tcl), f"seed {seed}")


@pytest.mark.parametrize("mode,expected", [
    ("et", -0.5 * np.exp(2.7 * (1e-4 / 2.0001 - 1))),   # Alg. 2 would give -0.5
    ("res", -0.5 * np.exp(2.7 * (1e-4 / 2.0001 - 1))),
    ("rep", 0.0),
    ("rr", 0.0),
])
def test_smallest_tcl_case(mode, expected):
    """One weight, TC-EXP, λ = 0.5, step 1, g = 1: the same state adapted with δ = +1, then δ = −1.

    Dense: w = 1, then e = 1.5 (et) or 1 (rep) with factor 1 (N = A after the first update): w = −0.5 or 0.
    farl et/res: the newest entry moves w by −1 with factor 1, then N = 1e-4, A = 2.0001, and the older entry's
    −0.5 gets exp(2.7 · (1e-4/2.0001 − 1)) = 0.0672: w = −0.0336.
    """
    net = build_net(np.array([[0]]), N_VALUES, 1, 1, np.array([[0]]), np.zeros((1, 1), np.int32), True, True,
                    TCL_INIT)
    traces = make_traces(1, horizon_entries(0.5, 0.1), 1, 1)
    idx = np.zeros((1, 1), np.int64)
    for delta in (1.0, -1.0):
        adapt(net, traces, 0, 0, idx, delta, 1.0, 1.0, 0.5, TRACE_MODES[mode], True, BETA)
    assert net.weights[0, 0, 0] == pytest.approx(expected, abs=1e-6)


def test_a_random_move_cuts_every_list_or_only_the_movers():
    from farl_agents.learners import NTupleAgent, paper_config
    from farl_agents.ntuple.traces import cut_traces, make_traces

    traces = make_traces(2, 4, 1, 1)
    traces.length[:] = [3, 2]
    cut_traces(traces, 0, False)
    assert list(traces.length) == [0, 2]
    traces.length[:] = [3, 2]
    cut_traces(traces, 0, True)
    assert list(traces.length) == [0, 0]
    # the setting reaches the compiled loop: with resetting traces the two scopes learn different weights
    cfg = paper_config("tictactoe").replace(lam=0.5, trace_mode="res", epsilon=0.3, epsilon_final=None,
                                            learn_from_random_moves=False)
    every, mover = (NTupleAgent("tictactoe", cfg.replace(reset_all_players=flag)) for flag in (True, False))
    every.train(300)
    mover.train(300)
    assert not np.array_equal(every.net.weights, mover.net.weights)
