"""Poker: GBG's heads-up Texas Hold'em, hands played until one player holds all the chips.

==================  ==============================================================
players             2 (``player_0``, ``player_1``; GBG allows more, farl plays
                    heads-up only)
parameters          ``hands=0`` (0: GBG's game, hands until one player holds
                    all 200 chips; k: an episode of at most k hands),
                    ``max_hands=100`` (with ``hands=0``, a cap: the game is cut
                    off, *truncated*, after that many hands)
actions             7: 0 ``fold``, 1 ``check``, 2 ``bet``, 3 ``call``, 4
                    ``raise``, 5 ``all-in``, 6 ``showdown`` (the only legal
                    action once the board is out and the betting over; its
                    afterstate shares out the pot)
rewards             at the end of the game only: each player's chip change
                    over the game divided by the 100 start chips (zero-sum;
                    in GBG's game +1 for the winner, -1 for the loser)
chance              every card: the deal of each hand and the flop, turn and
                    river (``chance``; the first hand in ``initial_state``)
hidden information  yes (``GameSpec.hidden_information``): a player sees his
                    own two hole cards, never the other's
observation         ``int8[119]``: own hole cards (one-hot, 52), the board
                    (one-hot, 52), the street (one-hot, 4), own and other
                    stack and chips in the pot (in units of 5 chips), own
                    button, the phase (one-hot, 5), hands left
n-tuple board       13 cells, P = 53: the last mover's two hole cards, the five
                    board cards (card + 1, 0 none), his and the other's stack
                    and pot chips (units of 5), the phase, the street
symmetries          the identity only
==================  ==============================================================

The rules are GBG's ``games/Poker`` (Konen & Bagheri's General Board Game playing framework, WolfgangKonen/GBG:
``StateObserverPoker``, ``PokerConfig``, ``Pots`` / ``Pot``), read for the facts and written anew here; where GBG
differs from common Hold'em it is followed and said so, where its code has an evident slip or says nothing the
common rule is taken, also said so.

Heads-up only: GBG's code is written for any number of seats (``PokerConfig.NUM_PLAYERS`` is 2), but more
seats would need players who go broke to drop out while the others play on (``GameSpec.eliminated``) and
multi-way side pots; farl leaves that for later.

The game. Each player starts with 100 chips; the blinds are 5 and 10 (``PokerConfig``). A game is a sequence of
hands; it ends when one player holds all 200 chips. Cards are ``rank * 4 + suit`` (rank 0 = two .. 12 = ace,
suits c d h s, as :mod:`farl_envs.games._poker_hands`); each card is dealt uniformly from those not yet dealt.

A hand (GBG's ``initRound``). GBG's *dealer* is ``player_0`` in the first hand and moves one seat on with every
hand. Each player gets two hole cards. The player after the dealer posts the small blind, the next one the big
blind: heads-up the dealer himself posts the **big** blind (GBG's own order; in casino heads-up play the button
posts the small blind). A stack too short for its blind posts what it has and is all-in. The player after the
big blind, heads-up the small blind, acts first before the flop; the big blind acts last and, when the small
blind only called, may still check or bet. Then come the flop (three cards), the turn and the river (one each),
each followed by a betting round while two players can still bet. GBG gives the first turn of a later round to
the player after the one who made the last action of the round before: heads-up, after check-check the same
player begins again, after a bet and a call the bettor begins (in casino play the big blind always begins).

The actions (GBG's ``setAvailableActions``), with *owed* the chips a player must add to match the highest
contribution to the pot and *stack* his chips behind:

* ``fold`` is always legal, also when checking is (GBG's choice); the other player wins the pot at once.
* ``check`` when nothing is owed.
* ``bet``: one big blind (10), when nothing is owed and the stack is more than 10.
* ``call``: add what is owed, when the stack is more than that (a stack of exactly what is owed goes all-in).
* ``raise``: add what is owed plus one big blind, when the stack is more than that. There is no limit on the
  number of raises in a round (GBG has none); the stacks end it.
* ``all-in``: the whole stack, always legal; the only bet larger than a big blind. When it is more than what is
  owed it counts as a raise and the other player acts again; otherwise it is a short call.

So a player who cannot cover a call may only fold or go all-in. A bet or raise gives the other player another
turn if he can still bet; a round ends when nobody owes a turn. GBG lets a player raise against an opponent who
is already all-in (the extra chips come back to him at the showdown, as a side pot only he can win); farl keeps
that, it changes nothing but the action count.

Side pots and the showdown. Whoever puts in more than an all-in player can match plays the difference as a side
pot the all-in player has no claim to. At the showdown each player's hand is the best five of his seven cards
(:func:`farl_envs.games._poker_hands.hand_value`); each pot goes to the best hand among the players who put that
much in and did not fold, split evenly on a tie. GBG keeps chips as floats and splits without an odd-chip rule;
heads-up every split is of a layer both put in equally, so each half is a whole number and farl keeps chips as
exact integers (every amount is a multiple of 5). When the betting is over before the river (a call of an
all-in) the remaining board is dealt without betting. The board being out, the showdown is one more step, the
``showdown`` action (taken by the player after the last mover), because farl's kernels pay rewards in
afterstates only and the chance event that deals the river pays none (as blackjack's ``settle``).

Where farl leaves GBG's code (each an evident slip there, the common rule here):

* GBG's hand evaluator (``findBestHand``) compares two flushes by their suit (always a tie heads-up) and breaks
  ties with one kicker only, and it scores four twos, and a full house of three twos, as three of a kind; farl
  ranks hands by the standard order (``_poker_hands``).
* GBG's showdown may pay part of a side pot to a player with the same hand value who has no claim to it; farl
  pays a pot only to players who put in its level.
* GBG keeps a player who went all-in posting a blind among those who must act (with an empty stack, so only
  fold, check or a zero all-in); farl, as every casino, lets a player who is all-in act no more.
* GBG deals out the whole board after a fold before it shares out the pot; farl ends the hand at the fold (the
  cards nobody sees change nothing).

Rewards and the game's end. GBG's game score is a player's chips minus his 100 start chips (``getGameScore``),
and its Poker is a final-reward game (``isFinalRewardGame``): the score counts once the game is over, +100 for
the winner and -100 for the loser. farl pays it as the reward of the move that ends the game, divided by the 100
start chips so that the return is +1 / -1 like a win or a loss in farl's other games (the range a tanh-valued
learner can reach); no hand before the last pays anything (the stacks, in the observation, show how a game
stands). One reward at the end also keeps the return exact (a sum of per-hand chip changes over 100 would
carry float rounding). GBG's Poker has no cap of its own: training runs
without one (``ParOther.episodeLength`` -1) and evaluation and play stop after GBG's generic "EpiLength Eval" moves
(``ParOther.stopEval``, 100 by default). farl's ``max_hands`` (default 100) is the cap outside the rules that
bounds every game, also one of two players who never bet (folding in turn trades the blinds forever):
the game ends *truncated*, each player's reward his chip change so far (over 100). ``hands=k`` is a different task, a
game of at most k hands (k = 1: every episode one hand, its return the chip change of that hand over 100), for
learning on shorter episodes; its end is a termination.

Hidden information. The state keeps everything (both players' hole cards), so ``get_state`` / ``set_state``,
``validate``, ``render_text`` and the ``rgb_array`` picture (a spectator's view) see both hands. ``observe(seat)``
shows only the seat's own hole cards and the public board, stacks and pot (never the other's cards, also not after
a showdown: the rewards tell who won); the n-tuple board only the view of the player who made the last move. No
chance outcome shown in ``infos[agent]["chance"]`` holds a hole card: it is a dict of ``new_hand`` (1 when a hand
was dealt) and ``board`` (the five board places, the card dealt there or -1). Unlike Kuhn poker, no afterstate's
reward tells a player a hidden card before he chooses: a fold's depends on no card, and the showdown's result
comes with the forced ``showdown`` step, which has no alternative. farl's searches refuse the game (they would
read the other's cards). ``farl train`` trains it with the families that learn from observations alone and, since
its move rewards are public (``GameSpec.move_rewards_public``), with TD on afterstates (``--algo td-farl`` / ``td``,
which rates the mover's own board); SARSA and Q rate the position before a move, the previous mover's view, and
stay refused.

References. ``make_opponent("equity", "poker")`` (:mod:`farl_agents.opponents.poker`) is a rule player on
the mover's own view: its Monte-Carlo equity against a random hand decides between fold, check / call (pot odds)
and bet / raise / all-in; ``make_opponent("call", "poker")`` always checks or calls. Both, and TD-FARL agents
trained on the game, are measured in ``docs/results/poker.md`` (``python -m studies.poker.learning``).

State: the common header, then the phase (0 betting, 1 cards owed, 2 showdown, 3 next hand owed, 4 over), the
number of hands started, the dealer, the street (0 pre-flop .. 3 river), the seat that made the last move, each
seat's stack, its chips in the pot of this hand, its folded flag and whether it still has to act in this round,
the four hole cards and the five board cards (-1 not dealt).

Version history: v0, first release.
"""
from __future__ import annotations

import numpy as np

from farl_envs.core.spec import TERMINAL, TO_MOVE, GameSpec, check_header
from farl_envs.games._poker_hands import RANKS, SUITS
from farl_envs.games._poker_rules import (  # the kernels; every name re-exported (__all__)
    ACTION_NAMES,
    ALL_IN,
    BET,
    BETTING,
    BIG_BLIND,
    BOARD,
    BUTTON,
    CALL,
    CARDS,
    CHECK,
    CHIP_UNIT,
    CHIPS,
    CONTRIB,
    DECK,
    FOLD,
    FOLDED,
    HAND,
    HOLE,
    MAX_PLIES_PER_HAND,
    MOVER,
    N_CELLS,
    N_SEATS,
    N_VALUES,
    NEW_HAND,
    OBS_HIGH,
    OBS_SIZE,
    OVER,
    P_HANDS,
    PENDING,
    PHASE,
    PHASE_NAMES,
    RAISE,
    SHOWDOWN,
    SHOWN,
    SMALL_BLIND,
    START_CHIPS,
    STATE_SIZE,
    STREET,
    STREET_NAMES,
    TOTAL_CHIPS,
    active_count,
    afterstate,
    apply_chance_outcome,
    board,
    chance,
    chance_outcome_count,
    hand_values,
    initial_state,
    is_active,
    legal_actions,
    observe,
    share_pot,
    to_call,
)

__all__ = [  # the kernels of _poker_rules, part of this module's namespace
    "FOLD", "CHECK", "BET", "CALL", "RAISE", "ALL_IN", "SHOWDOWN", "ACTION_NAMES", "BETTING", "CARDS", "SHOWN",
    "NEW_HAND", "OVER", "PHASE_NAMES", "STREET_NAMES", "N_SEATS", "START_CHIPS", "SMALL_BLIND", "BIG_BLIND",
    "CHIP_UNIT", "TOTAL_CHIPS", "DECK", "PHASE", "HAND", "BUTTON", "STREET", "MOVER", "CHIPS", "CONTRIB",
    "FOLDED", "PENDING", "HOLE", "BOARD", "STATE_SIZE", "MAX_PLIES_PER_HAND", "N_CELLS", "N_VALUES", "OBS_SIZE",
    "OBS_HIGH", "P_HANDS", "to_call", "is_active", "active_count", "hand_values", "share_pot", "initial_state",
    "legal_actions", "afterstate", "chance", "chance_outcome_count", "apply_chance_outcome", "board", "observe",
]


# ------------------------------------------------------------------------------------------------- Python helpers
def card_name(c: int) -> str:
    """``"As"``, ``"Td"``, ... for card ``c``; ``"??"`` for -1."""
    c = int(c)
    return "??" if c < 0 else RANKS[c >> 2] + SUITS[c & 3]


def hole_cards(s, seat: int) -> list[int]:
    return [int(c) for c in s[HOLE + 2 * seat:HOLE + 2 * seat + 2]]


def board_cards(s) -> list[int]:
    return [int(c) for c in s[BOARD:BOARD + 5] if c >= 0]


def public_text(p, s) -> str:
    """What both players see: the hand, the board, stacks and pot, and whose turn it is (no hole card)."""
    seats = " ".join(f"player_{q}:{int(s[CHIPS + q])}+{int(s[CONTRIB + q])}"
                     + (" folded" if s[FOLDED + q] else "") for q in range(N_SEATS))
    brd = " ".join(card_name(c) for c in board_cards(s)) or "-"
    phase = int(s[PHASE])
    if s[TERMINAL]:
        status = "over"
    elif phase in (BETTING, SHOWN):
        status = f"player_{int(s[TO_MOVE])} to {'act' if phase == BETTING else 'show down'}"
    else:
        status = PHASE_NAMES[phase]
    return (f"hand {int(s[HAND])} (dealer player_{int(s[BUTTON])}) {STREET_NAMES[int(s[STREET])]} | board {brd} | "
            f"stack+pot {seats} | {status}")


def seat_text(p, s, seat: int) -> str:
    """``seat``'s own hole cards and the public view."""
    return f"your cards (player_{seat}): {' '.join(card_name(c) for c in hole_cards(s, seat))} | {public_text(p, s)}"


def render_text(p, s) -> str:
    """Both players' hole cards (a spectator's view), then the public view."""
    holes = " ".join(f"player_{q}:{''.join(card_name(c) for c in hole_cards(s, q))}" for q in range(N_SEATS))
    return f"{holes} | {public_text(p, s)}"


def validate(p, s) -> str:
    """Empty when ``s`` is a position of the game, else the reason."""
    msg = check_header(s, N_SEATS, STATE_SIZE)
    if msg:
        return msg
    phase, street, hand = int(s[PHASE]), int(s[STREET]), int(s[HAND])
    if not 0 <= phase <= OVER:
        return f"phase must be in 0..{OVER}, got {phase}"
    if bool(s[TERMINAL]) != (phase == OVER):
        return "terminal flag must be set exactly in the phase 'over'"
    if not 0 <= street <= 3 or hand < 1 or int(s[BUTTON]) != (hand - 1) % N_SEATS:
        return "street must be 0..3, the hand count positive and the dealer seat (hand - 1) mod 2"
    if not -1 <= int(s[MOVER]) < N_SEATS:
        return "the last mover must be a seat or -1"
    chips = [int(x) for x in s[CHIPS:CHIPS + N_SEATS]]
    contrib = [int(x) for x in s[CONTRIB:CONTRIB + N_SEATS]]
    if min(chips + contrib) < 0 or sum(chips) + sum(contrib) != TOTAL_CHIPS:
        return f"stacks {chips} and pot chips {contrib} must be non-negative and hold {TOTAL_CHIPS} chips"
    if any(x % CHIP_UNIT for x in chips + contrib):
        return f"every amount is a multiple of {CHIP_UNIT}"
    if any(int(x) not in (0, 1) for x in s[FOLDED:FOLDED + 2 * N_SEATS]):
        return "folded and pending flags must be 0 or 1"
    if sum(int(x) for x in s[FOLDED:FOLDED + N_SEATS]) >= N_SEATS:
        return "at most one seat folds"
    if phase not in (NEW_HAND, OVER) and any(s[FOLDED:FOLDED + N_SEATS]):
        return "a fold ends the hand heads-up: nobody has folded in a running hand"
    if phase == NEW_HAND and min(chips) == 0:
        return "with a seat broke the game is over, no next hand"
    holes = [int(c) for c in s[HOLE:HOLE + 2 * N_SEATS]]
    brd = [int(c) for c in s[BOARD:BOARD + 5]]
    dealt = holes + [c for c in brd if c >= 0]
    if any(not 0 <= c < DECK for c in holes) or any(not -1 <= c < DECK for c in brd) or len(set(dealt)) != len(dealt):
        return "hole cards must be four different cards, board cards different cards or -1"
    n_board = (0, 3, 4, 5)[street]
    if any(c < 0 for c in brd[:n_board]) or any(c >= 0 for c in brd[n_board:]):
        return f"the {STREET_NAMES[street]} has {n_board} board cards"
    pending = [q for q in range(N_SEATS) if s[PENDING + q]]
    if any(not is_active(s, q) for q in pending):
        return "only a seat that is neither folded nor all-in can still have to act"
    if phase == BETTING:  # the one seat to act, or the first of a new round (the small blind before the flop)
        if not pending:
            return "in a betting round some seat has to act"
        first = (int(s[BUTTON]) + 1 if street == 0 else int(s[MOVER]) + 1) % N_SEATS
        want = first if len(pending) == N_SEATS else pending[0]
    else:  # afterstates and the showdown: the seat after the last mover
        want = (int(s[MOVER]) + 1) % N_SEATS
    if int(s[TO_MOVE]) != want:
        return f"player_{want} is to move, not player_{int(s[TO_MOVE])}"
    if phase == SHOWN and street != 3:
        return "a showdown needs the whole board"
    if phase in (NEW_HAND, OVER) and (any(contrib) or any(s[PENDING:PENDING + N_SEATS])):
        return "between hands the pot is empty and nobody is to act"
    if phase == OVER and min(chips) > 0:
        hands, cap = int(p[P_HANDS]), int(p[1])
        if hand < (hands if hands > 0 else cap):
            return "the game is over only when a seat is broke or the hands are played"
    return ""


def truncated(p, s) -> bool:
    """True when the finished game ``s`` was cut off by ``max_hands`` (``hands=0``, both players still hold
    chips) rather than ended by a player holding all the chips."""
    return bool(s[TERMINAL]) and int(p[P_HANDS]) == 0 and min(int(s[CHIPS + q]) for q in range(N_SEATS)) > 0


def chance_info(code: int) -> dict:
    """``infos[agent]["chance"]`` of outcome ``code``: whether a new hand was dealt (its hole cards are never
    shown) and the board cards dealt (-1 where none)."""
    code = int(code)
    return {"new_hand": code & 1,
            "board": tuple(((code >> (1 + 6 * i)) & 63) - 1 for i in range(5))}


def paint(p, s) -> np.ndarray:
    """Three rows of five (``rgb_array``, a spectator's view): ``player_0``'s hole cards, the board,
    ``player_1``'s hole cards, each card coloured by its suit (0 no card)."""
    grid = np.zeros((3, 5), dtype=np.int64)
    for j, c in enumerate(hole_cards(s, 0)):
        grid[0, j] = 1 + (c & 3)
    for i in range(5):
        c = int(s[BOARD + i])
        grid[1, i] = 0 if c < 0 else 1 + (c & 3)
    for j, c in enumerate(hole_cards(s, 1)):
        grid[2, j] = 1 + (c & 3)
    return grid


def symmetries(p) -> np.ndarray:
    """The identity only (suit permutations would map cards, not cells)."""
    return np.arange(N_CELLS, dtype=np.int32)[None, :]


def action_symmetries(p) -> np.ndarray:
    """The identity only, as :func:`symmetries`."""
    return np.arange(len(ACTION_NAMES), dtype=np.int32)[None, :]


def cell_neighbours(p) -> list[list[int]]:
    """Every other cell: the board is a record, not a layout (random-walk n-tuples may join any cells)."""
    return [[j for j in range(N_CELLS) if j != i] for i in range(N_CELLS)]


def _count(name: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= int(value) <= high:
        raise ValueError(f"{name} must be an integer in {low}..{high}, got {value!r}")
    return int(value)


def make_spec(hands: int = 0, max_hands: int = 100) -> GameSpec:
    """GBG's heads-up Hold'em: ``hands`` (0: until one player holds all the chips, cut off after ``max_hands``
    hands; k in 1..1000: at most k hands); ``ValueError`` on other values."""
    hands = _count("hands", hands, 0, 1000)
    max_hands = _count("max_hands", max_hands, 1, 1000)
    longest = hands if hands > 0 else max_hands
    colours = ((40, 90, 50), (30, 140, 60), (40, 90, 200), (200, 40, 40), (30, 30, 30))  # felt, c d h s
    return GameSpec(
        name="poker", version=0, params={"hands": hands, "max_hands": max_hands},
        p=np.array([hands, max_hands], dtype=np.int64),
        n_players=N_SEATS, n_actions=len(ACTION_NAMES), state_size=STATE_SIZE, n_cells=N_CELLS,
        n_cell_values=N_VALUES, obs_shape=(OBS_SIZE,), obs_high=OBS_HIGH, max_plies=MAX_PLIES_PER_HAND * longest,
        reward_range=(-1.0, 1.0), initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate,
        board=board, observe=observe, validate=validate, render_text=render_text, symmetries=symmetries,
        action_symmetries=action_symmetries, action_names=ACTION_NAMES, has_chance=True, chance=chance,
        chance_info=chance_info, hidden_information=True, rewards_are_amounts=True, move_rewards_public=True,
        truncated=truncated if hands == 0 else None,
        cell_colors=colours, grid_shape=(3, 5), paint=paint, cell_neighbours=cell_neighbours,
        chance_outcome_count=chance_outcome_count, apply_chance_outcome=apply_chance_outcome,
    )

