"""Ending an utterance at a pause: does it cost accuracy?  Prints a table for the README.

The live listener (``VoiceListener``) decodes what was said so far whenever the player has
been quiet for the segmenter's ``pause_s``; hands-free, it ends the utterance there when the
reading is a confident whole phrase that no other phrase of the turn continues, instead of
waiting for the whole 0.5 s of trailing silence.  This runs the same clips through the real
listener, segmenter and PocketSphinx with that off (``pause_s=None``, the listener before
this change) and at several pause lengths, and counts, per setting:

- right: the reading means what was said; accepted right / wrong: ACCEPTed (open microphone,
  strict verdict, as hands-free plays) and right, or wrong without a question;
- early: how many utterances ended at a pause.

Clips: FSDD recordings (real people, 8 kHz; words two ... nine through the in-game
vocabulary of a three-card hand holding the word, as ``bench/recognition.py``), espeak-ng
commands in six voices, and two-word phrases said with a hesitation between the words ("ten
... minus"), which must never be cut after the first word.  The source is not paced: the
timing of the answer is measured in ``bench/session.py``.

    python3 bench/endpointing.py [--fsdd 240] [--pauses 0.15,0.2,0.3]
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402

from recognition import (DIGITS, FSDD, RANK_CODES, in_game_vocabulary, pct,  # noqa: E402
                         random_hand, same_intent)
from tests.speech_clips import VOICES, synthesize_pcm  # noqa: E402
from voice.dsp import noise_floor, speech_level_dbfs  # noqa: E402
from voice.hear.audio import AudioSource, WavSource  # noqa: E402
from voice.hear.listeners import VoiceListener  # noqa: E402
from voice.hear.recognizer import ACCEPT  # noqa: E402
from voice.hear.segmenter import Segmenter  # noqa: E402
from voice.hear.sphinx import SphinxRecognizer  # noqa: E402
from voice.lang import Language  # noqa: E402

COMMANDS = ("seven", "king", "play the nine", "ace eleven", "ten minus", "total", "whose turn",
            "my cards", "three", "jack")
HESITATED = (("ten", "minus"), ("ace", "eleven"), ("ten", "plus"), ("ace", "one"))


class ListOfChunks(AudioSource):
    def __init__(self, chunks):
        self._chunks = chunks

    def chunks(self):
        yield from self._chunks

    def close(self):
        pass


def in_room(pcm: np.ndarray, seed: int) -> np.ndarray:
    """The word inside a room's noise floor 35 dB under it, 0.6 s before and 0.8 s after."""
    floor = speech_level_dbfs(pcm) - 35.0
    stream = np.concatenate([noise_floor(9600, floor, seed),
                             pcm.astype(np.float64) + noise_floor(len(pcm), floor, seed + 1),
                             noise_floor(12800, floor, seed + 2)])
    return np.clip(np.round(stream), -32768, 32767).astype(np.int16)


def hear(recognizer, vocabulary, stream, pause_s):
    """(reading, its verdict, ended early) through the real listener."""
    chunks = [stream[i:i + 480] for i in range(0, len(stream), 480)]
    listener = VoiceListener(ListOfChunks(chunks), Segmenter(pause_s=pause_s), recognizer)
    try:
        heard = listener.listen(vocabulary, "")
        return (heard.text, heard.verdict, listener.ended_early > 0) if heard else ("", "", False)
    finally:
        listener.close()


def clips(n_fsdd: int):
    """(label, said, vocabulary, stream) for every clip of the benchmark."""
    rng = random.Random(7)
    out = []
    if FSDD.is_dir():
        files = sorted(p for p in FSDD.glob("*.wav") if 2 <= int(p.name.split("_")[0]) <= 9)
        for i, path in enumerate(files[::max(1, len(files) // n_fsdd)] if n_fsdd else []):
            said = DIGITS[int(path.name.split("_")[0])]
            hand, total = random_hand(rng, must=RANK_CODES[said])
            pcm = np.concatenate(list(WavSource(path, rate=16000).chunks()))
            out.append(("FSDD " + path.name.split("_")[1], said, in_game_vocabulary(hand, total),
                        in_room(pcm, i)))
    else:
        print("(FSDD recordings not found at %s: espeak-ng clips only)" % FSDD)
    for k, (voice, speed) in enumerate(VOICES[:6]):
        for j, said in enumerate(COMMANDS):
            hand = [w for w in ("seven", "king", "nine", "three", "jack") if w in said][:1]
            hand += [r for r in ("ace", "ten", "four") if r not in hand][:3 - len(hand)]
            vocabulary = in_game_vocabulary([RANK_CODES[r] for r in hand], 40)
            pcm = synthesize_pcm(said, voice=voice, speed=speed, pad_s=0.0)
            out.append(("espeak-ng", said, vocabulary, in_room(pcm, 100 * k + j)))
    for k, (voice, speed) in enumerate(VOICES[:6]):
        for first, second in HESITATED:
            rank = "A" if first == "ace" else "10"
            vocabulary = in_game_vocabulary([rank, "7", "K"], 40)
            a, b = (synthesize_pcm(w, voice=voice, speed=speed, pad_s=0.0) for w in (first, second))
            gap = np.zeros(int(0.35 * 16000), dtype=np.int16)  # a 0.35 s hesitation
            out.append(("hesitation", f"{first} {second}", vocabulary,
                        in_room(np.concatenate([a, gap, b]), 1000 + k)))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fsdd", type=int, default=240, help="FSDD clips (0: none)")
    parser.add_argument("--pauses", default="0.15,0.2,0.3")
    args = parser.parse_args()
    settings = [None] + [float(p) for p in args.pauses.split(",")]
    recognizer = SphinxRecognizer(Language.load("en").sphinx_pronunciations, strict=True)
    data = clips(args.fsdd)
    groups = sorted({label for label, *_ in data})
    print("Utterances ended at a pause (pause_s) or after the whole trailing silence (off),"
          " open-microphone verdicts")
    print(f"{'clips':16} {'pause_s':>7} {'n':>4} {'right':>7} {'acc right':>9} "
          f"{'acc WRONG':>9} {'early':>7}")
    for group in groups:
        rows = [row for row in data if row[0] == group]
        for pause_s in settings:
            right = accepted = wrong = early = 0
            for _, said, vocabulary, stream in rows:
                text, verdict, ended_early = hear(recognizer, vocabulary, stream, pause_s)
                ok = same_intent(text, said)
                right += ok
                accepted += ok and verdict == ACCEPT
                wrong += (not ok) and verdict == ACCEPT
                early += ended_early
            n = len(rows)
            print(f"{group:16} {'off' if pause_s is None else pause_s:>7} {n:4d} {pct(right, n):>7} "
                  f"{pct(accepted, n):>9} {pct(wrong, n):>9} {pct(early, n):>7}")


if __name__ == "__main__":
    main()
