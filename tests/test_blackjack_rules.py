"""Blackjack against independent facts: hand totals, blackjack against 21, the dealer's final totals by a brute
force enumeration written here, the published infinite-deck returns (Wizard of Odds, appendix 5), the DP
optimum against the chart, and basic strategy played in the game against its exact value."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from numba import njit

import farl_envs
from farl_agents.opponents import BasicStrategyPlayer, make_opponent
from farl_envs.core.rng import make_rng
from farl_envs.core.spec import TERMINAL
from farl_envs.games import _blackjack_ev as ev
from farl_envs.games import blackjack as bj

GAME = farl_envs.game_spec("blackjack")


def make_state(player, up, hole=0, split=None, phase=bj.ACT, final=0, doubled=False):
    """A position with the player's hand ``player`` (a list of card values; ``split``: the second hand)."""
    s = np.zeros(bj.STATE_SIZE, dtype=np.int32)
    s[bj.UP] = up
    s[bj.DEALER_CARDS] = up
    s[bj.DEALER_N] = 1
    for c in player:
        bj._add_card(s, 0, c)
    if split is not None:
        s[bj.SPLIT_DONE] = 1
        for c in split:
            bj._add_card(s, 1, c)
    if doubled:
        s[bj.HANDS + bj.H_DOUBLED] = 1
    s[bj.HOLE] = hole
    s[bj.PHASE] = phase
    s[bj.DEALER_FINAL] = final
    return s


def legal(s):
    mask = np.zeros(GAME.n_actions, dtype=np.int8)
    bj.legal_actions(GAME.p, s, mask)
    return [bj.ACTION_NAMES[a] for a in np.flatnonzero(mask)]


def settle(s):
    out = s.copy()
    rewards = np.zeros(1)
    bj.afterstate(GAME.p, s, bj.SETTLE, out, rewards)
    assert out[TERMINAL] == 1
    return rewards[0]


@pytest.mark.parametrize("cards,total,soft", [
    ([1, 6], 17, True), ([1, 6, 10], 17, False), ([1, 1], 12, True), ([1, 1, 10], 12, False),
    ([1, 10], 21, True), ([1, 1, 9], 21, True), ([10, 6], 16, False), ([10, 6, 10], 26, False),
    ([1, 5, 5], 21, True), ([1, 5, 6], 12, False), ([1, 1, 1, 1], 14, True),
])
def test_hand_totals_count_one_ace_as_eleven_when_it_fits(cards, total, soft):
    s = make_state(cards, up=5)
    assert bj.hand_total(s, 0) == total
    assert bj.is_soft(s[bj.HANDS + bj.H_HARD], s[bj.HANDS + bj.H_ACE]) == soft


def test_a_blackjack_pays_three_to_two_and_twenty_one_of_three_cards_is_ordinary():
    assert bj.player_blackjack(make_state([10, 1], up=9))
    assert settle(make_state([10, 1], up=9, phase=bj.DECIDED)) == 1.5
    assert settle(make_state([10, 1], up=1, hole=10, phase=bj.DECIDED, final=bj.DEALER_BLACKJACK)) == 0.0
    assert settle(make_state([10, 9], up=1, hole=10, phase=bj.DECIDED, final=bj.DEALER_BLACKJACK)) == -1.0
    three = make_state([5, 6, 10], up=9, phase=bj.DECIDED, final=21)
    assert not bj.player_blackjack(three) and settle(three) == 0.0  # 21 against the dealer's 21: a push
    split = make_state([1, 10], up=9, split=[1, 7], phase=bj.DECIDED, final=19)
    assert not bj.player_blackjack(split) and settle(split) == 1.0 - 1.0  # 21 wins 1, 18 loses 1


@pytest.mark.parametrize("hand,split,final,doubled,want", [
    ([10, 8], None, 17, False, 1.0), ([10, 8], None, 18, False, 0.0), ([10, 8], None, 19, False, -1.0),
    ([10, 8], None, bj.BUST, False, 1.0), ([10, 8, 5], None, 0, False, -1.0), ([10, 8, 5], None, bj.BUST, False, -1.0),
    ([5, 6, 9], None, 19, True, 2.0), ([5, 6, 2], None, 19, True, -2.0), ([8, 3], [8, 10], 18, False, -1.0),
    ([8, 10, 5], [8, 10, 5], 0, False, -2.0), ([8, 3, 10], [8, 10], bj.BUST, False, 2.0),
])
def test_payouts(hand, split, final, doubled, want):
    s = make_state(hand, up=7, hole=10, split=split, phase=bj.DECIDED, final=final, doubled=doubled)
    assert settle(s) == want


def test_double_on_two_cards_split_a_pair_once_and_settle_alone_once_decided():
    assert legal(make_state([8, 8], up=10)) == ["stand", "hit", "double", "split"]
    assert legal(make_state([10, 1 + 9], up=10)) == ["stand", "hit", "double", "split"]  # ten-valued pair
    assert legal(make_state([8, 7], up=10)) == ["stand", "hit", "double"]
    assert legal(make_state([8, 3, 2], up=10)) == ["stand", "hit"]
    assert legal(make_state([8, 8], up=10, split=[8])) == ["stand", "hit", "double"]  # DAS, no resplit
    assert legal(make_state([10, 9], up=10, phase=bj.DECIDED, final=20)) == ["settle"]


def test_a_split_deals_each_hand_its_second_card_in_turn_and_split_aces_get_one_card():
    rng = make_rng(3)
    s = make_state([1, 1], up=6)
    out, rew = s.copy(), np.zeros(1)
    bj.afterstate(GAME.p, s, bj.SPLIT, out, rew)
    assert out[bj.SPLIT_DONE] == 1 and bj.hand_cards(out, 0) == [1] and bj.hand_cards(out, 1) == [1]
    bj.chance(GAME.p, out, rng)  # both aces get one card, then the dealer plays
    assert len(bj.hand_cards(out, 0)) == len(bj.hand_cards(out, 1)) == 2
    assert out[bj.PHASE] == bj.DECIDED and out[bj.DEALER_FINAL] >= 17
    s = make_state([8, 8], up=6)
    bj.afterstate(GAME.p, s, bj.SPLIT, out, rew)
    bj.chance(GAME.p, out, rng)
    assert out[bj.ACTIVE] == 0 and len(bj.hand_cards(out, 0)) == 2 and bj.hand_cards(out, 1) == [8]


def _brute_force_dealer(up, hits_soft17):
    """The dealer's final totals for up card ``up``, every card sequence enumerated with exact fractions,
    blackjacks removed and the rest renormalised (his peek ruled them out)."""
    p = {v: Fraction(1, 13) for v in range(1, 10)}
    p[10] = Fraction(4, 13)
    dist = {}

    def walk(cards, prob):
        hard = sum(cards)
        total = hard + 10 if 1 in cards and hard + 10 <= 21 else hard
        soft = total != hard
        if len(cards) == 2 and total == 21:
            return  # a blackjack
        if len(cards) >= 2 and (total > 17 or total == 17 and not (hits_soft17 and soft)):
            key = 22 if total > 21 else total
            dist[key] = dist.get(key, 0) + prob
            return
        for v, q in p.items():
            walk(cards + [v], prob * q)

    walk([up], Fraction(1))
    norm = sum(dist.values())
    return {k: v / norm for k, v in dist.items()}


@pytest.mark.parametrize("hits_soft17", [False, True])
def test_the_dealers_final_totals_match_a_brute_force_enumeration(hits_soft17):
    for up in range(1, 11):
        want = _brute_force_dealer(up, hits_soft17)
        got = ev.dealer_distribution(up, hits_soft17)
        assert set(got) == set(want)
        for k in want:
            assert got[k] == pytest.approx(float(want[k]), abs=1e-13)


def test_the_env_deals_the_dealer_the_distribution_it_should():
    """The compiled dealer (with the face-down card drawn late, never the one that would have made the
    blackjack) against the exact distribution under an ace: 40,000 plays, every total within 4.5 s.e."""
    up, n = 1, 40_000
    finals = _dealer_finals(GAME.p, up, n, make_rng(11))
    want = ev.dealer_distribution(up)
    for k, q in want.items():
        got = np.mean(finals == k)
        assert abs(got - q) < 4.5 * np.sqrt(q * (1 - q) / n), (k, got, q)


@njit(cache=True)
def _dealer_finals(p, up, n, rng):
    out = np.zeros(n, dtype=np.int64)
    s = np.zeros(bj.STATE_SIZE, dtype=np.int32)
    for i in range(n):
        s[bj.UP] = up
        s[bj.HOLE] = 0
        out[i] = bj.dealer_play(p, s, rng)
    return out


def test_the_dp_reproduces_the_published_infinite_deck_house_edge_and_hand_returns():
    """Wizard of Odds, Blackjack appendix 5 ("Expected Returns with Infinite Decks"): S17, double after split,
    unlimited resplits (aces not resplit), one card to split aces: house edge 0.5093975 %; and the table's
    returns of two-card hands against an up card, the dealer having no blackjack."""
    assert ev.expected_return("optimal", resplits=None) == pytest.approx(-0.005093975, abs=5e-10)
    published = {(2, (2, 3)): -0.1282, (6, (2, 3)): -0.0012, (10, (7, 9)): -0.5398, (6, (5, 6)): 0.6674,
                 (2, (2, 10)): -0.2534, (1, (4, 7)): 0.1430, (7, (6, 10)): -0.4148, (9, (3, 6)): -0.0522}
    for (up, cards), want in published.items():
        assert ev.hand_values(up, resplits=None)[cards] == pytest.approx(want, abs=5e-5)


def test_farls_rules_basic_strategy_and_optimum():
    """One split and no resplit cost the player 0.061 points against the published game; the chart loses
    0.0008 points to the optimum, all in two cells (below)."""
    basic, best = ev.expected_return("basic"), ev.expected_return("optimal")
    assert best == pytest.approx(-0.0057039, abs=1e-7) and basic == pytest.approx(-0.0057119, abs=1e-7)
    assert ev.expected_return("optimal", hits_soft17=True) == pytest.approx(-0.0078921, abs=1e-7)


def test_the_dp_optimum_plays_the_chart_except_soft_13_against_5_and_soft_15_against_4():
    """Every two-card start against every up card: the DP's best action is the chart's, except A-2 against 5
    and A-4 against 4, where the multi-deck chart doubles and the infinite shoe's optimum hits (by 0.0074 and
    0.0009 of a bet)."""
    differ = set()
    for up in range(1, 11):
        best = ev.hand_values(up, "optimal")
        chart = ev.hand_values(up, "basic")
        for cards in best:
            if best[cards] - chart[cards] > 1e-12:
                differ.add((up, cards))
    assert differ == {(4, (1, 4)), (5, (1, 2)), (5, (2, 2))}  # 2-2 against 5 splits into A-2 sometimes


@njit(cache=True)
def _play_basic(p, rounds, rng, hard_chart, soft_chart, pair_chart):
    total = 0.0
    total_sq = 0.0
    rewards = np.zeros(1)
    for _ in range(rounds):
        s = bj.initial_state(p, rng)
        ret = 0.0
        while s[1] == 0:
            a = ev.chart_action(p, s, hard_chart, soft_chart, pair_chart)
            bj.afterstate(p, s, a, s, rewards)
            ret += rewards[0]
            if s[1] == 0:
                bj.chance(p, s, rng)
        total += ret
        total_sq += ret * ret
    return total, total_sq


def test_basic_strategy_played_in_the_game_earns_its_exact_value():
    """300,000 rounds of the chart through the game's own kernels: the mean return within 4 s.e. of the DP."""
    n = 300_000
    total, total_sq = _play_basic(GAME.p, n, make_rng(2026), ev.HARD, ev.SOFT, ev.PAIRS)
    mean = total / n
    se = np.sqrt((total_sq / n - mean * mean) / n)
    assert abs(mean - ev.expected_return("basic")) < 4 * se, (mean, se)


def test_the_basic_strategy_opponent_plays_blackjack_only():
    player = make_opponent("basic-strategy", "blackjack")
    assert isinstance(player, BasicStrategyPlayer)
    s = make_state([10, 6], up=10)
    assert bj.ACTION_NAMES[player.act(GAME, s, make_rng(0))] == "hit"
    assert bj.ACTION_NAMES[player.act(GAME, make_state([5, 6], up=6), make_rng(0))] == "double"
    assert bj.ACTION_NAMES[player.act(GAME, make_state([8, 8], up=10), make_rng(0))] == "split"
    assert bj.ACTION_NAMES[player.act(GAME, make_state([5, 6, 2], up=6), make_rng(0))] == "stand"
    with pytest.raises(ValueError, match="blackjack only"):
        make_opponent("basic-strategy", "tictactoe")


@pytest.mark.parametrize("params", [{"decks": -1}, {"decks": 9}, {"decks": True}, {"decks": 1.5},
                                    {"dealer_hits_soft17": 1}, {"dealer_hits_soft17": "yes"}])
def test_bad_parameters_are_refused_with_the_allowed_values(params):
    with pytest.raises(ValueError, match="decks|dealer_hits_soft17"):
        farl_envs.make("blackjack", **params)


def test_a_finite_shoe_hides_the_face_down_card_and_deals_from_its_counts():
    spec = farl_envs.game_spec("blackjack", decks=1)
    assert spec.hidden_information and not GAME.hidden_information
    rng = make_rng(5)
    for _ in range(200):
        s = spec.initial_state(spec.p, rng)
        dealt = 4
        assert int(s[bj.SHOE:bj.SHOE + 10].sum()) == 52 - dealt and 1 <= s[bj.HOLE] <= 10
        board = np.zeros(bj.N_CELLS, dtype=np.int32)
        spec.board(spec.p, s, board)
        if s[bj.DEALER_FINAL] == 0:
            t = s.copy()
            t[bj.HOLE] = 1 + (s[bj.HOLE] % 10)  # another face-down card: the same board
            other = np.zeros(bj.N_CELLS, dtype=np.int32)
            spec.board(spec.p, t, other)
            assert board.tolist() == other.tolist()
        assert spec.validate(spec.p, s) == ""


def test_the_enumerated_chance_outcomes_sum_to_one_and_match_the_dealer_dp():
    """The searches' enumeration of a chance event: probabilities sum to 1 after a hit, a split and a stand,
    and the dealer's finals are the DP's."""
    p = GAME.p
    for state, action in ((make_state([10, 2], up=7), bj.HIT), (make_state([8, 8], up=6), bj.SPLIT),
                          (make_state([10, 7], up=1), bj.STAND), (make_state([5, 6], up=10), bj.DOUBLE)):
        after, rew = state.copy(), np.zeros(1)
        bj.afterstate(p, state, action, after, rew)
        n = bj.chance_outcome_count(p, after)
        total = 0.0
        for i in range(n):
            t = after.copy()
            total += bj.apply_chance_outcome(p, t, i)
            assert t[bj.PHASE] in (bj.ACT, bj.DECIDED)
        assert total == pytest.approx(1.0, abs=1e-12)
    out = np.zeros(6)
    for up in range(1, 11):
        bj.dealer_final_probabilities(p, up, out)
        want = ev.dealer_distribution(up)
        assert out.tolist() == pytest.approx([want.get(17 + k, 0.0) for k in range(6)], abs=1e-13)


def test_the_game_tree_walked_through_the_kernels_gives_the_dp_value_of_basic_strategy():
    """exact_return plays the chart through the game's own kernels (deal, peek, split, double, the enumerated
    chance events, settle) and sums the tree: the DP's value to rounding."""
    value = ev.exact_return(GAME, lambda s: ev.basic_strategy_action(GAME, s))
    assert value == pytest.approx(ev.expected_return("basic"), abs=1e-13)
    with pytest.raises(ValueError, match="infinite shoe"):
        ev.exact_return(farl_envs.game_spec("blackjack", decks=2), lambda s: 0)


def test_the_declared_n_tuple_set_is_sized_by_itself_not_by_the_random_sets_settings():
    """P = 23 makes Q-learning's default random-walk size (10 tuples of 6 cells, 5 outputs: 27.6 GiB) too big;
    the fixed set of eight 4-tuples builds with those settings otherwise."""
    from farl_agents.learners.agent import NTupleAgent
    from farl_agents.learners.config import LearnerConfig

    agent = NTupleAgent("blackjack", LearnerConfig(algo="q", ntuples="fixed", tanh_output=False))
    assert agent.tuples.tolist() == [list(t) for t in bj.FIXED_NTUPLES]
    with pytest.raises(ValueError, match="GiB"):
        NTupleAgent("blackjack", LearnerConfig(algo="q"))
