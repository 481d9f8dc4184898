"""The poker hand evaluator against independent facts: the category counts of all five-card hands, hand-checked
seven-card comparisons (kickers, the wheel, split pots)."""

import numpy as np

from farl_envs.games._poker_hands import (
    FLUSH,
    FULL_HOUSE,
    STRAIGHT,
    TWO_PAIR,
    card,
    category,
    five_card_category_counts,
    hand_value,
)


def value(text):
    return hand_value(np.array([card(name) for name in text.split()], np.int64))


def test_all_five_card_hands_give_the_known_category_counts():
    counts, royal = five_card_category_counts()
    assert counts.tolist() == [1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40]
    assert royal == 4 and counts.sum() == 2_598_960


def test_seven_card_hands_by_hand():
    # the wheel is five-high: any six-high straight beats it
    assert category(value("As 2d 3c 4h 5s Kd Kc")) == STRAIGHT
    assert value("As 2d 3c 4h 5s Kd Kc") < value("2d 3c 4h 5s 6d Kc Qh")
    # kickers: the same pair, the third kicker decides; the sixth and seventh cards do not count
    assert value("Ah Ad Kc Qs 9h 3c 2d") > value("As Ac Kd Qh 8s 7c 6d")
    assert value("Ah Ad Kc Qs 9h 3c 2d") == value("As Ac Kd Qh 9s 4c 2h")  # split pot
    # three pairs: the best two, the third pair's rank as kicker if it is the highest left
    assert category(value("Kh Kd 7c 7s 5h 5c 2d")) == TWO_PAIR
    assert value("Kh Kd 7c 7s 5h 5c 2d") == value("Ks Kc 7h 7d 5d 3c 2h")
    # two trips make a full house with the higher one on top
    assert category(value("9h 9d 9c 4s 4h 4c Ad")) == FULL_HOUSE
    assert value("9h 9d 9c 4s 4h 4c Ad") > value("8h 8d 8c As Ah 2c 3d")
    # a flush beats a straight among the same seven cards; board flush with a higher hole card
    assert category(value("2h 5h 7h 9h Jh Td 8c")) == FLUSH
    assert value("2h 5h 7h 9h Jh Ah 3c") > value("2h 5h 7h 9h Jh Kh 3c")
    # five to seven cards give the same value when the extra cards do not help
    assert value("As Ks Qs Js Ts") == value("As Ks Qs Js Ts 2d 3c")
