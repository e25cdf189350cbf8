"""Every rule and [decided] point of shared/rules/ninety-nine.md, and the seeds' examples."""
from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import InvalidCard, count_cards, french_deck
from engine.ninety_nine import (IllegalAction, Options, Play, State, apply, legal_actions,
                                new_game, is_over, view, winner)

DOKSAN = Options()
CLASSIC = Options(variant="classic")


def game(hands, total=0, options=DOKSAN, names=None, lives=None, stock=()):
    """A game whose seats hold ``hands`` (three cards each) and whose total is ``total``."""
    names = names or ["Ann", "Bob", "Cem", "Dan", "Eve", "Fay"][:len(hands)]
    deck = [c for h in hands for c in h] + list(stock)
    state = new_game(names, options, seed=7, deck=deck)
    if lives is not None:
        state = replace(state, lives=tuple(lives))
    return replace(state, total=total)


def types(events):
    return [e.type for e in events]


def lives_changes(events):
    return [(e.player, e.delta, e.reason) for e in events if e.type == "lives"]


# --- setting up -----------------------------------------------------------------------

def test_deal_three_each_rest_is_stock_and_seat_one_starts():
    s = new_game(["Ann", "Bob", "Cem"], seed=3)
    assert [len(h) for h in s.hands] == [3, 3, 3]
    assert len(s.stock) == 52 - 9
    assert s.turn == 0 and s.dealer == 2 and s.total == 0 and s.direction == 1
    assert s.lives == (10, 10, 10)


def test_stacked_deck_deals_in_blocks_and_stock_in_order():
    s = new_game(["Ann", "Bob"], seed=1, deck="AS,2S,3S,4H,5H,6H,7C,8C".split(","))
    assert s.hands == (("AS", "2S", "3S"), ("4H", "5H", "6H"))
    assert s.stock[:2] == ("7C", "8C")
    assert count_cards(s.stock + s.hands[0] + s.hands[1]) == count_cards(french_deck())


def test_stacked_deck_refuses_unknown_code_and_extra_copies():
    with pytest.raises(InvalidCard, match="not a card"):
        new_game(["Ann", "Bob"], deck=["ZZ"])
    with pytest.raises(InvalidCard, match="more often"):
        new_game(["Ann", "Bob"], deck=["AS", "AS"])
    # with two decks, two copies are fine
    s = new_game(["A", "B", "C", "D", "E", "F"], deck=["AS", "AS"])
    assert s.hands[0][:2] == ("AS", "AS")


def test_same_seed_same_game_and_different_seed_different_deal():
    assert new_game(["A", "B"], seed=5) == new_game(["A", "B"], seed=5)
    assert new_game(["A", "B"], seed=5).hands != new_game(["A", "B"], seed=6).hands


def test_deck_counts_by_variant_and_players():
    assert DOKSAN.deck_count(5) == 1 and DOKSAN.deck_count(6) == 2
    assert CLASSIC.deck_count(3) == 1 and CLASSIC.deck_count(4) == 2
    assert Options(decks=2).deck_count(2) == 2


def test_classic_chips_five_for_two_or_three_three_for_four_or_more():
    assert CLASSIC.starting_lives(3) == 5 and CLASSIC.starting_lives(4) == 3
    assert new_game(["A", "B"], CLASSIC).lives == (5, 5)
    assert new_game(["A", "B"], Options(lives=4)).lives == (4, 4)


def test_bad_player_lists_are_refused():
    with pytest.raises(ValueError):
        new_game(["Solo"])
    with pytest.raises(ValueError):
        new_game(["Ann", "ann"])


# --- card values ----------------------------------------------------------------------

@pytest.mark.parametrize("card,total,value,after", [
    ("3S", 10, None, 13), ("5S", 10, None, 15), ("8S", 10, None, 18),
    ("9S", 10, None, 10), ("JS", 10, None, 20), ("QS", 10, None, 20), ("KS", 10, None, 20),
    ("10S", 10, 10, 20), ("10S", 10, -10, 0), ("AS", 10, 1, 11), ("AS", 10, 11, 21),
    ("4S", 10, None, 14),
    ("2S", 56, None, 28), ("2S", 50, None, 25), ("2S", 48, None, 96), ("2S", 51, None, 102),
    ("2S", 13, None, 26),
])
def test_doksan_card_values(card, total, value, after):
    s = game([[card, "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], total=total)
    s, events = apply(s, Play(card, value))
    assert events[0].total_before == total and events[0].total == after
    if after <= 99:
        assert s.total == after


@pytest.mark.parametrize("card,value,after,label", [
    ("2S", None, 42, 2), ("4S", None, 40, "reverse"), ("9S", None, 40, 0),
    ("KS", None, 99, "set99"), ("JS", None, 50, 10), ("QS", None, 50, 10),
    ("AS", 11, 51, 11), ("10S", -10, 30, -10),
])
def test_classic_card_values(card, value, after, label):
    s = game([[card, "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], total=40,
             options=CLASSIC)
    s, events = apply(s, Play(card, value))
    assert s.total == after and events[0].value == label


# --- scoring: the seeds' worked examples ----------------------------------------------

def test_29_plus_7_is_36_costs_the_player_one():
    s = game([["7S", "3D", "3H"], ["5D", "5H", "5C"]], total=29)
    s, events = apply(s, Play("7S"))
    assert s.total == 36
    assert lives_changes(events) == [("Ann", -1, "exceed_33")]
    assert s.lives == (9, 10)


def test_56_and_a_two_is_28_costs_nothing():
    s = game([["2S", "3D", "3H"], ["5D", "5H", "5C"]], total=56)
    s, events = apply(s, Play("2S"))
    assert s.total == 28 and lives_changes(events) == []


def test_76_and_ten_minus_is_66_costs_nothing():
    s = game([["10S", "3D", "3H"], ["5D", "5H", "5C"]], total=76)
    s, events = apply(s, Play("10S", -10))
    assert s.total == 66 and lives_changes(events) == []


def test_53_and_a_two_is_106_costs_three_and_ends_the_round():
    s = game([["2S", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], total=53)
    s, events = apply(s, Play("2S"))
    assert lives_changes(events) == [("Ann", -1, "exceed_66"), ("Ann", -2, "bust")]
    assert s.lives == (7, 10, 10)
    end = next(e for e in events if e.type == "round_end")
    assert end.loser == "Ann" and end.winner is None
    assert s.total == 0 and s.round == 2 and all(len(h) == 3 for h in s.hands)


def test_hit_33_costs_every_other_player_one():
    s = game([["3S", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], total=30)
    s, events = apply(s, Play("3S"))
    assert lives_changes(events) == [("Bob", -1, "hit_33"), ("Cem", -1, "hit_33")]


def test_hit_66_from_below_costs_others_but_not_from_above():
    s = game([["6S", "3D", "3H"], ["5D", "5H", "5C"]], total=60)
    _, events = apply(s, Play("6S"))
    assert lives_changes(events) == [("Bob", -1, "hit_66")]


def test_33_doubled_to_66_costs_everyone_else_one_and_the_player_nothing():
    # the seeds: "exceeds 33 but does not reach 66" (Corrected)
    s = game([["2S", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], total=33)
    s, events = apply(s, Play("2S"))
    assert lives_changes(events) == [("Bob", -1, "hit_66"), ("Cem", -1, "hit_66")]
    assert s.lives == (10, 9, 9)


def test_33_doubled_to_66_also_charges_the_player_as_a_house_rule():
    s = game([["2S", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], total=33,
             options=Options(charge_passing_33_on_66=True))
    s, events = apply(s, Play("2S"))
    assert sorted(lives_changes(events)) == sorted(
        [("Ann", -1, "exceed_33"), ("Bob", -1, "hit_66"), ("Cem", -1, "hit_66")])


def test_passing_33_to_just_below_or_above_66_still_costs_the_player():
    s = game([["KS", "3D", "3H"], ["5D", "5H", "5C"]], total=30)
    assert lives_changes(apply(s, Play("KS"))[1]) == [("Ann", -1, "exceed_33")]  # 40
    s = game([["2S", "3D", "3H"], ["5D", "5H", "5C"]], total=31)  # 62
    assert lives_changes(apply(s, Play("2S"))[1]) == [("Ann", -1, "exceed_33")]


def test_leaving_a_threshold_upward_counts_and_can_be_turned_off():
    s = game([["5S", "3D", "3H"], ["5D", "5H", "5C"]], total=33)
    assert lives_changes(apply(s, Play("5S"))[1]) == [("Ann", -1, "exceed_33")]
    s = game([["5S", "3D", "3H"], ["5D", "5H", "5C"]], total=33,
             options=Options(leaving_threshold_counts=False))
    assert lives_changes(apply(s, Play("5S"))[1]) == []


def test_doubling_past_66_costs_the_player_one():
    s = game([["2S", "3D", "3H"], ["5D", "5H", "5C"]], total=35)
    _, events = apply(s, Play("2S"))
    assert lives_changes(events) == [("Ann", -1, "exceed_66")]


def test_hit_99_wins_the_round_and_costs_everyone_else_two():
    s = game([["KS", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], total=89)
    s, events = apply(s, Play("KS"))
    assert lives_changes(events) == [("Bob", -2, "hit_99"), ("Cem", -2, "hit_99")]
    end = next(e for e in events if e.type == "round_end")
    assert end.winner == "Ann" and end.loser is None
    assert s.total == 0


def test_plain_bust_costs_two():
    s = game([["KS", "3D", "3H"], ["5D", "5H", "5C"]], total=95)
    _, events = apply(s, Play("KS"))
    assert lives_changes(events) == [("Ann", -2, "bust")]


def test_nine_at_a_threshold_scores_nothing():
    s = game([["9S", "3D", "3H"], ["5D", "5H", "5C"]], total=33)
    _, events = apply(s, Play("9S"))
    assert lives_changes(events) == []


# --- ace and ten choices, illegal input ------------------------------------------------

def test_ten_minus_below_zero_is_refused_and_nothing_changes():
    s = game([["10S", "3D", "3H"], ["5D", "5H", "5C"]], total=5)
    with pytest.raises(IllegalAction, match="^below_zero"):
        apply(s, Play("10S", -10))
    assert Play("10S", -10) not in legal_actions(s)
    assert Play("10S", 10) in legal_actions(s)


def test_total_may_go_negative_as_a_house_rule():
    s = game([["10S", "3D", "3H"], ["5D", "5H", "5C"]], total=5,
             options=Options(total_may_go_negative=True))
    assert apply(s, Play("10S", -10))[0].total == -5


def test_ace_and_ten_need_a_value_and_others_refuse_one():
    s = game([["AS", "10D", "3H"], ["5D", "5H", "5C"]], total=5)
    with pytest.raises(IllegalAction, match="^value_needed"):
        apply(s, Play("AS"))
    with pytest.raises(IllegalAction, match="^value_needed"):
        apply(s, Play("10D", 5))
    with pytest.raises(IllegalAction, match="^no_value"):
        apply(s, Play("3H", 3))


def test_a_card_not_in_hand_is_refused():
    s = game([["AS", "10D", "3H"], ["5D", "5H", "5C"]])
    with pytest.raises(IllegalAction, match=r"^not_in_hand \(card=7C\)"):
        apply(s, Play("7C"))


def test_legal_actions_list_both_values():
    s = game([["AS", "10D", "3H"], ["5D", "5H", "5C"]], total=20)
    assert set(legal_actions(s)) == {Play("AS", 1), Play("AS", 11), Play("10D", 10),
                                     Play("10D", -10), Play("3H")}


# --- turns, draws, jack and four ------------------------------------------------------

def test_player_draws_after_playing_and_turn_passes():
    s = game([["3S", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], stock=["KC"])
    s, events = apply(s, Play("3S"))
    assert s.hands[0] == ("3D", "3H", "KC") and s.turn == 1
    assert types(events) == ["play", "draw", "turn"]


def test_jack_skips_the_next_player_with_three():
    s = game([["JS", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]])
    s, events = apply(s, Play("JS"))
    assert [e.player for e in events if e.type == "skip"] == ["Bob"]
    assert s.turn == 2


def test_jack_with_two_players_the_same_player_plays_again():
    s = game([["JS", "3D", "3H"], ["5D", "5H", "5C"]])
    s, events = apply(s, Play("JS"))
    assert s.turn == 0 and "skip" in types(events)


def test_jack_in_classic_does_not_skip():
    s = game([["JS", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], options=CLASSIC)
    s, events = apply(s, Play("JS"))
    assert s.turn == 1 and "skip" not in types(events)


def test_four_reverses_with_three_or_more():
    s = game([["4S", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]])
    s, events = apply(s, Play("4S"))
    assert s.direction == -1 and s.turn == 2
    assert [e.direction for e in events if e.type == "reverse"] == ["counterclockwise"]
    assert s.total == 4


def test_four_with_two_players_has_no_reversal():
    s = game([["4S", "3D", "3H"], ["5D", "5H", "5C"]])
    s, events = apply(s, Play("4S"))
    assert s.direction == 1 and s.turn == 1 and "reverse" not in types(events)


def test_classic_four_is_zero_and_reverses():
    s = game([["4S", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], total=20,
             options=CLASSIC)
    s, events = apply(s, Play("4S"))
    assert s.total == 20 and s.direction == -1 and s.turn == 2


def test_new_round_is_clockwise_with_next_dealer_and_first_player():
    s = game([["4S", "3D", "3H"], ["5D", "KH", "5C"], ["6D", "6H", "6C"]], total=90)
    s, _ = apply(s, Play("4S"))  # reversed: Cem next
    assert s.turn == 2 and s.direction == -1
    s, events = apply(s, Play("6D"))  # 100: bust, round over
    assert s.round == 2 and s.direction == 1 and s.total == 0
    assert s.dealer == 0 and s.turn == 1
    start = next(e for e in events if e.type == "round_start")
    assert (start.dealer, start.first) == ("Ann", "Bob")


# --- the stock ------------------------------------------------------------------------

def test_empty_stock_reshuffles_discards_but_keeps_the_top_card():
    s = game([["3S", "3D", "3H"], ["5D", "5H", "5C"]], total=10)
    rest = s.stock
    s = replace(s, stock=(), discards=rest)
    top = rest[-1]
    s, events = apply(s, Play("3S"))
    assert "reshuffle" in types(events)
    # the top card when Ann draws is her 3S: everything under it became the stock
    assert s.discards == ("3S",) and s.total == 13 and top in s.stock + s.hands[0]
    assert len(s.hands[0]) == 3 and len(s.stock) == len(rest) - 1


# --- lives, chips and the end of the game ---------------------------------------------

def test_elimination_at_zero_lives_and_hand_goes_to_discards():
    s = game([["3S", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], total=30,
             lives=[3, 1, 2])
    s, events = apply(s, Play("3S"))
    assert [e.player for e in events if e.type == "eliminated"] == ["Bob"]
    assert s.active == (True, False, True) and s.hands[1] == ()
    assert s.discards[-1] == "3S" and set(["5D", "5H", "5C"]) <= set(s.discards)
    assert s.turn == 2


def test_player_eliminated_by_own_play_leaves_and_play_goes_on():
    s = game([["7S", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], total=29,
             lives=[1, 5, 5])
    s, events = apply(s, Play("7S"))
    assert "eliminated" in types(events) and not s.active[0] and s.turn == 1
    assert s.hands[0] == ()


def test_last_player_standing_wins():
    s = game([["3S", "3D", "3H"], ["5D", "5H", "5C"]], total=30, lives=[4, 1])
    s, events = apply(s, Play("3S"))
    assert is_over(s) and winner(s) == "Ann"
    assert types(events)[-1] == "game_over" and legal_actions(s) == []
    with pytest.raises(IllegalAction):
        apply(s, Play("3D"))


def test_no_one_left_standing_the_player_who_played_wins():
    # 33 doubled, with the house rule: Ann exceeds 33 (her last life) and hits 66 (Bob's
    # last life) [decided]
    s = game([["2S", "3D", "3H"], ["5D", "5H", "5C"]], total=33, lives=[1, 1],
             options=Options(charge_passing_33_on_66=True))
    s, events = apply(s, Play("2S"))
    assert winner(s) == "Ann"
    assert [e.player for e in events if e.type == "eliminated"] == ["Bob"]


def test_a_bust_after_the_last_life_is_gone_announces_no_zero_loss():
    # 1 life, 53 doubled to 106: exceeding 66 takes the last life; the bust takes nothing
    s = game([["2S", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], total=53,
             lives=[1, 5, 5])
    s, events = apply(s, Play("2S"))
    assert lives_changes(events) == [("Ann", -1, "exceed_66")]
    assert all(e.delta != 0 for e in events if e.type == "lives")
    assert [e.player for e in events if e.type == "eliminated"] == ["Ann"]
    assert "round_end" in types(events) and not s.active[0]


def test_a_jack_that_knocks_its_player_out_still_skips_the_next_player():
    s = game([["JS", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"], ["7D", "7H", "7C"]],
             total=30, lives=[1, 5, 5, 5])  # 40: exceeds 33, Ann's last life
    s, events = apply(s, Play("JS"))
    assert [e.player for e in events if e.type == "eliminated"] == ["Ann"]
    assert [e.player for e in events if e.type == "skip"] == ["Bob"]
    assert s.turn == 2


def test_a_four_that_knocks_its_player_out_still_reverses():
    s = game([["4S", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"], ["7D", "7H", "7C"]],
             total=31, lives=[1, 5, 5, 5])  # 35: exceeds 33, Ann's last life
    s, events = apply(s, Play("4S"))
    assert [e.player for e in events if e.type == "eliminated"] == ["Ann"]
    assert [e.direction for e in events if e.type == "reverse"] == ["counterclockwise"]
    assert s.direction == -1 and s.turn == 3


def test_classic_bust_costs_one_chip_and_ends_the_round():
    s = game([["KS", "3D", "3H"], ["5D", "5H", "5C"]], total=97, options=CLASSIC)
    s, events = apply(s, Play("3D"))
    assert lives_changes(events) == [("Ann", -1, "bust")] and s.lives == (4, 5)
    assert s.round == 2


def test_classic_player_at_zero_chips_is_still_in_until_paying_with_none():
    s = game([["KS", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], total=97,
             options=CLASSIC, lives=[1, 5, 5])
    s, events = apply(s, Play("3D"))
    assert s.lives[0] == 0 and s.active[0] and "eliminated" not in types(events)
    s = game([["8S", "3D", "3H"], ["5D", "5H", "5C"], ["6D", "6H", "6C"]], total=95,
             options=CLASSIC, lives=[0, 5, 5])
    s, events = apply(s, Play("8S"))
    out = [e for e in events if e.type == "eliminated"]
    assert [(e.player, e.reason) for e in out] == [("Ann", "cannot_pay")]
    assert lives_changes(events) == [] and not s.active[0] and s.round == 2


def test_classic_king_sets_99():
    s = game([["KS", "3D", "3H"], ["5D", "5H", "5C"]], total=12, options=CLASSIC)
    s, events = apply(s, Play("KS"))
    assert s.total == 99 and lives_changes(events) == [] and s.round == 1


def test_classic_must_play_even_when_every_card_busts():
    s = game([["5S", "6D", "7H"], ["5D", "5H", "5C"]], total=99, options=CLASSIC)
    assert len(legal_actions(s)) == 3
    s, events = apply(s, Play("5S"))
    assert lives_changes(events) == [("Ann", -1, "bust")]


# --- views and saves ------------------------------------------------------------------

def test_view_shows_own_hand_and_legal_actions_only_to_the_player_to_move():
    s = game([["3S", "3D", "3H"], ["5D", "5H", "5C"]])
    v0, v1 = view(s, 0), view(s, 1)
    assert v0.hand == ("3S", "3D", "3H") and v1.hand == ("5D", "5H", "5C")
    assert v0.legal and not v1.legal
    assert not hasattr(v0, "hands") and not hasattr(v0, "stock")


def test_save_round_trip_and_damaged_saves_are_refused():
    s = new_game(["Ann", "Bob", "Cem"], CLASSIC, seed=4)
    s, _ = apply(s, legal_actions(s)[0])
    assert State.from_json(s.to_json()) == s
    data = s.to_json()
    with pytest.raises(ValueError, match="another version"):
        State.from_json(dict(data, version=99))
    with pytest.raises(ValueError, match="not a saved"):
        State.from_json({"hello": 1})
    with pytest.raises(ValueError, match="damaged"):
        State.from_json(dict(data, stock=data["stock"][1:]))
    with pytest.raises(ValueError, match="damaged"):
        State.from_json(dict(data, lives="x"))


def test_house_rule_options_are_saved_and_older_saves_load_with_the_default():
    s = new_game(["Ann", "Bob"], Options(charge_passing_33_on_66=True), seed=4)
    data = s.to_json()
    assert data["options"]["charge_passing_33_on_66"] is True
    assert State.from_json(data) == s
    older = dict(data, options={k: v for k, v in data["options"].items()
                                if k != "charge_passing_33_on_66"})
    assert State.from_json(older).options.charge_passing_33_on_66 is False


# --- properties over random games -----------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(2, 7),
       variant=st.sampled_from(["doksan", "classic"]), lives=st.integers(1, 4))
def test_random_games_conserve_cards_keep_ranges_and_end_with_one_winner(
        seed, players, variant, lives):
    import random
    rng = random.Random(seed)
    options = Options(variant=variant, lives=lives)
    s = new_game([f"P{i}" for i in range(players)], options, seed=seed)
    deck = count_cards(french_deck(options.deck_count(players)))
    for _ in range(5000):
        if is_over(s):
            break
        actions = legal_actions(s)
        assert actions and s.active[s.turn]
        s, _ = apply(s, rng.choice(actions))
        assert count_cards(s.stock + s.discards + tuple(c for h in s.hands for c in h)) == deck
        assert 0 <= s.total and (s.total <= 99 or is_over(s))
        assert all(x >= 0 for x in s.lives)
        assert all(len(h) <= 3 for h in s.hands)
        assert all(not h for h, a in zip(s.hands, s.active) if not a)
    assert is_over(s) and sum(s.active) == 1 and s.active[s.winner]
    assert State.from_json(s.to_json()) == s
