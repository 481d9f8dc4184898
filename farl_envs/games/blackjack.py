"""Blackjack: one player against a dealer who plays a fixed rule; every card is a chance event.

(Longer than farl's usual 400 lines: the kernels below are the one source of the deal, the cards owed, the
dealer's play and the enumeration of those chance events for the searches, with both shoe models, and this
docstring, the game's page, says why drawing the face-down card late is exact and what an afterstate is.)

==================  ==============================================================
players             1 (``player_0``); the dealer is part of the environment
parameters          ``decks=0`` (0: an infinite shoe, cards drawn with
                    replacement; 1..8: that many 52-card decks, shuffled
                    before every round), ``dealer_hits_soft17=False``
actions             5: 0 ``stand``, 1 ``hit``, 2 ``double``, 3 ``split``,
                    4 ``settle`` (the only legal action once the round is
                    decided; its afterstate pays the bet and ends the game)
rewards             the chips won or lost on a bet of 1, all on ``settle``:
                    +1.5 for a blackjack, +-1 per hand, +-2 per doubled hand
                    (from -4 to +4 with a split)
chance              the deal (``initial_state``), each card drawn after
                    ``hit`` / ``double`` / ``split`` and the dealer's play after
                    the last hand stands (``chance``)
hidden information  none with the infinite shoe (the default); with ``decks``
                    the dealer's face-down card (``GameSpec.hidden_information``)
observation         ``int8[12]``, the n-tuple board below
n-tuple board       12 cells, P = 23: the phase, the dealer's up card, the
                    dealer's final total, the split state, then for each of two
                    hands its total, soft flag, cards code and done flag
symmetries          the identity only
==================  ==============================================================

One round per episode: the player bets 1 chip, gets two cards, the dealer one card face up and one face down;
the player plays his hand(s), the dealer plays his, the bet is settled. GBG plays 15 rounds with chips
(``BlackJackConfig.episodeLength``), always betting 10; with a fixed bet and an infinite shoe the rounds are
independent and alike, so an episode of one round has the same expected return per round and its return is
the quantity the references below compute exactly (the house edge).

Rules (GBG's ``games/BlackJack`` where it is sensible; the differences are listed):

* Cards count their pip value, J, Q, K count 10, an ace 1 or 11. A hand's total counts one ace as 11 when
  that keeps it at 21 or below (then the hand is *soft*), every other ace as 1.
* A *blackjack* is an ace and a ten-valued card as the first two cards of an unsplit hand. It pays 3:2
  (+1.5) unless the dealer has one too (a push, 0); 21 of more cards, or after a split, is an ordinary 21.
* The dealer peeks: with an ace or a ten-valued card up, he checks his face-down card for a blackjack, and
  when he has one the round is decided at once (the player loses his one chip unless he has a blackjack too;
  he never gets to double or split into it).
* The player may **hit** (take a card) and **stand** while his hand is below 21; a hand of 21 or more is
  finished by itself (GBG's ``Hand.isHandFinished``). **Double**: on any first two cards, also after a split
  (DAS), the bet doubles and the hand gets exactly one more card. **Split**: a pair of two cards of the same
  value (GBG: the same rank; here a ten and a king are a pair too, which basic strategy never splits) becomes
  two hands of one card each, with a second bet; each gets its second card when its turn comes. One split per
  round (GBG allows three hands); split aces get one card each and nothing more (GBG lets them play on).
* The dealer stands on all 17s (GBG's ``Dealer``: he draws below 17, a soft 17 included in 17), or with
  ``dealer_hits_soft17=True`` he hits a soft 17. A dealer who busts pays every hand that did not bust;
  otherwise the higher total wins and equal totals push.
* No insurance and no surrender (GBG offers both; neither changes basic strategy's other decisions).

The shoe. With ``decks=0`` (the default, as Gymnasium's ``Blackjack-v1`` and GBG's ``Deck``) every card is
drawn with replacement: ace .. nine with probability 1/13 each, a ten-valued card with 4/13. Then the
expected return of any policy is a finite sum, computed exactly by dynamic programming in
:mod:`farl_envs.games._blackjack_ev` (basic strategy: -0.5712 %, the optimal policy -0.5704 % under these rules).
With ``decks=k`` the round is dealt from ``k`` full decks shuffled before the round (the counts of the cards
left are in the state), in the casino's order: the player's card, the dealer's up card, the player's card,
the dealer's face-down card.

Beside the other suites. Gymnasium's ``Blackjack-v1`` also draws with replacement and lets the dealer stand on
soft 17, but offers only hit and stick, pays a natural 1 (1.5 with ``natural=True``), has no peek (a dealer's
blackjack meets a player's 21 as a push) and pays at once; OpenSpiel's ``blackjack`` deals from one 52-card
deck, offers hit and stand, pays +-1, and keeps the dealer's face-down card as hidden information. farl's
default is the casino game GBG models, with the shoe of the first.

References. ``make_opponent("basic-strategy", "blackjack")`` (:mod:`farl_agents.opponents.blackjack`) plays the
standard chart for these rules, GBG's ``BasicStrategyChart`` without its surrender cells; its exact return and
the optimal policy's come from :func:`farl_envs.games._blackjack_ev.expected_return`, whose dynamic program
reproduces the published infinite-deck house edge (0.5093975 % under S17, DAS, unlimited resplits, one card to
split aces: Wizard of Odds, Blackjack appendix 5) and that page's table of hand returns
(``tests/test_blackjack_rules.py``). Under farl's rules (one split) the optimum is -0.5704 % and the chart
-0.5712 %: the chart is optimal everywhere except soft 13 against a 5 and soft 15 against a 4, which the
multi-deck chart doubles and the infinite shoe's optimum hits. With ``dealer_hits_soft17=True`` the optimum
is -0.7892 %. The n-tuple learners (``farl train blackjack --algo td|q|sarsa``, with or without FARL) train
on the infinite shoe; ``docs/results/blackjack.md`` has their returns beside these.

The dealer's face-down card. With the infinite shoe it is not drawn at the deal: the peek is a chance event
of its own (a blackjack with probability 4/13 under an ace, 1/13 under a ten), and without a blackjack the
card is drawn when the dealer plays, from the shoe without the card that would have made the blackjack.
That gives every sequence of cards the probability it has when the card is drawn at the deal, because with
replacement the face-down card is independent of every card the player sees after it, and the peek's
answer is all the player ever learns about it. So the game is one of perfect information with chance: the
state holds nothing the player does not see, and farl's n-tuple learners (TD, Q, SARSA) train on it. With a
finite shoe that argument fails (the cards the player draws depend on the card under the dealer's up card),
so there the card is dealt at the deal, kept in the state and hidden: ``hidden_information`` is set, and
``observe`` and the n-tuple board never show it. (No reward tells it either, the payout coming only on
``settle``; but ``farl train`` refuses the n-tuple learners on every game with hidden information, so with
``decks`` it trains the families that learn from observations alone, SB3's.)

What an afterstate means here. An action's deterministic part is the player's decision with nothing drawn
yet: ``stand`` gives the hand finished at its total (the dealer still to play), ``hit`` the same hand with a
card owed to it, ``double`` the doubled hand with its one card owed, ``split`` the two one-card hands. The
chance event that ``chance`` draws after it is every card dealt before the player's next decision: the card
owed, the second card of the next split hand when the first is finished, and the dealer's whole play (his
face-down card and his draws) once every hand is finished; ``infos[agent]["chance"]`` shows it as
``{"card": c, "next_hand_card": c2, "dealer_total": d}`` (0 where nothing was dealt; 22 a dealer's bust).
Because farl's kernels pay rewards only in afterstates (``afterstate`` writes the reward; ``chance`` writes
none), a round that chance has decided is paid by one more step, the only legal action ``settle``, whose
afterstate ends the game with the chips won or lost. So the value of an afterstate is the expected payout of
the round from there, which is what an n-tuple learner's V(afterstate) learns, and no afterstate's reward
tells the player anything chance has not yet shown him.

The n-tuple board (also the observation), 12 cells, P = 23:

====  ==============================================================================================
0     phase: 0 the player acts, 1 a card is owed, 2 the dealer is to play, 3 decided (``settle``), 4 over
1     the dealer's up card (1 ace .. 10)
2     the dealer's final total: 0 not played yet, 1 blackjack, 17 .. 21, 22 bust
3     split state: 0 one hand, 1 split and playing the first hand, 2 split and playing the second
4-7   the first hand: its total (0 no hand, 2 .. 21, 22 bust), soft (0 / 1), its cards (0 none, 1 one card,
      2 two cards that may be split, 3 two cards, 4 three or more, 5 doubled), finished (0 / 1)
8-11  the second hand, the same cells (all 0 without a split)
====  ==============================================================================================

State: the common header, then the phase, the split flag and the active hand, the dealer's up card, his
face-down card (0 while it is not drawn), his final total code, the two hands (hard total counting aces as 1,
ace flag, number of cards, doubled, finished, and up to 21 cards each), the dealer's cards (up to 21), and
with a finite shoe the counts of the ten card values left.

Version history: v0, first release.
"""
from __future__ import annotations

import numpy as np

from farl_envs.core.spec import TERMINAL, TO_MOVE, GameSpec, check_header
from farl_envs.games._blackjack_rules import (  # the kernels; every name re-exported (__all__)
    ACT,
    ACTION_NAMES,
    ACTIVE,
    BUST,
    CARD_NAMES,
    CARD_OWED,
    DEALER_BLACKJACK,
    DEALER_CARDS,
    DEALER_FINAL,
    DEALER_N,
    DEALER_TO_PLAY,
    DECIDED,
    DOUBLE,
    H_ACE,
    H_CARDS,
    H_DONE,
    H_DOUBLED,
    H_HARD,
    H_N,
    HAND_SIZE,
    HANDS,
    HIT,
    HOLE,
    MAX_CARDS,
    MAX_DECKS,
    N_CELLS,
    N_VALUES,
    OVER,
    P_DECKS,
    P_H17,
    PHASE,
    PHASE_NAMES,
    SETTLE,
    SHOE,
    SPLIT,
    SPLIT_DONE,
    STAND,
    STATE_SIZE,
    UP,
    _add_card,
    _give_card,
    _hand,
    _hand_finished,
    _walk_outcomes,
    afterstate,
    apply_chance_outcome,
    best_total,
    board,
    can_split,
    card_probability,
    chance,
    chance_outcome_count,
    dealer_final_probabilities,
    dealer_play,
    draw_card,
    hand_total,
    initial_state,
    is_soft,
    legal_actions,
    observe,
    payout,
    player_blackjack,
)

__all__ = [  # the kernels of _blackjack_rules, part of this module's namespace
    "STAND", "HIT", "DOUBLE", "SPLIT", "SETTLE", "ACTION_NAMES", "ACT", "CARD_OWED", "DEALER_TO_PLAY",
    "DECIDED", "OVER", "PHASE_NAMES", "BUST", "DEALER_BLACKJACK", "MAX_CARDS", "MAX_DECKS", "CARD_NAMES",
    "P_DECKS", "P_H17", "PHASE", "SPLIT_DONE", "ACTIVE", "UP", "HOLE", "DEALER_FINAL", "HANDS", "H_HARD",
    "H_ACE", "H_N", "H_DOUBLED", "H_DONE", "H_CARDS", "HAND_SIZE", "DEALER_N", "DEALER_CARDS", "SHOE",
    "STATE_SIZE", "N_CELLS", "N_VALUES", "best_total", "is_soft", "_hand", "draw_card", "_add_card",
    "hand_total", "player_blackjack", "can_split", "initial_state", "legal_actions", "_hand_finished", "payout",
    "afterstate", "dealer_play", "_give_card", "chance", "card_probability", "dealer_final_probabilities",
    "_walk_outcomes", "chance_outcome_count", "apply_chance_outcome", "board", "observe",
]

# ------------------------------------------------------------------------------------------------- Python helpers
def hand_cards(s, h: int) -> list[int]:
    """The cards of hand ``h`` in the order dealt."""
    b = int(_hand(h))
    return [int(c) for c in s[b + H_CARDS:b + H_CARDS + int(s[b + H_N])]]


def dealer_cards(s) -> list[int]:
    """The dealer's cards as far as the player may see them: the up card, and all of them once he played
    (or had a blackjack)."""
    n = int(s[DEALER_N])
    return [int(c) for c in s[DEALER_CARDS:DEALER_CARDS + n]]


def _cards_text(cards) -> str:
    return " ".join(CARD_NAMES[c] for c in cards)


def _hand_text(s, h: int) -> str:
    b = int(_hand(h))
    hard, ace = int(s[b + H_HARD]), bool(s[b + H_ACE])
    t = best_total(hard, ace)
    what = "bust" if t > 21 else ("soft " if is_soft(hard, ace) else "") + str(t)
    extra = " doubled" if s[b + H_DOUBLED] else ""
    return f"{_cards_text(hand_cards(s, h))} ({what}{extra})"


def render_text(p, s) -> str:
    """The dealer's cards as the player sees them, the player's hand(s), and the phase (or the result)."""
    d = dealer_cards(s)
    final = int(s[DEALER_FINAL])
    dealer = _cards_text(d) + (" ?" if len(d) == 1 else "")
    if final == DEALER_BLACKJACK:
        dealer += " (blackjack)"
    elif final:
        dealer += " (bust)" if final == BUST else f" ({final})"
    hands = [_hand_text(s, h) for h in range(1 + int(s[SPLIT_DONE]))]
    if len(hands) == 2:
        hands = [("> " if int(s[ACTIVE]) == h and s[PHASE] == ACT else "") + t for h, t in enumerate(hands)]
    if player_blackjack(s):
        hands[0] += " blackjack"
    status = PHASE_NAMES[int(s[PHASE])]
    if s[PHASE] in (DECIDED, OVER):
        status += f", the player wins {payout(p, s):+g}"
    return f"dealer: {dealer} | player: {' | '.join(hands)} | {status}"


def validate(p, s) -> str:
    """Empty when ``s`` is a position of the game, else the reason."""
    msg = check_header(s, 1, STATE_SIZE)
    if msg:
        return msg
    if s[TO_MOVE] != 0:
        return "the player to move is always player_0"
    phase = int(s[PHASE])
    if not 0 <= phase <= OVER:
        return f"phase must be in 0..{OVER}, got {phase}"
    if bool(s[TERMINAL]) != (phase == OVER):
        return "terminal flag must be set exactly in the phase 'over'"
    if not 1 <= s[UP] <= 10 or not 0 <= s[HOLE] <= 10:
        return "the dealer's cards must be 1..10 (the face-down card 0 while not drawn)"
    if s[SPLIT_DONE] not in (0, 1) or not 0 <= s[ACTIVE] <= s[SPLIT_DONE]:
        return "split flag must be 0 or 1 and the active hand one of the hands"
    for h in range(1 + int(s[SPLIT_DONE])):
        b = int(_hand(h))
        cards = hand_cards(s, h)
        if not 1 <= len(cards) <= MAX_CARDS or any(not 1 <= c <= 10 for c in cards):
            return f"hand {h} must hold 1..{MAX_CARDS} cards of value 1..10, got {cards}"
        if int(s[b + H_HARD]) != sum(cards) or bool(s[b + H_ACE]) != (1 in cards):
            return f"hand {h}'s total and ace flag do not match its cards {cards}"
    final = int(s[DEALER_FINAL])
    if final not in (0, DEALER_BLACKJACK, *range(17, 23)):
        return f"the dealer's final total must be 0, 1 (blackjack) or 17..22, got {final}"
    if p[P_DECKS] == 0 and s[HOLE] and final == 0:
        return "with the infinite shoe the face-down card is drawn only when the dealer plays"
    if phase in (DECIDED, OVER) and final == 0 and not player_blackjack(s) \
            and any(hand_total(s, h) <= 21 for h in range(1 + int(s[SPLIT_DONE]))):
        return "a decided round with a live hand needs the dealer's final total"
    return ""


def paint(p, s) -> np.ndarray:
    """The n-tuple board as a 3 x 4 picture (``rgb_array``): phase, dealer, split state; the two hands."""
    out = np.zeros(N_CELLS, dtype=np.int32)
    board(p, s, out)
    return out.reshape(3, 4).astype(np.int64)


def chance_info(code: int) -> dict:
    """``infos[agent]["chance"]`` of outcome ``code``: the card dealt to the active hand, the second split
    hand's second card and the dealer's final total (22 bust), each 0 when not dealt."""
    code = int(code)
    return {"card": code % 11, "next_hand_card": (code // 11) % 11, "dealer_total": code // 121}


def symmetries(p) -> np.ndarray:
    """The identity only."""
    return np.arange(N_CELLS, dtype=np.int32)[None, :]


def action_symmetries(p) -> np.ndarray:
    """The identity only."""
    return np.arange(len(ACTION_NAMES), dtype=np.int32)[None, :]


def cell_neighbours(p) -> list[list[int]]:
    """Every other cell: the board is a short record, not a layout, so random-walk n-tuples may join any
    cells (the dealer's card with a hand's total above all)."""
    return [[j for j in range(N_CELLS) if j != i] for i in range(N_CELLS)]


FIXED_NTUPLES = ((0, 1, 4, 5, 6), (3, 1, 4, 5, 7), (3, 1, 8, 9, 10), (0, 1, 8, 9, 11), (2, 4, 6, 8, 10))
"""A hand-made set of five 5-tuples (23^5 weights each), each a whole context: the phase, the dealer's card and
the first hand's total, softness and cards (every decision and afterstate of an unsplit hand); the split state
with each hand; the dealer's final total with both hands' totals and cards (the payout, which Q and SARSA value
on the decided state). docs/results/blackjack.md compares it with eight 4-tuples that split these contexts."""


def make_spec(decks: int = 0, dealer_hits_soft17: bool = False) -> GameSpec:
    """Blackjack with ``decks`` (0: infinite shoe, or 1..8 decks) and the dealer's soft-17 rule."""
    if isinstance(decks, bool) or not isinstance(decks, (int, np.integer)) or not 0 <= int(decks) <= MAX_DECKS:
        raise ValueError(f"decks must be an integer in 0..{MAX_DECKS} (0: the infinite shoe), got {decks!r}")
    if not isinstance(dealer_hits_soft17, (bool, np.bool_)):
        raise ValueError(f"dealer_hits_soft17 must be True or False, got {dealer_hits_soft17!r}")
    decks, h17 = int(decks), bool(dealer_hits_soft17)
    shades = tuple((20 + 10 * v, 60 + 8 * v, 40 + 4 * v) for v in range(N_VALUES))
    return GameSpec(
        name="blackjack", version=0, params={"decks": decks, "dealer_hits_soft17": h17},
        p=np.array([decks, int(h17)], dtype=np.int64),
        n_players=1, n_actions=len(ACTION_NAMES), state_size=STATE_SIZE, n_cells=N_CELLS, n_cell_values=N_VALUES,
        obs_shape=(N_CELLS,), obs_high=N_VALUES - 1, max_plies=2 * MAX_CARDS + 4, reward_range=(-4.0, 4.0),
        initial_state=initial_state, legal_actions=legal_actions, afterstate=afterstate, board=board,
        observe=observe, validate=validate, render_text=render_text, symmetries=symmetries,
        action_symmetries=action_symmetries, action_names=ACTION_NAMES, has_chance=True, chance=chance,
        chance_info=chance_info, hidden_information=decks > 0, cell_colors=shades, grid_shape=(3, 4), paint=paint,
        cell_neighbours=cell_neighbours, fixed_ntuples=FIXED_NTUPLES,
        chance_outcome_count=chance_outcome_count, apply_chance_outcome=apply_chance_outcome,
    )
