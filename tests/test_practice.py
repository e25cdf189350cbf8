"""The guided practice round: by keyboard and by voice (espeak-ng WAV files through the real
PocketSphinx recognizer), each step answered with what the rules make of it."""
from __future__ import annotations

from cli_runner import talking_cards
from speech_clips import synthesize

SAID = ["seven", "ten plus", "total", "three", "what does a two do", "ace one"]


def test_the_practice_round_by_keyboard_teaches_each_rule():
    result = talking_cards("practice", "--mute", "--input", "keyboard",
                           stdin="seven\nten minus\nten plus\ntotal\nthree\nwhat does a two do\n"
                                 "ace one\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout.splitlines()
    assert out[2] == "The total is 7."
    assert "Not quite. A ten counts plus ten or minus ten. Say ten plus." in out
    assert "33: everyone else loses a life." in out
    assert "34: you passed 33 and lose a life." in out
    assert out[-1].startswith("That is the practice.")


def test_the_practice_round_by_voice():
    result = talking_cards("practice", "--mute", "--backend", "sphinx",
                           "--wav", *[str(synthesize(text)) for text in SAID], timeout=180)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "The total is 7." in out and "The total is 17." in out
    assert "33: everyone else loses a life." in out and "That is the practice." in out


def test_quit_ends_the_practice_and_a_language_without_one_is_refused():
    result = talking_cards("practice", "--mute", "--input", "keyboard", stdin="quit\n")
    assert result.returncode == 0 and "That is the practice." not in result.stdout
    korean = talking_cards("practice", "--mute", "--lang", "ko", "--input", "keyboard")
    assert korean.returncode == 2 and "no practice round" in korean.stderr
