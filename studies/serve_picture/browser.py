"""``farl serve`` in a real browser: headless Chromium driven by Selenium, for the tests and the README picture.

The browser tests (``tests/test_serve_browser.py``) and the command that
redraws the README's screenshot share these steps: start ``farl serve`` on a
free port (:func:`serving`), open headless Chromium (:func:`chromium`), start
a game from the page's form (:func:`start_game`), click moves on the SVG board
(:func:`play_by_clicking`). Chromium is Debian's ``chromium`` and
``chromium-driver`` packages (nothing is downloaded); Selenium comes with the
``browser`` extra.

Regenerate ``docs/images/serve.png`` (TicTacToe against the pretrained agent,
its value of each move on the board, after the person took the centre) and
every game's view in ``docs/images/games/<game>.png`` (a few moves into a
game against random moves or the shipped agent, whose values are on the
board, a piece picked where a move takes several clicks), the pictures of
the games' doc pages::

    python -m studies.serve_picture.browser docs/images/serve.png

The tests write their screenshots into their own temporary folders only.
"""
from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

WAIT = 120
"""Seconds a page may take to get ready (the server compiles each game's rules on first use)."""

POLL = 0.02
"""Seconds between two looks at the page while waiting. Selenium's default (half a second) cost every move of a
scripted game that much, as the page answers a click in a few milliseconds."""


def waiting(driver, seconds: float = WAIT):
    """A Selenium ``WebDriverWait`` on ``driver`` that gives up after ``seconds`` and looks every :data:`POLL` s."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, poll_frequency=POLL)


def chromium_paths() -> tuple[str | None, str | None]:
    """The Chromium binary and its driver on the PATH (None where missing)."""
    return shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")


def missing() -> str | None:
    """Why the browser cannot be driven here (a sentence naming what to install), or None."""
    browser, driver = chromium_paths()
    if not (browser and driver):
        return "needs Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)"
    for module, extra in (("selenium", "browser"), ("starlette", "web"), ("uvicorn", "web")):
        try:
            __import__(module)
        except ImportError:
            return f"needs {module} (pip install 'farl-rl[{extra}]')"
    return None


@contextlib.contextmanager
def serving(root):
    """``farl serve ROOT --port 0`` in a subprocess, until the block ends; yields its address."""
    proc = subprocess.Popen([sys.executable, "-m", "farl_agents", "serve", str(root), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if not line.startswith("farl serve: http://127.0.0.1:"):
            raise RuntimeError(f"farl serve did not start: {line}{proc.stderr.read()}")
        url = line.split()[2]
        for _ in range(300):  # until uvicorn listens
            try:
                urllib.request.urlopen(url + "api/games", timeout=5).read()
                break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


@contextlib.contextmanager
def chromium(width: int = 1280, height: int = 900):
    """A headless Chromium window of ``width`` x ``height`` pixels (Selenium's driver)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = chromium_paths()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={width},{height}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def ready(driver) -> bool:
    """A person is to move or the game is over (nothing is being computed); an error on the page raises."""
    status = status_of(driver)
    if status.startswith("error"):
        raise AssertionError(status)
    return status.startswith("your move") or status == "game over"


def n_moves(driver) -> int:
    """Moves in the page's move list."""
    text = driver.execute_script("return document.getElementById('movelist').value")
    return len(text.splitlines()) if text else 0


def status_of(driver) -> str:
    """The page's status line ("your move", "game over", "error: ...", ...). One script call: a scripted game
    reads it after every move, and Selenium's visible-text lookup costs several times as much."""
    return driver.execute_script("return document.getElementById('status').textContent.trim()")


def set_params(driver, params: dict) -> None:
    """Type the game parameters ``params`` into the page's form (each input's change event, as a person's)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    for name, value in params.items():
        box = driver.find_element(By.CSS_SELECTOR, f"[data-param='{name}']")
        if box.get_attribute("type") == "checkbox":
            if box.is_selected() != bool(value):
                box.click()
        else:  # typed, then Tab: the input's change event, as when a person leaves the field
            box.clear()
            box.send_keys(str(value) + Keys.TAB)


def seat_count(driver) -> int:
    """Seat selectors on the page."""
    from selenium.webdriver.common.by import By

    return len(driver.find_elements(By.CSS_SELECTOR, "#seats select"))


def choose_game(driver, game: str, params: dict | None = None, n_seats: int | None = None) -> None:
    """Choose ``game`` in the form (the page already open), type ``params``, and wait until the seats follow
    (``n_seats`` selectors, when given)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    set_params(driver, params or {})
    wait = waiting(driver)
    if n_seats is not None:
        wait.until(lambda d: seat_count(d) == n_seats)
    wait.until(lambda d: d.find_element(By.ID, "new-game").is_enabled())


def start_game(driver, url: str | None, game: str, seats: list[str], think: bool = False,
               params: dict | None = None) -> None:
    """Open the page (``url``; None: stay on it), choose ``game`` with ``params`` and one choice per seat, set
    the overlay toggle, press "New game"."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    wait = waiting(driver)
    if url is not None:
        driver.get(url)
    wait.until(lambda d: d.find_elements(By.ID, "seat-0"))  # the form is filled: games and agents are known
    choose_game(driver, game, params, len(seats))
    for i, choice in enumerate(seats):
        Select(driver.find_element(By.ID, f"seat-{i}")).select_by_value(choice)
    wait.until(lambda d: seat_count(d) == len(seats))  # a pretrained seat may have set the parameters
    box = driver.find_element(By.ID, "think")
    if box.is_selected() != think:
        box.click()
    driver.find_element(By.ID, "new-game").click()
    wait.until(ready)


CLICK_TRIES = 5
"""Attempts at one click whose board element went stale (drawn again) before it was clicked."""


def play_by_clicking(driver, pick) -> str:
    """Click the moves ``pick(clickable board elements)`` chooses until the game ends; the result text."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    wait = waiting(driver)
    for _ in range(500):
        wait.until(ready)
        if status_of(driver) == "game over":
            return driver.find_element(By.ID, "result").text
        before = n_moves(driver)
        for attempt in range(CLICK_TRIES):
            try:
                pick(driver.find_elements(By.CSS_SELECTOR, "#board [data-action]")).click()
                break
            except StaleElementReferenceException:
                # the board was drawn again between the look-up and the click (the value overlay arrives after
                # the position does): look the cells up again; a stale element was not clicked
                if attempt == CLICK_TRIES - 1:
                    raise
        wait.until(lambda d, b=before: n_moves(d) > b)
    raise AssertionError("the game did not end")


CLICKABLE = """
const all = (css) => Array.from(document.querySelectorAll(css));
for (const css of ["#board .legal.node", "#board .legal[data-cell], #board [data-action]", "#moves button"]) {
    const found = all(css);
    if (found.length) return found;
}
return [];
"""
"""What a person may click for the next part of a move, in one script call: the highlighted graph vertices, else
the highlighted cells and the board's action marks, else the move buttons (a move without a cell)."""

MOVE_CLICKS = 10
"""Most clicks one move may take (three in every game) plus retries of cells drawn again before the click."""


def click_a_move(driver, rng) -> None:
    """A scripted person's move, by clicks only: a random highlighted cell (a piece, then one of its targets,
    then ... as the board offers them; graph vertices rather than crossing edges) until the move is sent,
    a button for a move without a cell (a pass); returns when the page has the move."""
    from selenium.common.exceptions import StaleElementReferenceException

    waiting(driver).until(ready)
    before = n_moves(driver)
    for _ in range(MOVE_CLICKS):
        cells = driver.execute_script(CLICKABLE)
        if not cells:
            raise AssertionError(f"nothing to click: {status_of(driver)}")
        try:
            cells[int(rng.integers(len(cells)))].click()
        except StaleElementReferenceException:
            continue
        if driver.execute_script("return busy || VIEW.moves.length > arguments[0]", before):  # the move is sent
            waiting(driver).until(lambda d: n_moves(d) > before)
            return
    raise AssertionError(f"{MOVE_CLICKS} clicks made no move")


def play_whole_game(driver, rng, max_moves: int = 2000) -> str:
    """Play the person's seats of the game on the page by :func:`click_a_move` until it ends; the result."""
    from selenium.webdriver.common.by import By

    wait = waiting(driver)
    for _ in range(max_moves):
        wait.until(ready)
        if status_of(driver) == "game over":
            return driver.find_element(By.ID, "result").text
        click_a_move(driver, rng)
    raise AssertionError("the game did not end")


def centre_with_values(driver, url: str, seat: str = "pretrained") -> None:
    """TicTacToe, you (X) against ``seat`` with the value overlay on: take the centre and wait until the
    agent has replied and its values of your seven moves are on the board."""
    from selenium.webdriver.common.by import By

    start_game(driver, url, "tictactoe", ["human", seat], think=True)
    wait = waiting(driver)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board text.value")) == 9)
    driver.find_elements(By.CSS_SELECTOR, "#board [data-action]")[4].click()
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board text.value")) == 7)


def readme_screenshot(driver, url: str, out) -> Path:
    """The README's picture: :func:`centre_with_values` against the pretrained agent, saved as ``out``."""
    centre_with_values(driver, url, "pretrained")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not driver.save_screenshot(str(out)):
        raise RuntimeError(f"Chromium could not write {out}")
    return out


PICTURE_PLIES = 4
"""The person's moves played by :func:`game_picture` before the picture (against random moves)."""


def game_picture(driver, url: str, game: str, out, seed: int = 0) -> Path:
    """The board of ``game`` as a person sees it: a few moves into a game against random moves (the
    shipped agent's values on the board where one exists), a piece picked where a move takes several clicks;
    the board element saved as ``out``."""
    import numpy as np
    from selenium.webdriver.common.by import By

    import farl_envs
    from farl_agents import pretrained

    g = farl_envs.game_spec(game)
    seats = ["human"] + ["random"] * (g.n_players - 1)
    think = (g.n_players > 1 and game in pretrained.available()
             and pretrained.card(game)["game_params"] == g.params)
    if think:
        seats[1] = "pretrained"
    start_game(driver, url, game, seats, think=think)
    rng = np.random.default_rng(seed)
    for _ in range(PICTURE_PLIES):
        if status_of(driver) == "game over":
            break
        click_a_move(driver, rng)
    waiting(driver).until(ready)
    if think:
        waiting(driver).until(lambda d: d.execute_script("return THOUGHTS !== null"))
    first = driver.find_elements(By.CSS_SELECTOR, "#board .legal[data-cell]")
    several = driver.execute_script("return VIEW.legal.some((l) => ((VIEW.paths[l.action] || [])[0] || []).length > 1)")
    if first and several:  # show the targets of one piece
        first[len(first) // 2].click()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not driver.find_element(By.ID, "table").screenshot(str(out)):
        raise RuntimeError(f"Chromium could not write {out}")
    return out


def main(argv=None) -> int:
    """``python -m studies.serve_picture.browser OUT.png``: serve an empty folder and take the README's picture."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or not argv[0].endswith(".png"):
        print("usage: python -m studies.serve_picture.browser OUT.png   (e.g. docs/images/serve.png)", file=sys.stderr)
        return 2
    reason = missing()
    if reason:
        print(f"farl: {reason}", file=sys.stderr)
        return 2
    import farl_envs

    with tempfile.TemporaryDirectory() as root, serving(root) as url, chromium() as driver:
        print(f"wrote {readme_screenshot(driver, url, argv[0])}")
        for game in farl_envs.list_games():  # each game's view, for its page of the docs
            name = game[:-3]
            print(f"wrote {game_picture(driver, url, name, Path(argv[0]).parent / 'games' / f'{name}.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
