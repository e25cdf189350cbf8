"""Never a move the player did not choose, by voice: synthesized speech in WAV files, the real
PocketSphinx recognizer and the real session, checked through the events file."""
from __future__ import annotations

import pytest

from cli_runner import read_events, talking_cards
from speech_clips import espeak_available, synthesize

pytestmark = pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")

# Ann: 6S 5S 3S; Bob: KH QH 2H; then the stock.
DECK = "6S,5S,3S,KH,QH,2H,9C,9D,8C,8D,7C,7D"


def by_voice(tmp_path, spoken, *extra, game=("--players", "Ann,Bob", "--deck", DECK)):
    events = tmp_path / "events.jsonl"
    result = talking_cards("play", *game, "--seed", "5", "--mute", "--backend", "sphinx",
                           "--events", str(events), *extra,
                           "--wav", *[str(synthesize(text)) for text in spoken], timeout=240)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout, read_events(events)


def plays_of(log, player="Ann"):
    return [e["card"] for e in log if e["type"] == "play" and e["player"] == player]


def test_reflex_yes_and_no_with_nothing_asked_never_become_a_move(tmp_path):
    out, log = by_voice(tmp_path, ["yes", "yes", "no", "yes", "yes"])
    assert plays_of(log) == [], out
    assert "Nothing was asked" in out or "Sorry" in out


def test_a_card_not_in_hand_is_never_played_for_it(tmp_path):
    out, log = by_voice(tmp_path, ["play the seven", "yes", "seven", "yes"])
    assert plays_of(log) == [], out


def test_a_move_that_costs_lives_when_another_would_not_is_asked_first(tmp_path):
    """At 30 Ann's five passes 33 (a life) while her three or nine would not: her first
    "five" is turned down with "no", and only the "yes" after the second one plays it."""
    deck = "KS,5S,3S,QH,KH,9H,QS,9D,9C,8C,8D,7C"
    spoken = ["play the king", "yes", "play the queen", "yes", "play the queen", "yes",
              "play the nine", "yes", "five", "no", "five", "yes"]
    out, log = by_voice(tmp_path, spoken, game=("--players", "Ann,Bob", "--deck", deck))
    assert plays_of(log) == ["KS", "QS", "5S"], out
    assert plays_of(log, "Bob") == ["QH", "9H"], out
    assert "Five costs you 1 life, and another card would not." in out or "Five?" in out


def test_the_costly_play_is_named_with_its_cost():
    from dataclasses import replace
    from engine import ninety_nine as nn
    from voice.games.ninety_nine import NinetyNineTalk
    from voice.lang import Language
    from voice.understand.grammar import Intent
    state = replace(nn.new_game(["Ann", "Bob"], seed=1, deck=["5S", "3S", "9C", "QH", "KH", "9H"]),
                    total=30)
    menu = NinetyNineTalk(Language.load("en")).turn(state, 0, None)
    costly = menu.resolve(Intent("play", rank="5"))
    assert costly.caution == ("Five costs you 1 life, and another card would not. "
                              "Are you sure? Say yes or no.")
    assert menu.resolve(Intent("play", rank="3")).caution is None


def test_closing_and_claiming_by_voice_are_asked_first(tmp_path):
    hand = "AH,10H,KH,QH,9H,AS,JS,QS,KS,10S,9S,JH,JC"  # Ann leads: hearts; trump: clubs
    out, log = by_voice(tmp_path, ["close the stock", "no", "close the stock", "yes"],
                        game=("--game", "sixty-six", "--players", "Ann", "--bots", "random",
                              "--deck", hand))
    assert "Close the stock? Say yes or no." in out
    closes = [e for e in log if e["type"] == "close"]
    assert len(closes) == 1 and closes[0]["player"] == "Ann", out
