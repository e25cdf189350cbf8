"""What a player hears, from real engine events: "you" for the one person at the table,
their own count after "everyone else loses a life", the last life and "on the board", a
reverse said once, concise bot moves, Sixty-Six tricks and hand ends that say why."""
from __future__ import annotations

from dataclasses import replace

from engine import ninety_nine as nn
from voice.games.ninety_nine import NinetyNineTalk
from voice.lang import Language

EN = Language.load("en")


def after(state, card, value=None, humans=(0,), verbose=False):
    state, events = nn.apply(state, nn.Play(card, value))
    return NinetyNineTalk(EN, verbose=verbose).announce(events, state, list(humans))


def table(players=("Ann", "Strong 2"), variant="doksan", deck=("9S", "9H", "9D", "3S", "4H", "2D"),
          **changes):
    state = nn.new_game(list(players), nn.Options(variant=variant), seed=1, deck=list(deck))
    return replace(state, **changes)


def test_everyone_else_loses_a_life_and_you_hear_your_own_count():
    said = after(table(total=30, turn=1), "3S")
    assert said[:3] == ["Strong 2: three of spades. Total 33.",
                        "Strong 2 hits 33: everyone else loses a life.",
                        "You have 9 lives left."]
    assert "Strong 2's turn." not in said and said[-1] == "Ann, your turn."


def test_the_last_life_is_said_plainly():
    said = after(table(total=30, turn=1, lives=(2, 10)), "3S")
    assert "You have 1 life left." in said and "You are on your last life." in said
    said = after(table(total=30, lives=(10, 2), deck=("3S", "9H", "9D", "9C", "4H", "2D")), "3S")
    assert "Strong 2 is on the last life." in said and said[0] == "You play three of spades. Total 33."


def test_classic_zero_chips_is_on_the_board_not_a_puzzle():
    said = after(table(variant="classic", total=95, lives=(1, 5),
                       deck=("8S", "9H", "9D", "9C", "4H", "2D")), "8S")
    assert "You went over 99 and lose 1 chip. 0 chips left." in said
    assert "You are on the board: one more loss and you are out." in said


def test_a_four_reverses_once_and_says_nothing_of_it_with_two_players():
    two = after(table(variant="classic", total=30, turn=1), "4H")
    assert two[0] == "Strong 2: four of hearts. Total 30." and not any("revers" in s for s in two)
    three = after(table(players=("Ann", "Strong 2", "Strong 3"), variant="classic", total=30,
                        turn=1, deck=("9S", "9H", "9D", "4S", "5H", "5D", "9C", "8C", "7C")), "4S")
    assert three[0] == "Strong 2: four of spades. Total 30."
    assert sum("revers" in s.lower() for s in three) == 1


def test_verbose_says_every_turn_and_move_in_full():
    said = after(table(total=30, turn=1), "3S", verbose=True)
    assert said[0] == "Strong 2 plays three of spades. Total 33."
    said = after(table(total=10, deck=("9S", "QH", "9D", "3S", "4H", "2D")), "9S", verbose=True)
    assert "Strong 2's turn." in said


def test_several_people_at_one_device_are_named():
    said = after(table(players=("Ann", "Bob"), total=30, turn=1), "3S", humans=(0, 1))
    assert said[:2] == ["Bob: three of spades. Total 33.",
                        "Bob hits 33: everyone else loses a life."]
    assert "You have 9 lives left." not in said


def test_sixty_six_says_once_that_you_can_claim_and_never_with_strict_memory():
    from engine import sixty_six as ss
    from test_sixty_six import position
    from voice.games.sixty_six import SixtySixTalk
    start = position(hands=(("AH", "KH", "QH", "9D", "JD", "AC"), ("9H", "JH", "10H", "QC", "KC", "10C")),
                     won=(("AS", "10S", "AD", "10D", "KS", "QS", "KD", "QD"), ("JS", "9S")),
                     stock=("JC", "9C"), trump_card="9C", trump_suit="C", leader=0, turn=0)
    state, _ = ss.apply(start, ss.Play("AH"))
    state, events = ss.apply(state, ss.Play("9H"))        # Ada takes 11 more: 67
    talk = SixtySixTalk(EN)
    said = talk.announce(events, state, [0])
    assert said[:2] == ["Bo plays the nine of hearts.",
                        "You take the trick, ace of hearts and nine of hearts: 11 points for you."]
    assert said[-2:] == ["You have 67 points: you can claim sixty-six.", "Ada, your turn."]
    assert talk.announce(events, state, [0])[-1] == "Ada, your turn."   # said once
    assert not any("claim" in line for line in talk.announce(events, state, [0]))
    strict = SixtySixTalk(EN, strict_memory=True)
    assert not any("claim" in line for line in strict.announce(events, state, [0]))


def test_the_rules_are_explained_by_voice_in_each_game(tmp_path):
    from cli_runner import talking_cards
    asked = "rules\nhow does 33 work\nwhat happens at 99\nhow do i score\n"
    doksan = talking_cards("play", "--players", "Ann", "--bots", "strong", "--mute", "--seed", "1",
                           stdin=asked)
    assert "Pass 33 from 33 or below and you lose one, unless your play lands exactly on 66." \
        in doksan.stdout
    assert "Hit 99 exactly and you win the round" in doksan.stdout
    assert "You start with 10 lives." in doksan.stdout
    classic = talking_cards("play", "--game", "classic", "--players", "Ann", "--bots", "strong",
                            "--mute", "--seed", "1", stdin=asked)
    assert "In Classic Ninety-Nine nothing happens at 33." in classic.stdout
    sixty_six = talking_cards("play", "--game", "sixty-six", "--players", "Ann", "--bots",
                              "random", "--mute", "--seed", "1", stdin=asked)
    assert "A won hand scores 1 game point if the loser has 33 or more" in sixty_six.stdout
