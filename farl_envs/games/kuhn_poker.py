"""Kuhn poker: one card each from a deck of players + 1, one round of betting; the others' cards are hidden.

==================  ==============================================================
players             2 or 3 (``players=2``), ``player_0`` acts first
parameters          ``players=2`` (2 or 3)
actions             2: 0 ``pass`` (check, or fold facing a bet), 1 ``bet`` (bet,
                    or call facing a bet); both always legal while the hand runs
rewards             the chips won or lost (zero-sum), all at the end: the
                    winner gets the others' contributions, everybody else
                    loses his own (1 for the ante, 2 after betting or calling)
chance              only at the start (the deal, from ``initial_state``'s rng)
hidden information  yes (``GameSpec.hidden_information``): a player sees only
                    his own card
observation         ``int8[6 * players - 1]``, OpenSpiel's information state
                    tensor: the seat (one-hot, ``players``), its own card
                    (one-hot, ``players + 1``), the betting so far (one
                    pass/bet pair per action, ``2 * players - 1`` pairs)
n-tuple board       ``2 * players`` cells, P = ``players + 2``: the card of the
                    player who made the last move (card + 1; 0 before any
                    move), then the actions so far (0 not played, 1 pass,
                    2 bet)
symmetries          the identity only
==================  ==============================================================

The rules are OpenSpiel's ``kuhn_poker``, step for step (``tests/test_kuhn_poker_rules.py`` plays both in
lockstep). The deck holds the cards 0 .. ``players`` (J, Q, K and, with three players, A); every player antes 1
chip and is dealt one card. The players act in seat order, ``player_0`` first, each passing (0) or betting (1)
one chip. While nobody has bet, a bet opens the betting; once somebody has bet, every other player acts once
more, in seat order after the first bettor: a bet calls, a pass folds. The hand ends

* when every player has passed and nobody bet: a showdown of all hands, the highest card wins the pot;
* when everybody has answered the first bet: the highest card among the players who bet or called wins.

The winner's reward is the pot minus his own contribution, every other player's minus his contribution (each
player's total: 1, or 2 if he bet or called). Two players: both pass, the higher card wins 1; bet and call,
the higher card wins 2; bet and fold, the bettor wins 1. The game's value for ``player_0`` under optimal play
is -1/18 (two players).

The deal. ``initial_state`` deals ``player_0`` a card uniformly from the deck, then ``player_1`` one of the
remaining cards, and so on (OpenSpiel's chance nodes in the same order: OpenSpiel's deal action for player
``q`` is farl's card of seat ``q``). The card nobody holds stays unseen by everybody.

Hidden information. The state keeps everything: all the cards, the betting history, who moved last. So
``get_state`` / ``set_state``, ``validate``, ``render_text`` and the ``rgb_array`` picture (a spectator's view)
see the full deal, and so do the records of the afterstate extension (``Afterstate.state`` is the full state;
its ``board`` is the mover's view, below). What a player may know is his own card and the public betting:

* ``observe(seat)`` shows exactly that (never another player's card, also not after a showdown: the rewards
  tell who won);
* the n-tuple board holds only the information of the player who made the last move: his own card and the
  betting history. Farl's n-tuple learners value an afterstate for the player who made it (V(s' | mover)),
  so a learner that reads boards never sees a hidden card. The player who moved last is stored in the state
  (it is also ``(ply - 1) mod players``), and the board of the start position, before anybody moved, holds no
  card.

What an afterstate means in a card game. A move here is the betting action. Its deterministic part, the
afterstate, is the betting history with the action appended (and, for the player who made it, his own card);
its hidden part is the others' cards, which from the mover's view are a chance outcome that was drawn
before the move and is revealed never (or only through the rewards). So the value a learner gives an
afterstate averages over the cards the others may hold, weighted by how often they hold them when the
betting went that way: the same thing a value of a 2048 afterstate does over the tiles to come. The
perfect-information searches (Max-N, Paranoid, MCTS, the search wrappers) would read the full state, the
others' cards included, and refuse this game (``farl_agents.opponents``); random play and learners that read
boards or observations play it fairly.

What the rewards of an afterstate tell. The action that ends the hand (a call, a fold, the last pass) gets
the chips at once, and at a showdown they depend on the others' cards: ``afterstate(action)`` of such an action
shows its mover the result before he acts (calling a bet with a queen: +2 or -2 tells the other card). A
player that chooses by ``reward + V(board)`` over the candidates, as farl's TD learners and ``farl serve``'s
value overlay do, therefore reads hidden information through those rewards; a fair learner values a
hand-ending candidate by what it knows (its board, trained towards the rewards it met), not by its reward.
Farl's n-tuple learners do not do that yet, so ``farl train`` refuses this game for them (and for the
searching families); the SB3 baselines (``--algo maskable-ppo``), which learn from a seat's observation alone,
train it.

State: the common header (the player to move is ``ply mod players``, also once the hand is over), then the
card of every seat (0 .. players), the player who moved last (-1 before any move), then one entry per
action of the betting, in order (-1 not played, 0 pass, 1 bet; at most ``2 * players - 1`` actions).

Version history: v0, first release.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from farl_envs.core.kernel_utils import copy_state
from farl_envs.core.rng import rng_below
from farl_envs.core.spec import HEADER, PLY, TERMINAL, TO_MOVE, GameSpec, check_header

PASS, BET = 0, 1
CARD_NAMES = "JQKA"
ACTION_NAMES = ("pass", "bet")


@njit(cache=True, inline="always")
def _last(p):
    """State index of the player who moved last."""
    return HEADER + p[0]


@njit(cache=True, inline="always")
def _hist(p):
    """State index of the first betting action."""
    return HEADER + p[0] + 1


@njit(cache=True)
def initial_state(p, rng):
    """Deal one card to each seat in turn (uniform over the cards left), ``player_0`` to act."""
    n = p[0]
    s = np.full(HEADER + 3 * n, -1, dtype=np.int32)
    s[TO_MOVE] = 0
    s[TERMINAL] = 0
    s[PLY] = 0
    used = np.zeros(n + 1, dtype=np.int64)
    for q in range(n):
        k = rng_below(rng, n + 1 - q)  # the k-th card not dealt yet
        for c in range(n + 1):
            if used[c] == 0:
                if k == 0:
                    s[HEADER + q] = c
                    used[c] = 1
                    break
                k -= 1
    return s


@njit(cache=True)
def first_bettor(p, s):
    """The seat that bet first, -1 if nobody has bet (a first bet always falls in the first n actions)."""
    h = _hist(p)
    for k in range(min(s[PLY], p[0])):
        if s[h + k] == BET:
            return k
    return -1


@njit(cache=True)
def did_bet(p, s, q):
    """Whether seat ``q`` put a second chip in (bet or called), OpenSpiel's ``DidBet``."""
    n, h = p[0], _hist(p)
    f = first_bettor(p, s)
    if f < 0:
        return False
    if q == f:
        return True
    k = q if q > f else n + q  # a seat after the first bettor answered in the first round, one before it later
    return k < s[PLY] and s[h + k] == BET


@njit(cache=True)
def hand_over(p, s):
    """True once the betting of ``s`` has ended the hand."""
    f = first_bettor(p, s)
    return s[PLY] == (p[0] if f < 0 else p[0] + f)


@njit(cache=True)
def legal_actions(p, s, mask):
    """Both actions while the hand runs (0 once it is over)."""
    mask[:] = 0
    if s[TERMINAL]:
        return 0
    mask[PASS] = 1
    mask[BET] = 1
    return 2


@njit(cache=True)
def afterstate(p, s, a, out, rewards):
    """The betting action ``a`` of the seat to act; the chips won or lost at the end of the hand."""
    copy_state(s, out)
    n = p[0]
    mover = s[TO_MOVE]
    ply = s[PLY]
    out[_hist(p) + ply] = a
    out[PLY] = ply + 1
    out[_last(p)] = mover
    out[TO_MOVE] = (ply + 1) % n
    rewards[:] = 0.0
    if hand_over(p, out):
        out[TERMINAL] = 1
        betting = first_bettor(p, out) >= 0
        winner, best = -1, -1
        pot = 0.0
        for q in range(n):
            stake = 1.0
            if did_bet(p, out, q):
                stake = 2.0
            pot += stake
            rewards[q] = -stake
            if (not betting or stake == 2.0) and out[HEADER + q] > best:
                best = out[HEADER + q]
                winner = q
        rewards[winner] += pot


@njit(cache=True)
def observe(p, s, seat, out):
    """OpenSpiel's information state tensor of ``seat``: the seat, its own card, the betting (one-hot each)."""
    n = p[0]
    out[:] = 0
    out[seat] = 1
    out[n + s[HEADER + seat]] = 1
    base, h = 2 * n + 1, _hist(p)
    for k in range(s[PLY]):
        out[base + 2 * k + s[h + k]] = 1


@njit(cache=True)
def board(p, s, out):
    """The last mover's card (+ 1; 0 before any move) and the betting so far (0 not played, 1 pass, 2 bet)."""
    last = s[_last(p)]
    out[0] = 0 if last < 0 else s[HEADER + last] + 1
    h = _hist(p)
    for k in range(2 * p[0] - 1):
        out[1 + k] = s[h + k] + 1


def validate(p, s) -> str:
    """Empty when ``s`` is a position of the game, else the reason."""
    n = int(p[0])
    msg = check_header(s, n, HEADER + 3 * n)
    if msg:
        return msg
    cards = [int(c) for c in s[HEADER:HEADER + n]]
    if any(not 0 <= c <= n for c in cards) or len(set(cards)) != n:
        return f"the cards must be {n} different cards of 0..{n}, got {cards}"
    ply = int(s[PLY])
    if ply > 2 * n - 1:
        return f"ply count must be in 0..{2 * n - 1}, got {ply}"
    hist = [int(x) for x in s[HEADER + n + 1:]]
    if any(x not in (PASS, BET) for x in hist[:ply]) or any(x != -1 for x in hist[ply:]):
        return f"the first {ply} betting entries must be 0 or 1 and the rest -1, got {hist}"
    if s[TO_MOVE] != ply % n:
        return "player to move does not match the ply count"
    if int(s[HEADER + n]) != ((ply - 1) % n if ply else -1):
        return "the last mover does not match the ply count"
    t = np.array(s, dtype=np.int32)
    for k in range(ply):  # the hand must not have ended before the last action
        t[PLY] = k
        if hand_over(p, t):
            return f"the hand was over after {k} actions"
    if bool(s[TERMINAL]) != bool(hand_over(p, s)):
        return "terminal flag must be set exactly when the betting has ended the hand"
    return ""


def returns(p, s) -> np.ndarray:
    """Each seat's chips won or lost in the finished position ``s`` (the sum of its rewards)."""
    t = np.array(s, dtype=np.int32)
    t[TERMINAL] = 0
    t[PLY] -= 1
    rew = np.zeros(int(p[0]))
    afterstate(p, t, int(s[HEADER + int(p[0]) + 1 + int(s[PLY]) - 1]), t, rew)
    return rew


def render_text(p, s) -> str:
    """The full deal (a spectator's view), the betting and the result or the player to act."""
    n = int(p[0])
    cards = " ".join(f"player_{q}:{CARD_NAMES[int(s[HEADER + q])]}" for q in range(n))
    bets = "".join("pb"[int(x)] for x in s[HEADER + n + 1:HEADER + n + 1 + int(s[PLY])]) or "-"
    if s[TERMINAL]:
        rew = returns(p, s)
        w = int(np.argmax(rew))
        status = f"player_{w} wins {rew[w]:+g}"
    else:
        status = f"player_{int(s[TO_MOVE])} to act"
    return f"{cards} | betting {bets} | {status}"


def public_text(p, s) -> str:
    """What everybody sees of a running hand: the betting and the player to act (no card)."""
    n = int(p[0])
    bets = "".join("pb"[int(x)] for x in s[HEADER + n + 1:HEADER + n + 1 + int(s[PLY])]) or "-"
    return f"betting {bets} | player_{int(s[TO_MOVE])} to act"


def seat_text(p, s, seat: int) -> str:
    """What ``seat`` may see of a running hand: its own card, the betting and the player to act (``farl serve``
    shows the full deal, :func:`render_text`, once the hand is over)."""
    return f"your card (player_{seat}): {CARD_NAMES[int(s[HEADER + seat])]} | {public_text(p, s)}"


def paint(p, s) -> np.ndarray:
    """One row per seat: its card, its action in the first and in the second round (``rgb_array``; the full
    deal, a spectator's view)."""
    n = int(p[0])
    grid = np.zeros((n, 3), dtype=np.int64)
    for q in range(n):
        grid[q, 0] = 3 + int(s[HEADER + q])
    for k in range(int(s[PLY])):
        grid[k % n, 1 + k // n] = 1 + int(s[HEADER + n + 1 + k])
    return grid


def symmetries(p) -> np.ndarray:
    """The identity only (the cards and the betting order have no symmetry)."""
    return np.arange(2 * int(p[0]), dtype=np.int32)[None, :]


def action_symmetries(p) -> np.ndarray:
    """The identity only, as :func:`symmetries`."""
    return np.arange(2, dtype=np.int32)[None, :]


def cell_neighbours(p) -> list[list[int]]:
    """Every other cell (the board is a short sequence, the drawn grid is not its layout): random-walk
    n-tuples may join the card with any action."""
    n_cells = 2 * int(p[0])
    return [[j for j in range(n_cells) if j != i] for i in range(n_cells)]


def make_spec(players: int = 2) -> GameSpec:
    """Kuhn poker for ``players`` (2 or 3; ``ValueError`` otherwise)."""
    if isinstance(players, bool) or players not in (2, 3):
        raise ValueError(f"players must be 2 or 3, got {players!r}")
    n = int(players)
    return GameSpec(
        name="kuhn_poker", version=0, params={"players": n}, p=np.array([n], dtype=np.int64),
        n_players=n, n_actions=2, state_size=HEADER + 3 * n, n_cells=2 * n, n_cell_values=n + 2,
        obs_shape=(6 * n - 1,), obs_high=1, max_plies=2 * n - 1, reward_range=(-2.0, 2.0 * (n - 1)),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate, board=board,
        observe=observe, validate=validate, render_text=render_text, symmetries=symmetries,
        action_symmetries=action_symmetries, action_names=ACTION_NAMES, hidden_information=True,
        rewards_are_amounts=True,
        cell_colors=((60, 60, 60), (150, 150, 150), (230, 170, 30), (90, 160, 90), (70, 120, 200),
                     (190, 70, 70), (150, 60, 190)),
        grid_shape=(n, 3), paint=paint, cell_neighbours=cell_neighbours,
    )
