"""Enrollment benchmark: what a voice profile does for real speakers' card ranks in a game.

FSDD speakers (real people, 8 kHz; ``bench/recognition.py`` explains the audio path) each
enroll the rank words two ... nine with takes 0-2, as ``talking-cards enroll`` would (each
take through the microphone path and the segmenter).  Then every other take of a rank is
said on a turn whose hand holds it (the in-game vocabulary of a three-card hand, as the
session builds it), by PocketSphinx alone and by PocketSphinx fused with the profile
(``voice/hear/fused.py``).  What the session does with each reading:

- right move: the right card is played, at once or after a read-back ("Seven?" - "yes");
- asked first: a move was read back (right or wrong: a wrong one is turned down with "no");
- wrong at once: a card that was not said is played without a read-back (the worst case).

Words that are not in the hand are measured too: "zero" and "one" (no card), and ranks the
hand does not hold.  None of them may become a move without a read-back.  So is off-topic
talk with a profile (FSDD has none): espeak-ng voices enroll as spoken enrollment asks and
say everyday sentences (``spoken_readings``); none may become a move at once either.

The fusion's constants were chosen on takes 3-9 (``--sweep`` prints the grid: ``outside``
0.0 is the fusion without its check of the enrolled phrases that cannot be said now; then
``REJECTED_AT``); the figures reported are takes 10-19 (``--takes 3-19`` for all) and the
espeak-ng voices.

    python3 bench/enrollment.py            # the tables (about 4 minutes on 2 cores)
    python3 bench/enrollment.py --sweep    # the constants' grid on takes 3-9
    python3 bench/enrollment.py --set REJECTED_AT=0   # the fusion before: what the decoder
                                                      # rejected was never accepted
"""
from __future__ import annotations

import argparse
import itertools
import pickle
import random
import sys
import time
import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.recognition import (DIGITS, EN, FSDD, RANK_CODES,  # noqa: E402
                               in_game_vocabulary, is_move, mic_path, random_hand, same_intent)
from tests.speech_clips import VOICES, espeak_available, synthesize_pcm  # noqa: E402
from voice.cli.enroll import prompted_phrases  # noqa: E402
from voice.hear import fused  # noqa: E402
from voice.hear.audio import WavSource  # noqa: E402
from voice.hear.choose import phrase_agreement  # noqa: E402
from voice.hear.profile import VoiceProfile  # noqa: E402
from voice.hear.profile_match import features  # noqa: E402
from voice.hear.recognizer import CONFIRM, REJECT, Hypothesis  # noqa: E402
from voice.hear.segmenter import Segmenter  # noqa: E402
from voice.hear.sphinx import SphinxRecognizer  # noqa: E402
from voice.lang import Language  # noqa: E402

ENROLL_TAKES = (0, 1, 2)
SAME = phrase_agreement(Language.load("en"))   # as in a game
RANKS = DIGITS[2:]          # the FSDD words that are card ranks
NOT_CARDS = DIGITS[:2]      # "zero", "one": no card at all


@dataclass
class Reading:
    speaker: str
    said: str
    in_hand: bool
    heard: Hypothesis              # PocketSphinx alone
    distance: Dict[str, float]     # the profile's matcher, per known phrase of the vocabulary
    outside: Dict[str, float] = field(default_factory=dict)   # and per other enrolled phrase


def clips(takes):
    """(speaker, word, take, the utterance as the recognizer gets it) of FSDD."""
    seg = Segmenter()
    for path in sorted(FSDD.glob("*.wav")):
        digit, speaker, take = path.stem.split("_")
        if int(take) in takes or int(take) in ENROLL_TAKES:
            pcm = np.concatenate(list(WavSource(path, rate=16000).chunks()))
            yield speaker, DIGITS[int(digit)], int(take), mic_path(
                pcm, seg, seed=100 * int(take) + int(digit))


def profiles(utterances) -> Dict[str, VoiceProfile]:
    made: Dict[str, VoiceProfile] = defaultdict(lambda: VoiceProfile("en"))
    for (speaker, word, take), utt in sorted(utterances.items()):
        if take in ENROLL_TAKES and word in RANKS:
            made[speaker].add(word, utt)
    return dict(made)


def readings(rec: SphinxRecognizer, takes, match_ms: list) -> List[Reading]:
    utterances = {(s, w, t): u for s, w, t, u in clips(set(takes))}
    voices = profiles(utterances)
    rng = random.Random(2026)
    out = []
    for (speaker, word, take), utt in sorted(utterances.items()):
        if take not in takes:
            continue
        hands = []
        if word in RANKS:
            ranks = [word] + rng.sample([r for r in RANKS if r != word], 2)
            hands.append((True, ranks))
        # the same clip on a turn whose hand does not hold the word: a card one does not have
        hands.append((False, rng.sample([r for r in RANKS if r != word], 3)))
        for in_hand, ranks in hands:
            rng.shuffle(ranks)
            vocab = in_game_vocabulary([RANK_CODES[r] for r in ranks], rng.randint(0, 90))
            rec.set_vocabulary(vocab)
            heard = rec.recognize(utt.tobytes())
            t0 = time.perf_counter()
            profile = voices[speaker]
            feats = features(utt)
            distance = profile.match_features(feats, vocab)
            outside = profile.match_features(feats, fused.outside_phrases(profile, vocab, SAME))
            match_ms.append((time.perf_counter() - t0) * 1000)
            out.append(Reading(speaker, word, in_hand, heard, distance, outside))
    return out


def spoken_readings(rec: SphinxRecognizer) -> List[Reading]:
    """Off-topic talk with a profile: each espeak-ng voice of ``tests/speech_clips.VOICES``
    enrolls what spoken enrollment asks for (23 phrases, 3 takes each at 90%, 100% and 110%
    of its speed), then says every off-topic sentence of ``bench/recognition_languages.json``
    (its calibration and held-out lists, 40) on a turn with a random three-card hand, and,
    to show the profile works for these voices, each rank once on a turn whose hand holds it.
    Everything through the microphone path and the segmenter, as the FSDD clips."""
    seg = Segmenter()
    rng = random.Random(7)
    phrases = [p for p, _ in prompted_phrases(EN.language)]
    sentences = EN.calibration_off_topic + EN.held_out_off_topic
    out = []
    for v, (voice, speed) in enumerate(VOICES):
        said = lambda text, pace, seed: mic_path(  # noqa: E731
            synthesize_pcm(EN.say(text), voice=voice, speed=pace, seed=seed), seg, seed)
        profile = VoiceProfile("en")
        for k, pace in enumerate((round(speed * 0.9), speed, round(speed * 1.1))):
            for phrase in phrases:
                profile.add(phrase, said(phrase, pace, k))
        turns = [(text, False, random_hand(rng)) for text in sentences]
        for code, word in ((c, w) for w, c in RANK_CODES.items()):
            ranks, total = random_hand(rng, must=code)
            turns.append((word, True, (ranks, total)))
        for text, in_hand, (ranks, total) in turns:
            vocab = in_game_vocabulary(ranks, total)
            rec.set_vocabulary(vocab)
            utt = said(text, speed, 10 + v)
            heard = rec.recognize(utt.tobytes())
            feats = features(utt)
            out.append(Reading(voice, text, in_hand, heard, profile.match_features(feats, vocab),
                               profile.match_features(
                                   feats, fused.outside_phrases(profile, vocab, SAME))))
    return out


def spoken_report(rows: List[Reading]) -> None:
    print("\nespeak-ng voices with their own profiles: off-topic sentences (40 each) and "
          "ranks in the hand (13 each)")
    print("%-16s %-11s %14s %11s %14s %11s" % ("voice", "", "off-topic move", "read back",
                                               "rank at once", "asked"))
    for fuse, name in ((False, "no profile"), (True, "profile")):
        for voice in list(dict.fromkeys(r.speaker for r in rows)) + ["all"]:
            c = defaultdict(int)
            for r in rows:
                if voice in (r.speaker, "all"):
                    hyp = fused.judge(r.heard, r.distance, SAME, lambda: r.outside) if fuse \
                        else r.heard
                    c[(r.in_hand, outcome(hyp, r.said, r.in_hand))] += 1
                    c[r.in_hand] += 1
            print("%-16s %-11s %14s %11s %14s %11s" % (
                voice, name, "%d of %d" % (c[(False, "right")] + c[(False, "wrong")], c[False]),
                "%d" % (c[(False, "right asked")] + c[(False, "wrong asked")]),
                pct(c[(True, "right")], c[True]),
                pct(c[(True, "right asked")] + c[(True, "wrong asked")], c[True])))


def odd_takes() -> None:
    """How often spoken enrollment would ask again: for three real takes of a word, and when
    one of the three is another word (each other rank in turn)."""
    enrolled = {(s, w, t): u for s, w, t, u in clips(()) if w in RANKS}
    false_alarms = caught = swaps = 0
    groups = sorted({(s, w) for s, w, _ in enrolled})
    for speaker, word in groups:
        own = [enrolled[(speaker, word, t)] for t in ENROLL_TAKES]
        false_alarms += _odd(word, own) is not None
        for other in RANKS:
            if other != word:
                swaps += 1
                caught += _odd(word, own[:2] + [enrolled[(speaker, other, 2)]]) == 2
    print("\nspoken enrollment, takes 0-2: asked again for %d of %d words said right three "
          "times; another word as the third take caught %d of %d times" % (
              false_alarms, len(groups), caught, swaps))


def _odd(word: str, takes) -> "int | None":
    profile = VoiceProfile("en")
    for pcm in takes:
        profile.add(word, pcm)
    return profile.odd_take(word)


def outcome(hyp: Hypothesis, said: str, in_hand: bool) -> str:
    """"right", "right asked", "wrong asked", "wrong", or "other" (nothing played: "say that
    again", or a question answered)."""
    if hyp.verdict == REJECT or not hyp.text or not is_move(hyp.text):
        return "other"
    right = in_hand and same_intent(hyp.text, said)
    if hyp.verdict == CONFIRM:
        return "right asked" if right else "wrong asked"
    return "right" if right else "wrong"


def tally(rows: List[Reading], fuse: bool) -> Dict[str, Dict[str, int]]:
    counts: Dict[str, Dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in rows:
        hyp = fused.judge(r.heard, r.distance, SAME, lambda: r.outside) if fuse else r.heard
        key = r.speaker if r.in_hand and r.said in RANKS else (
            "not a card" if r.said in NOT_CARDS else "not in hand")
        for k in (key, (key, r.speaker)) if key in ("not a card", "not in hand") else (key,):
            counts[k][outcome(hyp, r.said, r.in_hand)] += 1
            counts[k]["n"] += 1
    return counts


def pct(n, d) -> str:
    return "%5.1f%%" % (100.0 * n / d) if d else "   -  "


def report(rows: List[Reading]) -> None:
    held = [r for r in rows if r.in_hand and r.distance]
    alone = sum(min(r.distance, key=r.distance.get) == r.said for r in held)
    print("\nthe matcher alone (nearest of the hand's ranks): %s of %d right" % (
        pct(alone, len(held)).strip(), len(held)))
    print("\nRank said on a turn whose hand holds it (in-game vocabulary of a three-card hand)")
    print("%-10s %-12s %6s %11s %10s %10s %13s" % ("speaker", "", "clips", "right move",
                                                   "at once", "asked", "wrong at once"))
    for fuse, name in ((False, "no profile"), (True, "profile")):
        counts = tally(rows, fuse)
        speakers = sorted(k for k in counts if isinstance(k, str)
                          and k not in ("not a card", "not in hand"))
        total = defaultdict(int)
        for s in speakers + ["all"]:
            c = counts[s] if s != "all" else total
            if s != "all":
                for k, v in c.items():
                    total[k] += v
            asked = c["right asked"] + c["wrong asked"]
            print("%-10s %-12s %6d %11s %10s %10s %13s" % (
                s, name, c["n"], pct(c["right"] + c["right asked"], c["n"]),
                pct(c["right"], c["n"]), pct(asked, c["n"]), pct(c["wrong"], c["n"])))
    print("\nWords that are not in the hand: what became a move")
    print("%-12s %-10s %-12s %6s %13s %13s %13s" % ("said", "speaker", "", "clips",
                                                    "move at once", "read back", "nothing"))
    for fuse, name in ((False, "no profile"), (True, "profile")):
        counts = tally(rows, fuse)
        speakers = sorted({r.speaker for r in rows})
        for key in ("not in hand", "not a card", "both"):
            for s in speakers + ["all"]:
                c = defaultdict(int)
                for k in (("not in hand", "not a card") if key == "both" else (key,)):
                    for n, v in counts[(k, s) if s != "all" else k].items():
                        c[n] += v
                moves_at_once = c["wrong"] + c["right"]
                asked = c["wrong asked"] + c["right asked"]
                print("%-12s %-10s %-12s %6d %13s %13s %13s" % (
                    key, s, name, c["n"], pct(moves_at_once, c["n"]), pct(asked, c["n"]),
                    pct(c["other"], c["n"])))


def sweep(rows: List[Reading]) -> None:
    """Every setting of the fusion's constants: right moves, read-backs and wrong moves at
    once, over the clips given (takes 3-9 when choosing them)."""
    print("%6s %7s %6s %7s %8s %8s %8s %10s" % ("agree", "outside", "sure", "margin", "right",
                                                  "asked", "wrong", "not held"))
    chosen = fused.AGREE_AT, fused.OUT_MARGIN, fused.SURE_AT, fused.SURE_MARGIN
    for agree, out_margin, sure, margin in itertools.product(
            (1.10, 1.12, 1.14, 1.16, 1.18, 1.20, 1.25, 1.30), (0.0, 1.0, 1.02, 1.04, 1.06, 1.08),
            (1.06, 1.10, 1.15), (1.05, 1.10, 1.20)):
        fused.AGREE_AT, fused.OUT_MARGIN, fused.SURE_AT, fused.SURE_MARGIN = (
            agree, out_margin, sure, margin)
        counts = tally(rows, True)
        held = defaultdict(int)
        for s, c in counts.items():
            if isinstance(s, str) and s not in ("not a card", "not in hand"):
                for k, v in c.items():
                    held[k] += v
        out = defaultdict(int)
        for key in ("not a card", "not in hand"):
            for k, v in counts[key].items():
                out[k] += v
        print("%6.2f %7.2f %6.2f %7.2f %8s %8s %8s %10s" % (
            agree, out_margin, sure, margin, pct(held["right"] + held["right asked"], held["n"]),
            pct(held["right asked"] + held["wrong asked"], held["n"]),
            pct(held["wrong"], held["n"]), pct(out["wrong"] + out["right"], out["n"])))
    fused.AGREE_AT, fused.OUT_MARGIN, fused.SURE_AT, fused.SURE_MARGIN = chosen


def sweep_rejected(rows: List[Reading]) -> None:
    """How near a reading the decoder rejected must be to be accepted (``REJECTED_AT``; 0:
    never), the other constants as chosen: read back, per speaker, and words not in the
    hand played at once."""
    chosen = fused.REJECTED_AT
    speakers = sorted(k for k in tally(rows, True) if isinstance(k, str)
                      and k not in ("not a card", "not in hand"))
    print("\n%8s %8s %8s %s %10s" % ("rejected", "right", "asked",
                                    " ".join("%8s" % s for s in speakers), "not held"))
    for at in (0.0, 1.0, 1.02, 1.04, 1.06, 1.08, 1.10, 1.12, 1.15, 1.20):
        fused.REJECTED_AT = at
        counts = tally(rows, True)
        held = defaultdict(int)
        for s in speakers:
            for k, v in counts[s].items():
                held[k] += v
        asked = lambda c: pct(c["right asked"] + c["wrong asked"], c["n"])  # noqa: E731
        out = sum(counts[k]["wrong"] + counts[k]["right"] for k in ("not a card", "not in hand"))
        print("%8.2f %8s %8s %s %10d" % (
            at, pct(held["right"] + held["right asked"], held["n"]), asked(held),
            " ".join("%8s" % asked(counts[s]) for s in speakers), out))
    fused.REJECTED_AT = chosen


def takes_arg(text: str):
    low, _, high = text.partition("-")
    return tuple(range(int(low), int(high or low) + 1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--takes", type=takes_arg, help="test takes, e.g. 10-19 (default; "
                                                    "3-9 with --sweep)")
    ap.add_argument("--sweep", action="store_true", help="the fusion constants' grid")
    ap.add_argument("--readings", metavar="FILE", help="keep the decodings in FILE (a pickle) "
                                                      "and reuse them when it exists")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="a fusion constant for this run, e.g. AGREE_AT=1.12 OUT_MARGIN=0 "
                         "(the fusion before its check of the phrases that cannot be said now)")
    args = ap.parse_args()
    for setting in args.set:
        name, _, value = setting.partition("=")
        if name not in ("AGREE_AT", "OUT_MARGIN", "SURE_AT", "SURE_MARGIN", "REJECTED_AT"):
            ap.error("no fusion constant %r" % name)
        setattr(fused, name, float(value))
    if not FSDD.is_dir():
        print("FSDD recordings not found at %s: nothing to measure." % FSDD)
        return
    warnings.simplefilter("ignore")
    takes = args.takes or (takes_arg("3-9") if args.sweep else takes_arg("10-19"))
    rec = SphinxRecognizer(Language.load("en").sphinx_pronunciations)
    match_ms: list = []
    spoken = None           # the espeak-ng voices' readings (off-topic talk), when measured
    if args.readings and Path(args.readings).exists():
        with open(args.readings, "rb") as f:
            rows, match_ms, *spoken = pickle.load(f)
        spoken = spoken[0] if spoken else None
    else:
        rows = readings(rec, takes, match_ms)
    if spoken is None and not args.sweep and espeak_available():
        spoken = spoken_readings(rec)
    if args.readings:
        with open(args.readings, "wb") as f:
            pickle.dump((rows, match_ms, spoken), f)
    print("FSDD %s, enrollment takes %s, test takes %d-%d, %d readings" % (
        ", ".join(sorted({r.speaker for r in rows})), ",".join(map(str, ENROLL_TAKES)),
        takes[0], takes[-1], len(rows)))
    if args.sweep:
        sweep(rows)
        sweep_rejected(rows)
        return
    report(rows)
    if spoken:
        spoken_report(spoken)
    odd_takes()
    ms = np.array(match_ms)
    print("\nmatcher time per utterance (DTW over every enrolled phrase, 3 takes each): "
          "mean %.1f ms, p95 %.1f ms" % (ms.mean(), np.percentile(ms, 95)))


if __name__ == "__main__":
    main()
