"""A whole short game played by voice: synthesized speech in WAV files, the real PocketSphinx
recognizer, the real session loop, checked through the events file."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from speech_clips import espeak_available, wav_files

ROOT = Path(__file__).resolve().parents[1]
DECK = "10S,3S,5S,KH,10H,6H,9C,9D,8C,8D"

pytestmark = pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")


def clips(tmp_path: Path, phrases):
    return wav_files(tmp_path, phrases)


def test_a_two_player_game_by_voice_through_the_session_loop(tmp_path):
    events = tmp_path / "events.jsonl"
    # After each move a "yes" answers the recognizer's confirmation, if it asked one (a
    # "yes" with nothing to confirm is refused and changes nothing); after the off-topic
    # phrase a "no" turns down whatever move it might have been taken for.
    spoken = [
        "play the ten", "yes",          # Ann: only plus is legal at 0 -> 10
        "what is the weather", "no",    # off-topic: must not become a move
        "play the king", "yes",         # Bob: 20
        "play the three", "yes",        # Ann: 23
        "ten plus", "yes",              # Bob: 33 -> Ann loses her only life, Bob wins
    ]
    result = subprocess.run(
        [sys.executable, "-m", "voice", "play", "--players", "Ann,Bob", "--lives", "1",
         "--seed", "5", "--deck", DECK, "--mute", "--backend", "sphinx",
         "--events", str(events), "--wav", *clips(tmp_path, spoken)],
        cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    log = [json.loads(line) for line in events.read_text().splitlines()]
    plays = [(e["player"], e["card"], e["value"], e["total"]) for e in log if e["type"] == "play"]
    assert plays == [("Ann", "10S", 10, 10), ("Bob", "KH", 10, 20), ("Ann", "3S", 3, 23),
                     ("Bob", "10H", 10, 33)]
    assert [e for e in log if e["type"] == "game_over"] == [{"type": "game_over", "winner": "Bob"}]
    assert "Game over. Bob wins the game!" in result.stdout


def test_listen_prints_the_action_for_each_file(tmp_path):
    files = clips(tmp_path, ["ten minus", "play the seven"])
    result = subprocess.run(
        [sys.executable, "-m", "voice", "listen", "--backend", "sphinx", "--hand", "7S,10H,AD",
         "--json", *files], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["file"] for r in rows] == files
    assert rows[0]["action"] == {"type": "play", "rank": "10", "value": -10}
    assert rows[1]["action"] == {"type": "play", "rank": "7", "value": None}
