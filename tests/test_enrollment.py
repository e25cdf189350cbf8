"""Voice profiles: enrollment from recordings and spoken, through the real command line, and
what a profile does in a game (real espeak-ng speech, the real PocketSphinx recognizer)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from cli_runner import read_events, talking_cards
from speech_clips import espeak_available, synthesize
from voice.errors import UserError
from voice.hear import profile as profile_module
from voice.hear.profile import VoiceProfile
from voice.lang import Language, available

pytestmark = pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")

VOICE = "en-us+m3"
# A player's takes differ a little each time: speed and the room's noise.
TAKES = ((150, 0), (165, 1), (180, 2))
WORDS = ("two", "three", "five", "seven", "ten", "ten plus", "king", "yes", "no")


def take(word: str, k: int, tmp_path: Path, voice: str = VOICE) -> str:
    speed, seed = TAKES[k % len(TAKES)]
    target = tmp_path / f"{word.replace(' ', '_')}_{k}_{voice}.wav"
    shutil.copy(synthesize(word, voice=voice, speed=speed, seed=seed), target)
    return str(target)


def enroll(tmp_path: Path, words=WORDS, name: str = "me.voice", *extra: str):
    profile = tmp_path / name
    pairs = [f"{w}={take(w, k, tmp_path)}" for w in words for k in range(3)]
    result = talking_cards("enroll", "--profile", str(profile), *extra, *pairs)
    return profile, result


def test_a_profile_is_made_from_recordings_through_the_command_line(tmp_path):
    profile, result = enroll(tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"Voice profile {profile}: 9 phrases, 3 takes each."
    made = VoiceProfile.read(profile, "en")
    assert sorted(made.takes) == sorted(WORDS)
    assert made.audio == {}                      # no recordings kept unless asked
    # enrolling again extends the profile (up to the newest takes of each phrase)
    more = talking_cards("enroll", "--profile", str(profile), f"queen={take('queen', 0, tmp_path)}",
                         f"queen={take('queen', 1, tmp_path)}")
    assert more.returncode == 0, more.stderr
    assert "10 phrases" in more.stdout
    assert len(VoiceProfile.read(profile).takes["queen"]) == 2


def test_a_phrase_the_game_never_listens_for_is_refused(tmp_path):
    result = talking_cards("enroll", "--profile", str(tmp_path / "p"),
                           f"banana={take('banana', 0, tmp_path)}")
    assert result.returncode == 2
    assert result.stderr.strip().startswith("'banana=")
    assert not (tmp_path / "p").exists()


def test_the_profile_round_trips_with_its_recordings_only_when_asked(tmp_path):
    profile, result = enroll(tmp_path, ("seven", "king"), "kept.voice", "--keep-audio")
    assert result.returncode == 0, result.stderr
    made = VoiceProfile.read(profile)
    (tmp_path / "copy").write_bytes(made.to_bytes())
    copy = VoiceProfile.read(tmp_path / "copy", "en")
    assert copy.language == "en" and sorted(copy.takes) == ["king", "seven"]
    for phrase in made.takes:
        assert all(np.array_equal(a, b) for a, b in zip(made.takes[phrase], copy.takes[phrase]))
        assert len(copy.audio[phrase]) == 3
    assert copy.scale == pytest.approx(made.scale)


def test_a_damaged_or_foreign_profile_is_refused_in_one_sentence_and_nothing_starts(tmp_path):
    profile, result = enroll(tmp_path, ("seven", "king"))
    assert result.returncode == 0, result.stderr
    whole = profile.read_bytes()
    broken = tmp_path / "broken.voice"
    broken.write_bytes(whole[: len(whole) // 2])
    events, save = tmp_path / "events.jsonl", tmp_path / "game.json"
    not_a_profile = Path(take("seven", 0, tmp_path))
    for bad, says in ((broken, "is damaged"), (not_a_profile, "is damaged"),
                      (tmp_path / "none.voice", "There is no voice profile")):
        played = talking_cards("play", "--players", "Ann", "--bots", "random", "--mute",
                               "--input", "keyboard", "--events", str(events), "--save", str(save),
                               "--profile", str(bad), stdin="seven\n")
        assert played.returncode == 2
        assert says in played.stderr and len(played.stderr.strip().splitlines()) == 1
        assert "Traceback" not in played.stderr
        assert not events.exists() and not save.exists()   # the game never started
    # another version of the program's profile
    old = VoiceProfile.read(profile)
    real_version = profile_module.VERSION
    try:
        profile_module.VERSION = real_version + 1
        (tmp_path / "future.voice").write_bytes(old.to_bytes())
    finally:
        profile_module.VERSION = real_version
    with pytest.raises(UserError, match="another version"):
        VoiceProfile.read(tmp_path / "future.voice")
    # a profile of another language
    with pytest.raises(UserError, match="is for language 'en'"):
        VoiceProfile.read(profile, "tr")


def test_a_game_by_voice_with_a_profile_plays_the_move_said(tmp_path):
    """The profile's matcher and the grammar agree: the move is played without a read-back."""
    profile, result = enroll(tmp_path)
    assert result.returncode == 0, result.stderr
    events = tmp_path / "events.jsonl"
    said = [take("ten", 1, tmp_path), take("king", 1, tmp_path), take("three", 1, tmp_path),
            take("ten plus", 2, tmp_path)]
    played = talking_cards("play", "--players", "Ann,Bob", "--lives", "1", "--seed", "5",
                           "--deck", "10S,3S,5S,KH,10H,6H,9C,9D,8C,8D", "--mute",
                           "--backend", "sphinx", "--events", str(events),
                           "--profile", str(profile), "--wav", *said, timeout=240)
    assert played.returncode == 0, played.stderr
    plays = [(e["player"], e["card"], e["total"]) for e in read_events(events)
             if e["type"] == "play"]
    assert plays == [("Ann", "10S", 10), ("Bob", "KH", 20), ("Ann", "3S", 23), ("Bob", "10H", 33)]
    assert "Say yes" not in played.stdout          # nothing was read back


def test_a_word_not_in_the_hand_is_never_accepted(tmp_path):
    profile, result = enroll(tmp_path)
    assert result.returncode == 0, result.stderr
    files = [take(w, 1, tmp_path) for w in ("five", "two", "zero", "what is the weather")]
    heard = talking_cards("listen", "--backend", "sphinx", "--hand", "7S,3H,KD", "--json",
                          "--profile", str(profile), *files)
    assert heard.returncode == 0, heard.stderr
    for row in map(json.loads, heard.stdout.splitlines()):
        action = row["action"]
        assert action is None or action["type"] != "play" or row.get("confirm"), row


def test_spoken_enrollment_asks_again_for_a_take_unlike_the_others(tmp_path):
    """The prompts answered from WAV files (one utterance each, as a microphone gives them):
    "two" three times, but the second time "queen"; then the input ends."""
    profile = tmp_path / "spoken.voice"
    answers = [take("two", 0, tmp_path), take("queen", 1, tmp_path), take("two", 2, tmp_path),
               take("two", 1, tmp_path), take("three", 0, tmp_path), take("three", 1, tmp_path),
               take("three", 2, tmp_path)]
    result = talking_cards("enroll", "--profile", str(profile), "--mute", "--wav", *answers)
    lines = result.stdout.splitlines()
    assert lines[:5] == [
        "Let me learn your voice. I will ask for 23 words, 3 times each; say each one in your "
        "usual voice after the sound.",
        "Say two.", "Say two.", "Say two.",
        "That did not sound like the other times. Say two again."]
    assert lines[5:9] == ["Say three."] * 3 + ["Say four."]
    assert lines[-2:] == ["Enrollment stopped. Words learned: 2.",
                          f"Your voice profile is saved in {profile}."]
    assert result.returncode == 1       # stopped before the end
    assert sorted(VoiceProfile.read(profile).takes) == ["three", "two"]


@pytest.mark.parametrize("code", available())
def test_every_language_has_the_enrollment_sentences_and_words(code):
    english = Language.load("en", parts=("enroll",)).phrases.data
    own = json.loads((Path(__file__).resolve().parents[1] / "voice" / "lang" / code
                      / "phrases.enroll.json").read_text(encoding="utf-8"))
    assert set(own["enroll"]) - {"_about"} == set(english["enroll"]) - {"_about"}
    assert set(own["enroll_words"]) == set(english["enroll_words"])


class Lines:
    """What the program says, kept as lines (the speaker's part is tested elsewhere)."""

    def __init__(self):
        self.lines = []

    def say(self, text):
        self.lines.append(text)


def test_the_start_menu_by_voice_offers_to_learn_the_voice_first(tmp_path):
    from voice.cli.enroll import enroll_by_voice
    from voice.cli.menu import Menu
    from voice.cli.settings import Settings
    from voice.games import VIRTUAL_GAMES
    from voice.hear.listeners import WavFilesListener
    from voice.hear.segmenter import Segmenter
    from voice.hear.sphinx import SphinxRecognizer

    language = Language.load("en", parts=("enroll",))
    said = [take("my voice", 0, tmp_path)] + [take("two", k, tmp_path) for k in range(3)]
    listener = WavFilesListener(said, Segmenter, SphinxRecognizer(language.sphinx_pronunciations))
    speaker, profile = Lines(), tmp_path / "menu.voice"
    menu = Menu(language, listener, speaker, list(VIRTUAL_GAMES.values()), Settings(),
                enroll=lambda: enroll_by_voice(listener, language, speaker, str(profile)))
    choice = menu.run()   # the input ends during enrollment: the menu's defaults follow
    assert speaker.lines[1].endswith("Or say my voice, or 4, to teach me your voice first.")
    assert speaker.lines[2].startswith("Let me learn your voice.")
    assert speaker.lines[3:7] == ["Say two."] * 3 + ["Say three."]
    assert sorted(VoiceProfile.read(profile).takes) == ["two"]
    assert choice.game == "doksan"


def test_a_profile_works_in_another_language(tmp_path):
    """Turkish, heard through the English acoustic model: the player's own takes decide, and
    a move they vouch for is played without the read-back Turkish asks for without them."""
    words = ("yedi", "üç", "papaz", "dört")
    pairs = [f"{w}={take(w, k, tmp_path, voice='tr')}" for w in words for k in range(3)]
    profile = tmp_path / "tr.voice"
    made = talking_cards("enroll", "--lang", "tr", "--profile", str(profile), *pairs)
    assert made.returncode == 0, made.stderr
    assert sorted(VoiceProfile.read(profile, "tr").takes) == ["dort", "papaz", "uc", "yedi"]
    english = talking_cards("listen", "--profile", str(profile), take("yedi", 1, tmp_path, "tr"))
    assert english.returncode == 2 and "is for language 'tr'" in english.stderr
    said = [take(w, 1, tmp_path, voice="tr") for w in words]
    rows = {}
    for with_profile in (False, True):
        heard = talking_cards("listen", "--lang", "tr", "--backend", "sphinx", "--hand",
                              "7S,3H,KD", "--json",
                              *(("--profile", str(profile)) if with_profile else ()), *said)
        assert heard.returncode == 0, heard.stderr
        rows[with_profile] = [json.loads(line) for line in heard.stdout.splitlines()]
    held, outside = rows[True][:3], rows[True][3]
    assert [row["action"]["rank"] for row in held] == ["7", "3", "K"]
    assert not any(row.get("confirm") for row in held)       # vouched for: played at once
    # without the profile every Turkish move it heard is read back
    assert all(row.get("confirm") for row in rows[False] if row["action"])
    # "dört" with no four in the hand: never played at once
    action = outside["action"]
    assert action is None or action["type"] != "play" or outside.get("confirm"), outside


def test_a_profile_vouches_for_a_move_in_a_game_whose_language_reads_every_move_back(tmp_path):
    """A Turkish game by voice (Turkish reads every spoken move back unless the player's own
    takes vouch for it): the moves are played without "Evet deyin"."""
    words = ("on", "papaz", "üç", "dört")
    pairs = [f"{w}={take(w, k, tmp_path, voice='tr')}" for w in words for k in range(3)]
    profile = tmp_path / "tr.voice"
    made = talking_cards("enroll", "--lang", "tr", "--profile", str(profile), *pairs)
    assert made.returncode == 0, made.stderr
    events = tmp_path / "events.jsonl"
    played = talking_cards("play", "--lang", "tr", "--players", "Ann,Bob", "--lives", "1",
                           "--seed", "5", "--deck", "10S,3S,5S,KH,10H,6H,9C,9D,8C,8D", "--mute",
                           "--backend", "sphinx", "--events", str(events),
                           "--profile", f"Ann={profile}", "--profile", f"Bob={profile}",
                           "--wav",   # (the same espeak-ng voice plays both)
                           *(take(w, 1, tmp_path, voice="tr") for w in ("on", "papaz", "üç")),
                           timeout=240)
    assert played.returncode == 0, played.stderr
    plays = [(e["player"], e["card"], e["total"]) for e in read_events(events)
             if e["type"] == "play"]
    assert plays == [("Ann", "10S", 10), ("Bob", "KH", 20), ("Ann", "3S", 23)]
    assert "Evet deyin" not in played.stdout          # nothing was read back
    # one profile named for nobody, two people: it is not theirs to vouch for
    shared = talking_cards("play", "--lang", "tr", "--players", "Ann,Bob", "--lives", "1",
                           "--seed", "5", "--deck", "10S,3S,5S,KH,10H,6H,9C,9D,8C,8D", "--mute",
                           "--backend", "sphinx", "--profile", str(profile),
                           "--wav", take("on", 1, tmp_path, voice="tr"), timeout=240)
    assert "The voice profile is not used: several people play here" in shared.stderr
    assert "Toplam 10." not in shared.stdout or "Evet deyin" in shared.stdout  # not at once


def test_at_a_real_table_each_player_is_heard_with_their_own_profile(tmp_path):
    profile, result = enroll(tmp_path, ("seven", "king", "yes"))
    assert result.returncode == 0, result.stderr
    stranger = talking_cards("table", "--players", "Ann,Bob", "--mute", "--backend", "sphinx",
                             "--profile", f"Zed={profile}", "--wav", take("seven", 1, tmp_path))
    assert stranger.returncode == 2
    assert stranger.stderr.strip() == "--profile names Zed, who is not at the table."
    assert stranger.stdout == ""           # refused before anything was said
    events = tmp_path / "events.jsonl"
    said = [take("seven", 1, tmp_path), take("king", 1, tmp_path), take("yes", 1, tmp_path)]
    played = talking_cards("table", "--players", "Ann,Bob", "--mute", "--backend", "sphinx",
                           "--events", str(events), "--profile", f"Ann={profile}", "--wav",
                           *said, timeout=240)
    assert played.returncode == 0, played.stderr
    plays = [(e["player"], e["card"]) for e in read_events(events) if e["type"] == "play"]
    assert plays[:2] == [("Ann", "7"), ("Bob", "K")]
    assert "Seven?" not in played.stdout     # Ann's own voice: no read-back


def test_spoken_enrollment_through_a_live_microphone_with_push_to_talk(virtual_audio, tmp_path):
    """The real microphone path (a virtual sound card): Enter starts and ends each take; the
    takes of "two", then "quit" typed: the finished word is kept."""
    import subprocess
    import sys
    import time
    profile = tmp_path / "live.voice"
    proc = subprocess.Popen([sys.executable, "-m", "voice", "enroll", "--profile", str(profile),
                             "--mute", "--push-to-talk"], cwd=Path(__file__).resolve().parents[1],
                            env=virtual_audio.client_env(), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []

    def line_with(*needles):
        for line in proc.stdout:
            seen.append(line)
            if any(n in line for n in needles):
                return line
        raise AssertionError(f"none of {needles} in {seen}")

    def key():
        proc.stdin.write("\n")
        proc.stdin.flush()

    try:
        for k in range(6):   # three takes, and up to three more if one is asked again
            if "Say three" in line_with("Say two", "Say three"):
                break
            key()
            time.sleep(0.3)
            virtual_audio.play_wav(take("two", k, tmp_path))
            key()
        proc.stdin.write("quit\n")
        proc.stdin.close()
        assert proc.wait(timeout=60) == 1
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Enrollment stopped. Words learned: 1." in "".join(seen) + proc.stdout.read()
    assert sorted(VoiceProfile.read(profile).takes) == ["two"]


def test_the_fused_reading_is_ready_at_a_pause_as_at_the_end(tmp_path):
    """Hands-free answers come at a pause (``peek``): with a profile they are fused too."""
    from voice.cli.enroll import take_from_file
    from voice.hear.choose import with_profiles
    from voice.hear.sphinx import SphinxRecognizer
    profile, result = enroll(tmp_path, ("seven", "three", "king"))
    assert result.returncode == 0, result.stderr
    language = Language.load("en")
    recognizer = with_profiles(SphinxRecognizer(language.sphinx_pronunciations),
                               {"": VoiceProfile.read(profile)}, language)
    recognizer.set_vocabulary(["seven", "three", "king", "play the seven", "total"])
    pcm = take_from_file(take("seven", 1, tmp_path)).astype("<i2").tobytes()
    recognizer.begin()
    recognizer.feed(pcm)
    early = recognizer.peek()
    assert (early.text, early.verdict) == ("seven", "accept")
    assert recognizer.last_distances["seven"] < recognizer.last_distances["king"]
    recognizer.cancel()
    at_the_end = recognizer.recognize(pcm)
    assert (at_the_end.text, at_the_end.verdict) == ("seven", "accept")


def test_agreement_is_read_back_when_a_phrase_that_cannot_be_said_now_is_as_near():
    """The fusion alone (no audio): "three" said with a two in the hand, heard as "two" by the
    decoder and nearest the two among the hand's ranks, is read back, not played, when the
    player's own "three" is about as near; with it far, the move is vouched for."""
    from voice.hear import fused
    from voice.hear.recognizer import ACCEPT, CONFIRM, Hypothesis
    heard = Hypothesis("two", ACCEPT)
    distance = {"two": 1.0, "seven": 1.5, "king": 1.6}
    asked = fused.judge(heard, distance, outside=lambda: {"three": 1.0 * fused.OUT_MARGIN - 0.01})
    assert (asked.text, asked.verdict, asked.vouched) == ("two", CONFIRM, False)
    played = fused.judge(heard, distance, outside=lambda: {"three": 1.5, "yes": 2.0})
    assert (played.text, played.verdict, played.vouched) == ("two", ACCEPT, True)
    # far from the player's takes, agreement is at most a read-back, and vouches for nothing
    far = fused.judge(heard, {"two": fused.AGREE_AT + 0.1, "seven": 2.0}, outside=dict)
    assert (far.verdict, far.vouched) == (CONFIRM, False)


def test_a_reading_the_decoder_rejected_is_played_only_when_very_near_the_players_takes():
    """The fusion alone (no audio): the decoder rejected "seven", the matcher agrees.  Very
    near the player's takes (REJECTED_AT) and nothing they enrolled outside the hand as near:
    played, vouched for; otherwise, or nearer to a rank not in the hand, read back."""
    from voice.hear import fused
    from voice.hear.recognizer import ACCEPT, CONFIRM, REJECT, Hypothesis
    heard = Hypothesis("seven", REJECT, confidence=0.3)
    far_out = lambda: {"three": 2.0}  # noqa: E731
    near = fused.judge(heard, {"seven": fused.REJECTED_AT - 0.02, "king": 1.6}, outside=far_out)
    assert (near.text, near.verdict, near.vouched) == ("seven", ACCEPT, True)
    less = fused.judge(heard, {"seven": fused.REJECTED_AT + 0.02, "king": 1.6}, outside=far_out)
    assert less.verdict == CONFIRM and less.text == "seven" and not less.vouched
    crowded = fused.judge(heard, {"seven": 1.0, "king": 1.6}, outside=lambda: {"three": 1.02})
    assert crowded.verdict == CONFIRM and not crowded.vouched
    # nothing usable heard: the decoder's rejection stands unless the matcher is sure
    nothing = fused.judge(Hypothesis("", REJECT), {"seven": 1.3, "king": 1.4}, outside=far_out)
    assert nothing.verdict == REJECT
