"""`farl serve` in a real browser: headless Chromium (Debian's chromium + chromium-driver) driven by Selenium.

A `farl serve` process is started on a free port; the tests click on the
SVG boards as a person would (the steps are in :mod:`studies.serve_picture.browser`,
which also redraws the README's picture). Facts checked: Max-N at full depth never
loses TicTacToe, the pretrained Connect Four agent beats a player who always drops in the
leftmost open column, a Nim3P game in one seat ends with a winner, the agents' values (the
pretrained agent's, an agent file's) appear on the board, Hex, Othello and a generic game show
their legal moves, 2048 moves by arrow keys, and the runs view plots the curve. A screenshot per
game goes to the test's temp folder (nothing is written into the repository).

Skipped (with the reason) only when chromium, chromedriver or selenium is missing.
"""
from __future__ import annotations

import json

import pytest

pytest.importorskip("starlette", reason="needs the web extra (pip install 'farl-rl[web]')")

from studies.serve_picture import browser as web  # noqa: E402

if web.missing():
    pytest.skip(web.missing(), allow_module_level=True)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from farl_agents.learners import NTupleAgent, paper_config  # noqa: E402
from farl_agents.runs.curve import write_curve  # noqa: E402
from studies.serve_picture.browser import WAIT, n_moves, play_by_clicking, start_game  # noqa: E402

PAYLOAD = "<img src=x onerror=window.pwned={}>"
"""Markup a hostile file may hold; shown as text it runs nothing."""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``farl serve DIR --port 0`` in a subprocess; DIR holds a TicTacToe agent file, a run folder, a run folder
    of hostile files and an agent file that cannot be read."""
    root = tmp_path_factory.mktemp("served")
    agent = NTupleAgent("tictactoe", paper_config("tictactoe", episodes=200))
    agent.train(200)
    agent.save(root / "ttt.npz")
    run = root / "runs" / "tictactoe-demo"
    run.mkdir(parents=True)
    write_curve(run / "curve.csv", [{"episode": 100 * i, "wall_seconds": float(i), "score_maxn15": 0.1 * i,
                                     "se_maxn15": 0.05, "score_random": 0.5 + 0.05 * i, "se_random": 0.05}
                                    for i in range(6)], ["maxn15", "random"])
    (run / "eval.json").write_text(json.dumps({"metric": "win_rate", "matchups": [
        {"player": "td-farl", "opponent": "Max-N15", "n_games": 50, "win_rate": 0.46, "win_rate_se": 0.03}]}))
    hostile = root / "runs" / "xss"  # a run folder whose files carry markup (see test_file_content_is_text)
    hostile.mkdir()
    (hostile / "curve.csv").write_text(f"episode,wall_seconds,score_{PAYLOAD.format(2)}\n0,1.0,0.25\n100,2.0,0.5\n")
    (hostile / "eval.json").write_text(json.dumps({"metric": "win_rate", "matchups": [
        {"player": PAYLOAD.format(3), "opponent": "Max-N15", "n_games": PAYLOAD.format(1), "win_rate": 0.5,
         "win_rate_se": 0.1}]}))
    (root / "broken.npz").write_bytes(b"not a zip file")
    with web.serving(root) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with web.chromium() as driver:
        yield driver


def test_tictactoe_against_maxn_is_never_won(server, browser, tmp_path):
    start_game(browser, server, "tictactoe", ["human", "maxn"])
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board [data-action]")) == 9
    result = play_by_clicking(browser, lambda cells: cells[len(cells) // 2])
    assert result in ("draw", "you lose")
    assert browser.find_elements(By.CSS_SELECTOR, "#board [data-action]") == []
    browser.save_screenshot(str(tmp_path / "tictactoe.png"))


def test_nim3p_in_one_seat(server, browser, tmp_path):
    """Seat 2 is the pretrained agent: choosing it sets the parameters it was trained with (the paper's
    max_take=5, not the game's default 3)."""
    start_game(browser, server, "nim3p", ["maxn", "human", "pretrained"])
    assert browser.find_element(By.CSS_SELECTOR, "[data-param='max_take']").get_attribute("value") == "5"
    result = play_by_clicking(browser, lambda sticks: sticks[-1])  # take one stick from the last heap
    assert result.startswith("winner") or result == "draw"
    lines = browser.find_element(By.ID, "movelist").get_attribute("value").splitlines()
    assert lines and all("@" in line for line in lines)
    browser.save_screenshot(str(tmp_path / "nim3p.png"))


def test_connect_four_against_the_pretrained_agent(server, browser, tmp_path):
    """Its values above the columns; it beats a player who always drops in the leftmost open column."""
    start_game(browser, server, "connect_four", ["human", "pretrained"], think=True)
    WebDriverWait(browser, WAIT).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board text.value")) == 7)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board text.value.best")) == 1
    result = play_by_clicking(browser, lambda columns: columns[0])
    assert result == "you lose"
    browser.save_screenshot(str(tmp_path / "connect_four_pretrained.png"))


@pytest.mark.parametrize("seat", ["pretrained", "agent:ttt.npz"])
def test_value_overlay(server, browser, tmp_path, seat):
    """The pretrained TicTacToe agent and an agent file from the served folder show their values on the board
    (the pretrained one through the README picture's own steps, into the temp folder)."""
    if seat == "pretrained":
        shot = web.readme_screenshot(browser, server, tmp_path / "serve.png")
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        web.centre_with_values(browser, server, seat)
        browser.save_screenshot(str(tmp_path / "overlay_agent_file.png"))
    texts = browser.find_elements(By.CSS_SELECTOR, "#board text.value")
    assert len(texts) == 7  # the centre and the agent's reply are taken
    best = browser.find_elements(By.CSS_SELECTOR, "#board text.value.best")
    assert len(best) == 1 and float(best[0].text) == max(float(t.text) for t in texts)
    assert "afterstate value" in browser.find_element(By.ID, "thoughts").text


@pytest.mark.parametrize("game, n_legal", [("hex", 36), ("othello", 4), ("sim", 0)])
def test_boards_show_the_legal_moves(server, browser, tmp_path, game, n_legal):
    """Hex and Othello: clickable cells for the legal moves; a generic game: one button per legal move."""
    start_game(browser, server, game, ["human", "random"])
    cells = browser.find_elements(By.CSS_SELECTOR, "#board [data-action]")
    assert len(cells) == n_legal
    if game == "sim":  # drawn by the generic renderer, moves as buttons: the 15 edges of the complete graph K6
        buttons = browser.find_elements(By.CSS_SELECTOR, "#moves button")
        assert len(buttons) == 15
        target = buttons[0]
    else:
        target = cells[0]
    target.click()
    WebDriverWait(browser, WAIT).until(lambda d: n_moves(d) == 2 and web.ready(d))
    browser.save_screenshot(str(tmp_path / f"{game}.png"))


def test_game2048_by_arrow_keys(server, browser, tmp_path):
    from selenium.webdriver.common.keys import Keys

    start_game(browser, server, "game2048", ["human"])
    body = browser.find_element(By.TAG_NAME, "body")
    arrows = {"up": Keys.ARROW_UP, "right": Keys.ARROW_RIGHT, "down": Keys.ARROW_DOWN, "left": Keys.ARROW_LEFT}
    for i in range(6):
        legal = browser.execute_script("return VIEW.legal.map((l) => l.name)")
        assert legal and set(legal) <= set(arrows)
        direction = legal[i % len(legal)]
        body.send_keys(arrows[direction])
        WebDriverWait(browser, WAIT).until(lambda d, n=i + 1: n_moves(d) == n and web.ready(d))
        last = browser.find_element(By.ID, "movelist").get_attribute("value").splitlines()[-1]
        assert last.split()[1] == direction
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board text")) >= 2  # numbered tiles
    browser.save_screenshot(str(tmp_path / "game2048.png"))


def test_runs_view(server, browser, tmp_path):
    browser.get(server)
    wait = WebDriverWait(browser, WAIT)
    browser.find_element(By.ID, "tab-runs").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#curve polyline.series"))
    series = [p.get_attribute("data-series") for p in browser.find_elements(By.CSS_SELECTOR, "#curve polyline")]
    assert series == ["score_maxn15", "score_random"]
    assert len(browser.find_element(By.CSS_SELECTOR, "#curve polyline").get_attribute("points").split()) == 6
    assert "Max-N15" in browser.find_element(By.ID, "run-evals").text
    browser.save_screenshot(str(tmp_path / "runs.png"))


def test_file_content_is_text(server, browser):
    """eval.json fields and curve.csv column names holding an <img onerror=...> appear as text: no element is
    made of them, no handler runs. The unreadable agent file is named with its reason."""
    from selenium.webdriver.support.ui import Select

    browser.get(server)
    wait = WebDriverWait(browser, WAIT)
    wait.until(lambda d: d.find_elements(By.ID, "seat-0"))
    assert "broken.npz" in browser.find_element(By.ID, "agents-unreadable").get_attribute("textContent")
    browser.find_element(By.ID, "tab-runs").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#run option[value='runs/xss']"))
    Select(browser.find_element(By.ID, "run")).select_by_value("runs/xss")
    wait.until(lambda d: PAYLOAD.format(1) in d.find_element(By.ID, "run-evals").text)
    assert PAYLOAD.format(3) in browser.find_element(By.ID, "run-evals").text
    assert browser.find_elements(By.CSS_SELECTOR, "#run-evals img, #run-plot img, #curve img") == []
    series = browser.find_element(By.CSS_SELECTOR, "#curve polyline.series").get_attribute("data-series")
    assert series == "score_" + PAYLOAD.format(2)
    assert browser.execute_script("return window.pwned === undefined")
