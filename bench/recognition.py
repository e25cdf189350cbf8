"""Recognition benchmark for the PocketSphinx backend: prints tables for the README.

(a) FSDD recordings (real people, 8 kHz), words two ... nine, through the in-game vocabulary
    (the clip's rank plus two other ranks drawn with a fixed seed, plus the query commands)
    and through the plain ten-digit grammar, per speaker.  Audio path of a microphone:
    WAV -> resample to 16 kHz -> noise floor around the word -> segmenter -> recognizer.
(b) espeak-ng voices, clean and with white noise at 20 dB and 10 dB SNR.
(c) off-topic phrases (a list never used for calibration): how many became ACCEPTed moves,
    and how many right commands were sent to a confirmation.
(d) decode latency from the end of the utterance to the hypothesis.

    python3 bench/recognition.py            # everything (about 5 minutes on 2 cores)
    python3 bench/recognition.py --quick    # a smaller sample
"""
from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from tests.speech_clips import (QUERY_PHRASES, RANK_WORDS, VOICES, game_vocabulary,  # noqa: E402
                                noise_burst, synthesize_pcm)
from voice.audio import WavSource, noise_floor, speech_level_dbfs  # noqa: E402
from voice.recognition import ACCEPT, CONFIRM, REJECT  # noqa: E402
from voice.segmenter import Segmenter  # noqa: E402
from voice.sphinx_backend import (ACCEPT_LENIENT, ACCEPT_STRICT, MIN_MODULATION_DB,  # noqa: E402
                                  SphinxRecognizer)

FSDD = Path("/work/shared/speech/fsdd-dev")
QUERIES = ("whose turn", "my cards", "total", "score", "repeat", "help")
DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
# Held out: none of these phrases was used to calibrate the rejection thresholds.
OFF_TOPIC = ("could you turn on the radio", "my name is peter", "where is the remote",
             "i need a coffee", "it is cold in here", "catherine", "anthony", "see you later",
             "what time is it", "the dog wants to go out", "do you want some tea",
             "that was a good movie", "mark", "hang on", "excuse me", "let me think",
             "the phone is ringing", "who is at the door", "close the window", "daniel")


def pct(n, d):
    return "%5.1f%%" % (100.0 * n / d) if d else "   -  "


def mic_path(pcm: np.ndarray, seg: Segmenter, seed: int) -> np.ndarray:
    """What the recognizer gets from a microphone: the word inside a room's noise floor
    (35 dB under the speech, 0.6 s each side), cut out again by the segmenter."""
    floor = speech_level_dbfs(pcm) - 35.0
    pad = noise_floor(9600, floor, seed)
    stream = np.concatenate([pad, pcm.astype(np.float64) + noise_floor(len(pcm), floor, seed + 1),
                             noise_floor(9600, floor, seed + 2)])
    stream = np.clip(np.round(stream), -32768, 32767).astype(np.int16)
    seg.reset()
    utts = list(seg.segment(stream[i:i + 480] for i in range(0, len(stream), 480)))
    return max(utts, key=len) if utts else stream   # nothing detected: decode the whole stream


def fsdd(rec: SphinxRecognizer, limit: int, latencies: list, verdicts: dict) -> None:
    files = sorted(p for p in FSDD.glob("*.wav") if 2 <= int(p.name.split("_")[0]) <= 9)
    if limit:
        files = files[::max(1, len(files) // limit)]
    rng = random.Random(99)
    seg = Segmenter()
    by_speaker = defaultdict(lambda: [0, 0, 0, 0, 0, 0])  # game, digits, n, accepted, hand, +queries
    for i, path in enumerate(files):
        digit, speaker = int(path.name.split("_")[0]), path.name.split("_")[1]
        rank = DIGITS[digit]
        others = rng.sample([r for r in RANK_WORDS if r != rank], 2)
        pcm = np.concatenate(list(WavSource(path, rate=16000).chunks()))
        utt = mic_path(pcm, seg, seed=i)
        rec.set_vocabulary(game_vocabulary([rank] + others))
        t0 = time.perf_counter()
        hyp = rec.recognize(utt.tobytes())
        latencies.append(time.perf_counter() - t0)
        row = by_speaker[speaker]
        row[2] += 1
        if hyp.text == rank:
            row[0] += 1
            verdicts[hyp.verdict] += 1
            verdicts.setdefault("scores", []).append(_acceptable_score(rec))
            row[3] += hyp.verdict == ACCEPT
        rec.set_vocabulary(DIGITS)
        row[1] += rec.recognize(utt.tobytes()).text == rank
        rec.set_vocabulary([rank] + others)
        row[4] += rec.recognize(utt.tobytes()).text == rank
        rec.set_vocabulary([rank] + others + list(QUERIES))
        row[5] += rec.recognize(utt.tobytes()).text == rank
    print("\n(a) FSDD real speech, words two..nine, 8 kHz -> 16 kHz, noise floor, segmenter")
    print("in-game vocab = the 3 ranks, 'play (the) <rank>', values, queries, yes/no (%d-%d phrases)"
          % (len(game_vocabulary(["two", "three", "four"])), len(game_vocabulary(["ten", "ace", "two"]))))
    print("ranks+queries = the 3 rank words and %s" % ", ".join(QUERIES))
    print("%-9s %5s %13s %13s %14s %12s %11s" % ("speaker", "clips", "in-game vocab", "and accepted",
                                                 "ranks+queries", "3 rank words", "ten digits"))
    tot = [0] * 6
    for speaker in sorted(by_speaker):
        g, d, n, a, h, q = by_speaker[speaker]
        tot = [x + y for x, y in zip(tot, by_speaker[speaker])]
        print("%-9s %5d %13s %13s %14s %12s %11s" % (speaker, n, pct(g, n), pct(a, n), pct(q, n), pct(h, n), pct(d, n)))
    g, d, n, a, h, q = tot
    print("%-9s %5d %13s %13s %14s %12s %11s" % ("all", n, pct(g, n), pct(a, n), pct(q, n), pct(h, n), pct(d, n)))


def espeak_voices(rec: SphinxRecognizer, per_voice: int, latencies: list, verdicts: dict) -> None:
    print("\n(b) espeak-ng voices, random in-game vocabulary, one command each")
    print("%-16s %6s %9s %9s %9s" % ("voice", "clips", "clean", "20 dB", "10 dB"))
    rng = random.Random(7)
    totals = defaultdict(lambda: [0, 0])
    for voice, speed in VOICES:
        cells = []
        for snr in (None, 20.0, 10.0):
            right = 0
            for j in range(per_voice):
                vocab = game_vocabulary(rng.sample(RANK_WORDS, 3))
                cmd = rng.choice(vocab)
                rec.set_vocabulary(vocab)
                pcm = synthesize_pcm(cmd, voice=voice, speed=speed, snr_db=snr, seed=j)
                t0 = time.perf_counter()
                hyp = rec.recognize(pcm.tobytes())
                latencies.append(time.perf_counter() - t0)
                if hyp.text == cmd:
                    right += 1
                    if snr is None:
                        verdicts[hyp.verdict] += 1
                        verdicts.setdefault("scores", []).append(_acceptable_score(rec))
            totals[snr][0] += right
            totals[snr][1] += per_voice
            cells.append(pct(right, per_voice))
        print("%-16s %6d %9s %9s %9s" % ("%s@%d" % (voice, speed), per_voice, *cells))
    print("%-16s %6d %9s %9s %9s" % ("all", totals[None][1], *(pct(*totals[s]) for s in (None, 20.0, 10.0))))


def _acceptable_score(rec: SphinxRecognizer) -> float:
    """The score a threshold is compared with, or -inf when the reading can never be
    accepted (no phrase, an n-best fallback, a steady non-speech sound)."""
    f = rec.last_features
    if "score" not in f or f.get("fallback") or f.get("modulation", 0.0) < MIN_MODULATION_DB:
        return float("-inf")
    return f["score"]


def off_topic(rec: SphinxRecognizer, scores: list) -> None:
    print("\n(c) off-topic speech and noises, random in-game vocabulary (held-out phrases)")
    rng = random.Random(5)
    counts = defaultdict(int)
    examples = []
    items = [(t, v, s) for t in OFF_TOPIC for v, s in VOICES[:4]]
    items += [(kind, None, None) for kind in ("cough", "click", "hum") for _ in range(4)]
    for k, (text, voice, speed) in enumerate(items):
        rec.set_vocabulary(game_vocabulary(rng.sample(RANK_WORDS, 3)))
        pcm = (synthesize_pcm(text, voice=voice, speed=speed) if voice
               else noise_burst(text, seed=k))
        hyp = rec.recognize(pcm.tobytes())
        counts[hyp.verdict] += 1
        scores.append(_acceptable_score(rec))
        if hyp.verdict == ACCEPT:
            examples.append("%r -> %r (%s)" % (text, hyp.text, voice))
    n = len(items)
    print("utterances %d: ACCEPTed as a move %d (%s), CONFIRM %d (%s), REJECT %d (%s)" % (
        n, counts[ACCEPT], pct(counts[ACCEPT], n), counts[CONFIRM], pct(counts[CONFIRM], n),
        counts[REJECT], pct(counts[REJECT], n)))
    lenient = sum(x >= ACCEPT_LENIENT for x in scores)
    print("with the lenient (push-to-talk) threshold: ACCEPTed %d (%s)" % (lenient, pct(lenient, n)))
    for e in examples:
        print("  accepted:", e)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller samples")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    rec = SphinxRecognizer()
    lat_fsdd, lat_espeak = [], []
    v_fsdd, v_espeak = defaultdict(int), defaultdict(int)
    fsdd(rec, 120 if args.quick else 0, lat_fsdd, v_fsdd)
    espeak_voices(rec, 10 if args.quick else 30, lat_espeak, v_espeak)
    off_scores: list = []
    off_topic(rec, off_scores)
    print("\nverdicts on RIGHT readings (strict default = open microphone):")
    for name, v in (("FSDD", v_fsdd), ("espeak clean", v_espeak)):
        n = v[ACCEPT] + v[CONFIRM] + v[REJECT]
        print("  %-13s accept %s  confirm %s  reject %s" % (name, pct(v[ACCEPT], n), pct(v[CONFIRM], n), pct(v[REJECT], n)))
    print("\nthreshold sweep: share ACCEPTed (the rest is confirmed or rejected)")
    print("%10s %14s %14s %18s" % ("accept at", "FSDD right", "espeak right", "off-topic (held out)"))
    for t in sorted({ACCEPT_STRICT, ACCEPT_LENIENT, -3.6, -3.9, -4.2, -4.5, -5.0}, reverse=True):
        cells = [pct(sum(x >= t for x in v), len(v)) for v in
                 (v_fsdd.get("scores", []), v_espeak.get("scores", []), off_scores)]
        name = "%.2f%s" % (t, " strict" if t == ACCEPT_STRICT else " lenient" if t == ACCEPT_LENIENT else "")
        print("%10s %14s %14s %18s" % (name, *cells))
    lat = np.array(lat_fsdd + lat_espeak) * 1000
    print("\n(d) decode latency, end of utterance -> hypothesis (grammar + phone loop), %d utterances:" % len(lat))
    print("  mean %.0f ms, p95 %.0f ms (the segmenter adds its %.1f s trailing silence before this)"
          % (lat.mean(), np.percentile(lat, 95), Segmenter().trailing_frames / 100))


if __name__ == "__main__":
    main()
