"""The eligibility-trace study (Thill et al. 2014): its measures, and a smoke-budget run end to end."""
from __future__ import annotations

import json

import numpy as np
import pytest

from studies.traces import traces
from studies.traces.traces_report import (
    claims,
    design_note,
    in_short,
    last_crossing,
    on_page,
    run_summary,
    smooth,
)


def test_smooth_is_a_centred_mean():
    y = [0, 0, 1, 1, 1, 1]
    s = smooth(y, 3)
    assert s[0] == 0 and s[1] == pytest.approx(1 / 3) and s[2] == pytest.approx(2 / 3) and s[-1] == 1


def test_time_to_learn_is_the_last_crossing():
    x = [0, 10, 20, 30, 40, 50]
    y = [0.0, 0.9, 0.7, 0.85, 0.95, 0.9]  # crosses at 5, falls back, crosses again between 20 and 30
    assert last_crossing(x, y, 0.8) == pytest.approx(20 + 10 * (0.1 / 0.15))
    assert last_crossing(x, [0.9] * 6, 0.8) == 0
    assert last_crossing(x, [0.9, 0.9, 0.9, 0.9, 0.9, 0.7], 0.8) is None


def test_run_summary_minutes_and_asymptotic():
    rows = [{"episode": e, "success": s, "train_seconds": 6.0 * e} for e, s in
            zip(range(0, 110, 10), [0, 0, .2, .5, .9, .9, .9, .9, .9, .9, .9])]
    r = run_summary(rows, 100)
    # the raw curve crosses 0.8 at 37.5; the 5-point mean (0.68 at 40, 0.82 at 50) crosses later
    assert r["time_to_learn"] == pytest.approx(40 + 10 * (0.8 - 0.68) / (0.82 - 0.68))
    assert r["minutes_to_learn"] == pytest.approx(r["time_to_learn"] * 6.0 / 60)
    assert r["asymptotic"] == pytest.approx(0.9)  # the last half: episodes 60..100
    assert r["first_reach"] == 50 and r["relapses"] == 0.0  # smoothed 0.82 at 50; nothing below 50 % after it


def test_relapses_count_raw_falls_after_the_first_reach():
    success = [0, .9, .9, .9, .9, .9, .1, .9, .9, .0, .9]  # smoothed (5 points, fewer at the start): 0.72 at 20
    rows = [{"episode": 10 * i, "success": s, "train_seconds": float(i)} for i, s in enumerate(success)]
    r = run_summary(rows, 100)
    assert r["first_reach"] == 30  # (.9 + .9 + .9 + .9 + .9) / 5 at episode 30
    # after episode 30: 0.9 0.9 0.1 0.9 0.9 0.0 0.9 -> 2 of 7 below one half
    assert r["relapses"] == pytest.approx(2 / 7)
    never = run_summary([{**row, "success": 0.3} for row in rows], 100)
    assert never["first_reach"] is None and never["relapses"] is None and never["time_to_learn"] is None


def test_relapses_are_counted_by_their_opening_where_it_was_recorded():
    success = [0, .9, .9, .9, .9, .9, .1, .9, .9, .0, .9, .2]
    openings = [3, 3, 3, 3, 3, 3, 4, 3, 3, None, 3, 3]  # the fall at 90 was written before openings were
    rows = [{"episode": 10 * i, "success": s, "train_seconds": float(i), "opening": o}
            for i, (s, o) in enumerate(zip(success, openings))]
    # relapses after episode 30: at 60 (column 4), 90 (unknown), 110 (column 3)
    assert run_summary(rows, 110)["relapse_openings"] == [1, 2]


def test_success_files_keep_the_opening_and_read_files_without_it(tmp_path):
    from studies.traces.traces_rows import read_success, write_success

    old = tmp_path / "old.csv"
    old.write_text("episode,success,se,train_seconds,eval_seconds\n10000,0.5,0.03,1.5,2.0\n")
    rows = read_success(old)
    assert rows == [{"episode": 10000, "success": 0.5, "se": 0.03, "train_seconds": 1.5, "eval_seconds": 2.0}]
    rows.append({"episode": 20000, "success": 0.75, "se": 0.03, "train_seconds": 3.0, "eval_seconds": 2.0,
                 "opening": 3})
    write_success(tmp_path / "new.csv", rows)
    again = read_success(tmp_path / "new.csv")
    assert [r["opening"] for r in again] == [None, 3] and again[1]["success"] == 0.75


def test_variants_and_specs():
    assert traces.parse_variants("default") == list(traces.DEFAULT_VARIANTS)
    with pytest.raises(ValueError, match="unknown variant"):
        traces.parse_variants("tcl-xx")
    std = traces.run_spec("tdl-std", 0, "paper").config
    assert std.lam == 0.0 and std.tcl == "none"
    m = traces.run_spec("tcl-m-rr", 1, "paper").config
    assert m.ntuple_count == 150 and m.trace_mode == "rr" and m.episodes == 1_000_000


@pytest.mark.parametrize("variant, lam_per_ply", [("tcl-et", 0.5), ("tcl-res", 0.6), ("tcl-rr", 0.8),
                                                  ("tdl-et", 0.5), ("tcl-m-rr", 0.8)])
def test_table_one_lambda_is_per_ply(variant, lam_per_ply):
    """Table I's λ decays a trace per ply of one chain through both players' positions; a player-centred
    chain has one entry per two plies, so after k entries of its own the weight must be λ^(2k)."""
    cfg = traces.run_spec(variant, 0, "paper").config
    for k in (1, 3):
        assert cfg.lam ** k == pytest.approx(lam_per_ply ** (2 * k))


def test_reset_traces_cut_only_the_random_movers_list():
    """Table I's reset rows empty only the random mover's list (see presets.THILL2014_RESET_MODES); rows without
    a reset keep the default, which their finished runs were made with."""
    for variant in ("tcl-res", "tcl-rr", "tdl-rr", "tcl-m-rr"):
        assert traces.run_spec(variant, 0, "paper").config.reset_all_players is False
    for variant in ("tdl-std", "tcl-std", "tcl-et", "tcl-rep", "tcl-m-et"):
        assert traces.run_spec(variant, 0, "paper").config.reset_all_players is True


@pytest.mark.slow  # ~13 s: the whole study at its smoke budget; the default run checks its run specs
def test_smoke_study_runs_resumes_and_reports(tmp_path):
    code = traces.reproduce(["tcl-rr"], runs=1, budget="smoke", out=tmp_path, jobs=1, progress=False,
                            log=lambda *a: None)
    assert code == 0
    folder = tmp_path / "eligibility_traces_smoke_runs" / "tcl-rr" / "seed0"
    rows = traces.read_success(folder / "success.csv")
    assert [r["episode"] for r in rows] == [0, 100, 200, 300]
    assert all(0 <= r["success"] <= 1 for r in rows)
    assert np.all(np.diff([r["train_seconds"] for r in rows]) > 0)
    result = json.loads((folder / "result.json").read_text())
    assert result["measurements"] == 4
    page = (tmp_path / "eligibility_traces_smoke.md").read_text()
    assert "| TCL[rr] | 1 (0) |" in page and "175,000" in page
    # a second call trains nothing: the finished run is cached
    seen = []
    assert traces.reproduce(["tcl-rr"], runs=1, budget="smoke", out=tmp_path, jobs=1, progress=False,
                            log=seen.append) == 0
    assert "1 already finished, 0 to train" in seen[0]
    # the command line rewrites the page from the runs on disk
    from farl_agents import cli
    (tmp_path / "eligibility_traces_smoke.md").unlink()
    assert cli.main(["reproduce", "traces", "--budget", "smoke", "--variants", "tcl-rr", "--out", str(tmp_path),
                     "--table-only"]) == 0
    assert "| TCL[rr] | 1 (0) |" in (tmp_path / "eligibility_traces_smoke.md").read_text()
    assert cli.main(["reproduce", "traces", "--variants", "tcl-xx", "--out", str(tmp_path)]) == 2


def test_ctrl_c_during_a_measurement_stops_the_run_after_it(tmp_path, monkeypatch):
    """A local worker ignores Ctrl-C outside a run's training; a run spends most of its time measuring. A Ctrl-C
    (or SIGTERM) that arrives during a measurement must still stop the run after that measurement."""
    import os
    import signal

    real_measure = traces.measure
    calls = []

    def measure_then_interrupted(agent, games, seed):
        calls.append(agent)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGINT)
        return real_measure(agent, games, seed)

    monkeypatch.setattr(traces, "measure", measure_then_interrupted)
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as in a worker process (backend/local.py)
    try:
        task = {"variant": "tcl-rr", "seed": 0, "budget": "smoke", "folder": str(tmp_path / "run"), "publish": None}
        result = traces.run_task(task)
    finally:
        signal.signal(signal.SIGINT, old)
    assert result["status"] == "interrupted" and result["episodes_done"] == 100
    rows = traces.read_success(tmp_path / "run" / "success.csv")
    assert [r["episode"] for r in rows] == [0, 100]  # the measurement under way was kept
    assert traces.run_task(task)["status"] == "done"  # and the run resumes to the end


def test_weight_growth_reports_the_largest_weight_per_chunk():
    rows = traces.weight_growth("tcl-std", games=30, every=20)
    assert [g for g, _ in rows] == [20, 30]
    assert 0 < rows[0][1] <= rows[1][1]  # weights start at 0 and a TD update moves at least one


def test_in_short_gives_each_chains_range_of_ratios_to_the_paper():
    paper = {"a": (100_000, 1.0), "b": (200_000, 1.0), "c": (50_000, 1.0), "a-ply": (100_000, 1.0)}
    labels = {"a": "A", "b": "B", "c": "C", "a-ply": "A per ply"}
    # player-centred ratios: a 3.0, b 1.5, c unmeasured (no run reached 80 %); per ply: a 0.5
    table = {"a": {"asymptotic": 0.7}, "b": {"asymptotic": 0.9}, "c": {"asymptotic": 0.1},
             "a-ply": {"asymptotic": 0.95}}
    lines = in_short({"a": 300_000, "b": 300_000, "c": None, "a-ply": 50_000}, labels, paper, table)
    assert lines == ["* With farl's player-centred chain, the median times to learn are 1.5 (B) to 3.0 (A) times "
                     "the paper's; asymptotic success 70.0 % to 90.0 %.",
                     "* With the paper's per-ply chain, the median times to learn are 0.5 (A per ply) to 0.5 "
                     "(A per ply) times the paper's; asymptotic success 95.0 % to 95.0 %."]
    assert in_short({"c": None}, labels, paper, table) == []


@pytest.mark.slow  # ~5 s of training for the traces study
def test_the_recorded_opening_is_the_best_valued_first_move():
    agent = traces.fresh_agent("tdl-std", 0)
    assert traces.opening_values(agent) == [0.0] * 7  # nothing learned yet
    agent.train(3000)
    values = np.array(traces.opening_values(agent))
    assert values.std() > 0
    assert traces.opening(agent) in np.flatnonzero(values == values.max())


def test_the_openings_tally_sums_the_recorded_relapses_over_every_run():
    from studies.traces.traces_report import openings_tally

    found = {"a": [{"relapse_openings": [3, 3]}, {"relapse_openings": [0, 0]}],
             "b": [{"relapse_openings": [4, 5]}, {}]}  # {}: a run summarised before openings were recorded
    assert openings_tally(found) == (" So far, in the 2 runs with relapses and recorded openings, 7 of their 8 "
                                     "relapses opened off the centre.")
    assert openings_tally({"a": [{"relapse_openings": [0, 0]}]}) == ""


def test_per_ply_rows_are_the_presets_with_the_papers_chain_and_lambda():
    base, ply = traces.run_spec("tcl-et", 0, "paper").config, traces.run_spec("tcl-et-ply", 0, "paper").config
    assert (base.td_chain, ply.td_chain) == ("player", "ply")
    assert ply.lam == 0.5 and base.lam == pytest.approx(0.25)   # the paper's λ per ply; its square per own move
    assert ply.replace(td_chain="player", lam=base.lam) == base   # nothing else differs
    assert traces.PAPER_TABLE["tcl-et-ply"] == traces.PAPER_TABLE["tcl-et"]


def test_the_page_adds_rows_with_runs_on_disk(tmp_path):
    (tmp_path / "eligibility_traces_runs" / "tcl-et-ply" / "seed0").mkdir(parents=True)
    assert on_page(tmp_path, "paper", ["tcl-std", "tcl-et"]) == ["tcl-std", "tcl-et", "tcl-et-ply"]
    assert on_page(tmp_path, "quick", ["tcl-et"]) == ["tcl-et"]   # another budget's folder


def test_claims_and_design_note_per_chain():
    meds = {"tcl-std": 800_000, "tcl-et": 900_000, "tcl-std-ply": 400_000, "tcl-et-ply": 200_000}
    assert "does not hold" in claims(meds)[0]
    ply = claims(meds, "-ply")
    assert ply[0].startswith("* Traces halve the time to learn (per-ply chain): holds (TCL-STD / TCL[et] = 2.00")
    firsts = {"tcl-std-ply": 210_000, "tcl-et-ply": 140_000}
    assert "on the first measurement at 80 %: TCL-STD / TCL[et] = 1.50)." in claims(meds, "-ply", firsts)[0]
    meds["tcl-rr-ply"] = 300_000
    assert claims(meds, "-ply")[1].endswith("per-ply chain): does not hold (fastest: TCL[et] per ply).")
    labels = {k: v[0] for k, v in traces.VARIANTS.items()}
    note = design_note(meds, labels, traces.PAPER_TABLE)
    assert "| TCL[et] | 900,000 / 200,000 | 230,000 | – / – | – / – |" in note   # medians only
    assert "TCL[rr]" not in note   # no player-centred row to set beside it
    table = {"tcl-et": {"first": 380_000, "asymptotic": 0.72}, "tcl-et-ply": {"first": 100_000, "asymptotic": 0.976}}
    note = design_note(meds, labels, traces.PAPER_TABLE, table)
    assert "| TCL[et] | 900,000 / 200,000 | 230,000 | 380,000 / 100,000 | 72.0 % / 97.6 % |" in note
