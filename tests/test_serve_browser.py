"""`farl serve` in a real browser: headless Chromium (Debian's chromium + chromium-driver) driven by Selenium.

A `farl serve` process is started on a free port; the tests click on the
SVG boards as a person would. Facts checked: Max-N at full depth never loses
TicTacToe, the perfect Connect Four player (and the pretrained agent) beats a player who
always drops in the leftmost open column, a Nim3P game ends with every heap empty, the
agents' values (the pretrained agent's, an agent file's) appear on the board, and the runs view plots the curve. A
screenshot per game goes to the test's temp folder, and one for the README
to docs/images/serve.png.

Skipped (with the reason) only when chromium, chromedriver or selenium is missing.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    pytest.skip("needs Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)",
                allow_module_level=True)
pytest.importorskip("selenium", reason="needs selenium (pip install 'farl[browser]')")
pytest.importorskip("starlette", reason="needs the web extra (pip install 'farl[web]')")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from farl_agents.learners import NTupleAgent, paper_config  # noqa: E402
from farl_agents.runs.curve import write_curve  # noqa: E402

README_IMAGE = Path(__file__).resolve().parents[1] / "docs" / "images" / "serve.png"
WAIT = 120  # seconds a page may take (the server compiles each game's kernels on first use)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``farl serve DIR --port 0`` in a subprocess; DIR holds a TicTacToe agent file and a run folder."""
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
    proc = subprocess.Popen([sys.executable, "-m", "farl_agents", "serve", str(root), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("farl serve: http://127.0.0.1:"), line + proc.stderr.read()
        url = line.split()[2]
        for _ in range(200):  # until uvicorn listens
            try:
                urllib.request.urlopen(url + "api/games", timeout=5).read()
                break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def start_game(driver, url, game, seats, think=False):
    driver.get(url)
    wait = WebDriverWait(driver, WAIT)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f"#game option[value='{game}']"))
    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    for i, choice in enumerate(seats):
        Select(driver.find_element(By.ID, f"seat-{i}")).select_by_value(choice)
    box = driver.find_element(By.ID, "think")
    if box.is_selected() != think:
        box.click()
    driver.find_element(By.ID, "new-game").click()
    wait.until(lambda d: _ready(d))


def _ready(driver) -> bool:
    """A person is to move or the game is over (nothing is being computed)."""
    status = driver.find_element(By.ID, "status").text
    assert not status.startswith("error"), status
    return status.startswith("your move") or status == "game over"


def n_moves(driver) -> int:
    text = driver.find_element(By.ID, "movelist").get_attribute("value")
    return len(text.splitlines()) if text else 0


def play_by_clicking(driver, pick) -> str:
    """Click moves chosen by ``pick(legal elements)`` until the game ends; the result text."""
    wait = WebDriverWait(driver, WAIT)
    for _ in range(200):
        wait.until(_ready)
        if driver.find_element(By.ID, "status").text == "game over":
            return driver.find_element(By.ID, "result").text
        before = n_moves(driver)
        pick(driver.find_elements(By.CSS_SELECTOR, "#board [data-action]")).click()
        wait.until(lambda d, b=before: n_moves(d) > b)
    raise AssertionError("the game did not end")


def test_tictactoe_against_maxn_is_never_won(server, browser, tmp_path):
    start_game(browser, server, "tictactoe", ["human", "maxn"])
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board [data-action]")) == 9
    result = play_by_clicking(browser, lambda cells: cells[len(cells) // 2])
    assert result in ("draw", "you lose")
    assert browser.find_elements(By.CSS_SELECTOR, "#board [data-action]") == []
    browser.save_screenshot(str(tmp_path / "tictactoe.png"))


def test_nim3p_in_one_seat(server, browser, tmp_path):
    start_game(browser, server, "nim3p", ["maxn", "human", "random"])
    result = play_by_clicking(browser, lambda sticks: sticks[-1])  # take one stick from the last heap
    assert result.startswith("winner") or result == "draw"
    lines = browser.find_element(By.ID, "movelist").get_attribute("value").splitlines()
    assert lines and all("@" in line for line in lines)
    browser.save_screenshot(str(tmp_path / "nim3p.png"))


def test_connect_four_against_ab(server, browser, tmp_path):
    start_game(browser, server, "connect_four", ["human", "ab"])
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .column")) == 7
    result = play_by_clicking(browser, lambda columns: columns[0])  # always the leftmost open column
    assert result == "you lose"
    browser.save_screenshot(str(tmp_path / "connect_four.png"))


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
    """The pretrained TicTacToe agent and an agent file from the served folder show their values on the board."""
    start_game(browser, server, "tictactoe", ["human", seat], think=True)
    wait = WebDriverWait(browser, WAIT)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board text.value")) == 9)
    best = browser.find_elements(By.CSS_SELECTOR, "#board text.value.best")
    assert len(best) == 1
    values = [float(t.text) for t in browser.find_elements(By.CSS_SELECTOR, "#board text.value")]
    assert float(best[0].text) == max(values)
    assert "afterstate value" in browser.find_element(By.ID, "thoughts").text
    browser.find_elements(By.CSS_SELECTOR, "#board [data-action]")[4].click()  # the centre
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board text.value")) == 7)  # after the agent's reply
    name = "pretrained" if seat == "pretrained" else "agent_file"
    browser.save_screenshot(str(tmp_path / f"overlay_{name}.png"))
    if seat == "pretrained":
        README_IMAGE.parent.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(README_IMAGE))


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
    WebDriverWait(browser, WAIT).until(lambda d: n_moves(d) == 2 and _ready(d))
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
        WebDriverWait(browser, WAIT).until(lambda d, n=i + 1: n_moves(d) == n and _ready(d))
        last = browser.find_element(By.ID, "movelist").get_attribute("value").splitlines()[-1]
        assert last.split()[1] == direction
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board text")) >= 2  # numbered tiles
    browser.save_screenshot(str(tmp_path / "game2048.png"))


def test_runs_view(server, browser, tmp_path):
    browser.get(server)
    wait = WebDriverWait(browser, WAIT)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
    browser.find_element(By.ID, "tab-runs").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#curve polyline.series"))
    series = [p.get_attribute("data-series") for p in browser.find_elements(By.CSS_SELECTOR, "#curve polyline")]
    assert series == ["score_maxn15", "score_random"]
    assert len(browser.find_element(By.CSS_SELECTOR, "#curve polyline").get_attribute("points").split()) == 6
    assert "Max-N15" in browser.find_element(By.ID, "run-evals").text
    browser.save_screenshot(str(tmp_path / "runs.png"))
