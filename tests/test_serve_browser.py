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

import numpy as np  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

import farl_envs  # noqa: E402
from farl_agents.learners import NTupleAgent, paper_config  # noqa: E402
from farl_agents.runs.curve import write_curve  # noqa: E402
from studies.serve_picture.browser import n_moves, play_by_clicking, start_game, waiting  # noqa: E402

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
    waiting(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board text.value")) == 7)
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


@pytest.mark.parametrize("game, n_legal", [("hex", 36), ("othello", 4)])
def test_boards_show_the_legal_moves(server, browser, tmp_path, game, n_legal):
    """Hex and Othello: clickable cells for the legal moves."""
    start_game(browser, server, game, ["human", "random"])
    cells = browser.find_elements(By.CSS_SELECTOR, "#board [data-action]")
    assert len(cells) == n_legal
    cells[0].click()
    waiting(browser).until(lambda d: n_moves(d) == 2 and web.ready(d))
    browser.save_screenshot(str(tmp_path / f"{game}.png"))


def test_sim_by_two_vertices(server, browser):
    """Sim K6: the 15 edges of the graph are on the board (no buttons); clicking two vertices colours their
    edge in the mover's colour, and the last move is marked."""
    start_game(browser, server, "sim", ["human", "random"])
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .legal.edge")) == 15
    assert browser.find_elements(By.CSS_SELECTOR, "#moves button") == []
    vertices = browser.find_elements(By.CSS_SELECTOR, "#board .legal.node")
    assert len(vertices) == 6
    vertices[0].click()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .legal.node")) == 5  # the other ends
    browser.find_element(By.CSS_SELECTOR, "#board .legal.node[data-cell='18']").click()  # vertex 3 (15 + 3)
    waiting(browser).until(lambda d: n_moves(d) == 2 and web.ready(d))
    first = browser.find_element(By.ID, "movelist").get_attribute("value").splitlines()[0]
    assert first.startswith("1. 0-3")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .legal.edge")) == 13


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
        waiting(browser).until(lambda d, n=i + 1: n_moves(d) == n and web.ready(d))
        last = browser.find_element(By.ID, "movelist").get_attribute("value").splitlines()[-1]
        assert last.split()[1] == direction
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board text")) >= 2  # numbered tiles
    browser.save_screenshot(str(tmp_path / "game2048.png"))


SMALL = {"amazons": {"board_size": 6}, "breakthrough": {"rows": 5, "columns": 5}, "hex": {"size": 5},
         "chinese_checkers": {"max_moves": 12}, "lines_of_action": {"max_game_length": 40},
         "outer_open_gomoku": {"size": 7}, "surakarta": {"no_capture_limit": 6}, "rubiks_cube": {"max_twists": 12}}
"""Parameters that keep a whole game by clicks short (the file runs in about three minutes)."""


CLICKED_BY_DEFAULT = {  # one game per kind of board input; the rest (poker: buttons only) play with -m slow
    "tictactoe",  # one cell
    "othello",  # a cell, or the pass button
    "amazons",  # a piece, its target, then an arrow (Santorini's build: -m slow)
    "chinese_checkers",  # a chain of hops
    "sim",  # an edge by its two vertices
}


@pytest.mark.parametrize("game", [pytest.param(g[:-3], marks=[] if g[:-3] in CLICKED_BY_DEFAULT else [pytest.mark.slow])
                                  for g in farl_envs.list_games()])
def test_a_whole_game_by_clicks(server, browser, tmp_path, game):
    """A scripted person plays seat 0 to the end against random seats, by clicking highlighted cells only
    (a piece, then its target, then ... ; a button only for a move without a cell, such as a pass); no
    position ever offers more than 20 buttons. The board is saved as a picture."""
    n = farl_envs.game_spec(game, **SMALL.get(game, {})).n_players
    start_game(browser, server, game, ["human"] + ["random"] * (n - 1), params=SMALL.get(game))
    rng = np.random.default_rng(1)
    most = 0
    for _ in range(3000):
        waiting(browser).until(web.ready)
        most = max(most, len(browser.find_elements(By.CSS_SELECTOR, "#moves button")))
        if web.status_of(browser) == "game over":
            break
        web.click_a_move(browser, rng)
    result = browser.find_element(By.ID, "result").text
    assert result, f"{game}: no result after {n_moves(browser)} moves"
    assert most <= 20
    browser.find_element(By.ID, "board").screenshot(str(tmp_path / f"{game}.png"))


@pytest.mark.parametrize("game, params, n", [
    ("sim", {"players": 3}, 3), ("yavalath", {"players": 3}, 3),
    ("einstein_wurfelt_nicht", {"players": 3, "size": 6}, 3), ("einstein_wurfelt_nicht", {"players": 4, "size": 6}, 4),
    ("chinese_checkers", {"players": 3}, 3),
    ("chinese_checkers", {"players": 4}, 4), ("chinese_checkers", {"players": 6}, 6)])
def test_n_player_games_start_from_the_page(server, browser, game, params, n):
    """Typing the number of players re-renders the seats (one selector per player) and the game starts with
    them: the seat list names every seat in its colour, the one to move marked."""
    browser.get(server)
    waiting(browser).until(lambda d: d.find_elements(By.ID, "seat-0"))
    web.choose_game(browser, game, params, n)
    for i in range(1, n):
        Select(browser.find_element(By.ID, f"seat-{i}")).select_by_value("random")
    browser.find_element(By.ID, "new-game").click()
    waiting(browser).until(web.ready)
    assert browser.execute_script("return VIEW.seats.length") == n
    players = browser.find_elements(By.CSS_SELECTOR, "#players .player")
    assert len(players) == n and len(browser.find_elements(By.CSS_SELECTOR, "#players .player.to-move")) == 1
    web.click_a_move(browser, np.random.default_rng(0))


def test_players_who_are_out_are_struck_through(server, browser):
    """3-player Sim by clicks to the end: the seats the game put out are shown as out (struck through), the
    others not."""
    start_game(browser, server, "sim", ["human", "random", "random"], params={"players": 3})
    web.play_whole_game(browser, np.random.default_rng(2))
    out = browser.execute_script("return VIEW.out")
    assert out, "nobody was out at the end"
    shown = [int(p.get_attribute("data-seat")) for p in browser.find_elements(By.CSS_SELECTOR, "#players .player.out")]
    assert shown == out and all("(out)" in browser.find_element(By.CSS_SELECTOR, f"#players [data-seat='{q}']").text
                                for q in out)


def test_pretrained_three_player_agent_brings_its_seats(server, browser):
    """Sim's pretrained agent plays 3 players: choosing it sets players=3 and a third seat appears."""
    browser.get(server)
    waiting(browser).until(lambda d: d.find_elements(By.ID, "seat-0"))
    web.choose_game(browser, "sim", {}, 2)
    Select(browser.find_element(By.ID, "seat-1")).select_by_value("pretrained")
    waiting(browser).until(lambda d: web.seat_count(d) == 3)
    assert Select(browser.find_element(By.ID, "seat-1")).first_selected_option.get_attribute("value") == "pretrained"
    assert browser.find_element(By.CSS_SELECTOR, "[data-param='players']").get_attribute("value") == "3"


VALUES_JS = ("return [...document.querySelectorAll('#board text.value')].map((t) => "
             "[Number(t.textContent), t.classList.contains('best'), t.dataset.valueCell, t.dataset.valueAction])")
"""The values on the board, read at once (the board may be drawn again between two look-ups)."""


def test_values_on_the_pieces_then_on_their_targets(server, browser):
    """Breakthrough 6x6 against its pretrained agent with the overlay on: each movable piece shows the best
    value of its moves, one of them marked best; after clicking that piece, its targets show their moves'
    values, the best one marked again."""
    start_game(browser, server, "breakthrough", ["human", "pretrained"], think=True,
               params={"rows": 6, "columns": 6})
    wait = waiting(browser)
    wait.until(lambda d: d.execute_script(VALUES_JS))
    pieces = browser.execute_script(VALUES_JS)
    assert len(pieces) == 6  # the front row of six pieces
    best = [p for p in pieces if p[1]]
    assert len(best) == 1 and best[0][0] == max(p[0] for p in pieces)
    browser.find_element(By.CSS_SELECTOR, f"#board .legal[data-cell='{best[0][2]}']").click()
    targets = browser.execute_script(VALUES_JS)
    assert 1 <= len(targets) <= 3 and all(t[3] for t in targets)  # one move per target
    assert [t[0] for t in targets if t[1]] == [best[0][0]]


def test_chinese_checkers_chain_of_hops(server, browser):
    """After a hop that can go on, the peg that hopped is picked already: the board offers its next hops and
    a pass button ends the chain."""
    start_game(browser, server, "chinese_checkers", ["human", "random"])
    rng = np.random.default_rng(0)
    for _ in range(40):
        web.click_a_move(browser, rng)
        waiting(browser).until(web.ready)
        picked = browser.execute_script("return PICK")
        if picked:
            break
    assert picked, "no chain of hops in 40 moves"
    assert picked == browser.execute_script("return VIEW.moves[VIEW.moves.length - 1].cells.slice(1)")
    assert [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#moves button")] == ["pass"]
    assert browser.find_elements(By.CSS_SELECTOR, "#board .legal[data-cell]")


@pytest.mark.slow  # ~23 s: every game in turn; the default run starts a game of each board kind (below)
def test_switching_games_leaves_no_stale_board(server, browser):
    """Every game in turn on one page (no reload): choosing the next game empties the board and the move list,
    and the new game's board is the only one drawn."""
    browser.get(server)
    waiting(browser).until(lambda d: d.find_elements(By.ID, "seat-0"))
    for game in [g[:-3] for g in farl_envs.list_games()]:
        n = farl_envs.game_spec(game).n_players
        web.choose_game(browser, game, {}, n)
        assert browser.find_elements(By.CSS_SELECTOR, "#board *") == []
        assert browser.find_elements(By.CSS_SELECTOR, "#moves button") == []
        assert browser.find_element(By.ID, "movelist").get_attribute("value") == ""
        for i in range(1, n):
            Select(browser.find_element(By.ID, f"seat-{i}")).select_by_value("random")
        browser.find_element(By.ID, "new-game").click()
        waiting(browser).until(web.ready)
        assert browser.execute_script("return VIEW.game") == game
        assert browser.find_elements(By.CSS_SELECTOR, "#board *")
        assert len(browser.find_elements(By.CSS_SELECTOR, "#moves button")) <= 20


def test_u_takes_back_a_move(server, browser):
    from selenium.webdriver.common.keys import Keys

    start_game(browser, server, "breakthrough", ["human", "random"], params={"rows": 5, "columns": 5})
    web.click_a_move(browser, np.random.default_rng(0))
    waiting(browser).until(lambda d: n_moves(d) == 2 and web.ready(d))
    browser.find_element(By.TAG_NAME, "body").send_keys("u")
    waiting(browser).until(lambda d: n_moves(d) == 0 and web.ready(d))
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)


def test_runs_view(server, browser, tmp_path):
    browser.get(server)
    wait = waiting(browser)
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
    wait = waiting(browser)
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
