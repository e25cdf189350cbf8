"""A game played hands-free through a real (virtual) microphone: synthesized speech is played
into a PulseAudio null sink, the program captures its monitor with sounddevice, cuts
utterances, recognizes them with PocketSphinx and plays the moves."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from cli_runner import Game, read_events
from speech_clips import espeak_available, level_dbfs, load, noise_floor, synthesize
from voice.hear.audio import write_wav

DECK = "10S,3S,5S,KH,10H,6H,9C,9D,8C,8D"

pytestmark = pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")


def plays_in(events: Path):
    """(player, card, total) of every play in an events file."""
    return [(e["player"], e["card"], e["total"]) for e in read_events(events)
            if e["type"] == "play"]


def voice_game(audio, events, *options: str) -> Game:
    """Ann and Bob on the stacked deck, both playing by voice through ``audio``'s microphone."""
    return Game(["--players", "Ann,Bob", "--lives", "1", "--seed", "5", "--deck", DECK,
                 "--input", "voice", "--backend", "sphinx", "--mute",
                 "--events", str(events), *options], audio.client_env())


def test_a_game_by_live_microphone(virtual_audio, tmp_path):
    events = tmp_path / "events.jsonl"
    game = voice_game(virtual_audio, events)
    try:
        game.wait_for("Ann, your turn.")
        time.sleep(1.0)  # the segmenter learns the room's noise floor
        for phrase, total in [("play the ten", "Total 10."), ("play the king", "Total 20."),
                              ("play the three", "Total 23."), ("ten plus", "Total 33.")]:
            game.say_move(virtual_audio, phrase, total)
        game.wait_for("Game over. Bob wins the game!")
        assert game.proc.wait(timeout=30) == 0
    finally:
        if game.proc.poll() is None:
            game.proc.kill()
    log = read_events(events)
    plays = plays_in(events)
    assert plays == [("Ann", "10S", 10), ("Bob", "KH", 20), ("Ann", "3S", 23), ("Bob", "10H", 33)]
    assert log[-1] == {"type": "game_over", "winner": "Bob"}


def test_push_to_talk_by_live_microphone(virtual_audio, tmp_path):
    """Enter starts and Enter ends each utterance; a typed line still counts as typed."""
    events = tmp_path / "events.jsonl"
    game = voice_game(virtual_audio, events, "--push-to-talk")

    try:
        game.wait_for("Ann, your turn.")
        for phrase, total in [("play the ten", "Total 10."), ("play the king", "Total 20.")]:
            game.type()
            time.sleep(0.3)
            virtual_audio.play_wav(synthesize(phrase))
            game.type()
            line = game.wait_for(total, "?")
            if line.endswith("?"):
                game.type("yes")  # typed answers work in push-to-talk mode
                game.wait_for(total)
        game.type("3")
        game.wait_for("Total 23.")
    finally:
        game.end()
    plays = plays_in(events)
    assert plays == [("Ann", "10S", 10), ("Bob", "KH", 20), ("Ann", "3S", 23)]


def test_a_microphone_lost_mid_game_hands_play_to_the_keyboard(tmp_path):
    """Its own sound card, unplugged (the daemon killed) after one spoken move."""
    from virtual_audio import VirtualAudio, VirtualAudioUnavailable
    try:
        audio = VirtualAudio()
    except VirtualAudioUnavailable as exc:
        pytest.skip(f"No virtual sound card: {exc}")
    events = tmp_path / "events.jsonl"
    with audio:
        game = voice_game(audio, events)
        try:
            game.wait_for("Ann, your turn.")
            time.sleep(1.0)
            game.say_move(audio, "play the ten", "Total 10.")
            audio.kill_daemon()
            game.wait_for("The microphone stopped working. Play continues from the keyboard.")
            game.type("king")
            game.wait_for("Total 20.")
        finally:
            game.end()
    plays = plays_in(events)
    assert plays == [("Ann", "10S", 10), ("Bob", "KH", 20)]


MENU_ANSWERS = {   # a game's name, a number, "okay" for the default; what is asked next
    "en": ("Which game:", [("classic", "How many computer players"), ("three", "How many chips"),
                           ("okay", "Classic Ninety-Nine. Everyone starts with 3 chips")], 3),
    # (Turkish "üç" was heard as "dört" in 3 of 4 live runs; "beş" was right in all 3 tried)
    "tr": ("Hangi oyun:", [("klasik", "Kaç bilgisayar oyuncusu"), ("beş", "Kaç fiş"),
                           ("tamam", "Klasik Doksan Dokuz. Herkes 3 fiş ile başlıyor")], 5),
}


READ_BACK = ("Evet ya da hayır deyin.",)   # Turkish reads a doubted answer back
YES = {"tr": "evet"}


@pytest.mark.parametrize("lang", sorted(MENU_ANSWERS))
def test_the_start_menu_by_live_microphone(virtual_audio, tmp_path, lang):
    """No game options: the spoken menu, answered by voice, then the game it set up."""
    env = {**virtual_audio.client_env(), "TALKING_CARDS_CONFIG": str(tmp_path)}
    game = Game(["--input", "voice", "--backend", "sphinx", "--mute", "--lang", lang], env)
    first, answers, opponents = MENU_ANSWERS[lang]
    try:
        game.wait_for(first)
        time.sleep(1.0)  # the segmenter learns the room's noise floor
        for answer, next_question in answers:
            for _ in range(2):   # the question asked again (heard as "help"): said again
                asked = game.seen[-1]
                virtual_audio.play_wav(synthesize(answer, lang=lang))
                line = game.wait_for(next_question, *READ_BACK, asked)
                if any(r in line for r in READ_BACK):   # a doubted answer, read back: yes
                    virtual_audio.play_wav(synthesize(YES[lang], lang=lang))
                    line = game.wait_for(next_question)
                if next_question in line:
                    break
            assert next_question in line, game.seen
        game.wait_for("1. ", "Round 1.")
    finally:
        game.proc.kill()
        game.proc.wait(timeout=30)
    assert not any(line.startswith(("Your name?", "Adınız?")) for line in game.seen)  # kept
    assert f"Strong {opponents + 1} " in game.seen[-1]   # the last seat deals


def test_hands_free_barge_in_by_live_microphone(virtual_audio, tmp_path):
    """--barge-in with headphones (a second sink the microphone cannot hear): the player's
    move, said while the long help answer is spoken, cuts the speech as its words begin and
    is played."""
    move = synthesize("play the ten")
    pcm = load(move)
    floor = level_dbfs(pcm[:1600])
    words_begin = np.nonzero(np.abs(pcm.astype(np.int32)) > 10 ** ((floor + 25) / 20) * 32768)[0][0] / 16000
    room = write_wav(tmp_path / "room.wav", noise_floor(16000 * 60, floor).astype(np.int16))
    events = tmp_path / "events.jsonl"
    with virtual_audio.headphones() as phones:
        noise = virtual_audio.play_wav(room, wait=False)   # a room is never digitally silent
        game = Game(["--players", "Ann,Bob", "--lives", "1", "--seed", "5", "--deck", DECK,
                     "--input", "voice", "--backend", "sphinx", "--barge-in", "--pace", "0",
                     "--events", str(events)], phones.env)
        try:
            game.wait_for("Ann, your turn.")
            phones.quiet_from(phones.wait_for_sound(after=time.monotonic() - 10))
            virtual_audio.play_wav(synthesize("what can I say"))
            game.wait_for("Say a card to play it")
            help_starts = phones.wait_for_sound(after=time.monotonic())
            time.sleep(1.0)
            said = time.monotonic()
            game.say_move(virtual_audio, "play the ten", "Total 10.")
            cut = phones.quiet_from(help_starts)
        finally:
            game.proc.kill()
            game.proc.wait(timeout=30)
            noise.kill()
    # The help takes over 20 s to say; it stopped as the words began.
    assert said + words_begin - 0.05 < cut < said + words_begin + 1.0, (cut - said, words_begin)
    assert plays_in(events) == [("Ann", "10S", 10)]
