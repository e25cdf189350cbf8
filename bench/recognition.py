"""Recognition benchmark for the PocketSphinx backend: prints tables for the README.

Every vocabulary is the real in-game one, built as the session builds it on a Ninety-Nine
turn (``Grammar.vocabulary`` filtered by ``NinetyNineTalk.turn(...).allowed`` for a dealt hand of three
ranks at a random total; yes/no only while a question waits, so not here).

A reading is right when it means what was said (same intent: "the seven" for "seven").

(a) FSDD recordings (real people, 8 kHz), words two ... nine, per speaker, through the
    in-game vocabulary of a hand holding the clip's rank (and, for comparison, through the
    three rank words alone and the ten digits).  Audio path of a microphone:
    WAV -> resample to 16 kHz -> noise floor around the word -> segmenter -> recognizer.
    FSDD is never used for calibration: it is the benchmark.
(b) espeak-ng voices, clean and with white noise at 20 dB and 10 dB SNR.
(c) off-topic phrases (a list never used for calibration): how many became ACCEPTed moves,
    and how many right commands were sent to a confirmation.
(d) decode latency from the end of the utterance to the hypothesis.

    python3 bench/recognition.py              # everything (several minutes on 2 cores)
    python3 bench/recognition.py --quick      # a smaller sample
    python3 bench/recognition.py --calibrate  # fit the verdict thresholds (espeak-ng clips
                                              # against CALIBRATION_OFF_TOPIC only)
"""
from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from engine import ninety_nine as nn  # noqa: E402
from tests.speech_clips import RANK_WORDS, VOICES, noise_burst, synthesize_pcm  # noqa: E402
from voice.dialog.session import phrase_allowed  # noqa: E402
from voice.lang import Language  # noqa: E402
from voice.hear.audio import WavSource  # noqa: E402
from voice.dsp import noise_floor, speech_level_dbfs  # noqa: E402
from voice.dsp import resample  # noqa: E402
from voice.hear.recognizer import ACCEPT, REJECT  # noqa: E402
from voice.games.ninety_nine import NinetyNineTalk  # noqa: E402
from voice.hear.segmenter import Segmenter  # noqa: E402
from voice.hear.sphinx import MIN_MODULATION_DB, SphinxRecognizer  # noqa: E402

def _fsdd_dir() -> Path:
    """CI places shared/ beside the clone; on the development machine it is /work/shared."""
    for base in (ROOT.parent / "shared", Path("/work/shared")):
        if (base / "speech" / "fsdd-dev").is_dir():
            return base / "speech" / "fsdd-dev"
    return ROOT.parent / "shared" / "speech" / "fsdd-dev"


FSDD = _fsdd_dir()
DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
RANK_CODES = dict(zip(RANK_WORDS, ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")))
GRAMMAR = Language.load("en").grammar
TALK = NinetyNineTalk(Language.load("en"))
# Held out: none of these phrases was used to calibrate the rejection thresholds.
OFF_TOPIC = ("could you turn on the radio", "my name is peter", "where is the remote",
             "i need a coffee", "it is cold in here", "catherine", "anthony", "see you later",
             "what time is it", "the dog wants to go out", "do you want some tea",
             "that was a good movie", "mark", "hang on", "excuse me", "let me think",
             "the phone is ringing", "who is at the door", "close the window", "daniel")
# Calibration only (--calibrate): never reported as a result.
CALIBRATION_OFF_TOPIC = ("what is the weather", "hello there", "pass the salt", "good morning",
                         "michael", "turn off the light", "how are you", "i am hungry",
                         "the cat is asleep", "open the door", "thank you very much", "sarah",
                         "nice to meet you", "where are my keys", "it is raining", "robert",
                         "let us go home", "bring me the book", "oh no", "well done")


def in_game_vocabulary(hand_ranks, total: int):
    """The recognizer's vocabulary exactly as the session builds it on the player's turn in
    Ninety-Nine: the player holds ``hand_ranks`` (rank words) at ``total``, no question waits
    (so no yes/no)."""
    state = deal(hand_ranks, total)
    seat = nn.current_player(state)

    menu = TALK.turn(state, seat, None)
    # the session's rule with no question waiting and no move to undo
    return GRAMMAR.vocabulary(lambda intent: phrase_allowed(intent, lambda: menu))


def deal(hand_ranks, total: int):
    suits = "SHD"
    hand = ["%s%s" % (RANK_CODES[r], suits[i]) for i, r in enumerate(hand_ranks)]
    other = ["%sC" % RANK_CODES[r] for r in RANK_WORDS if r not in hand_ranks][:3]
    state = replace(nn.new_game(["You", "Bot"], seed=1, deck=hand + other), total=total)
    assert nn.current_player(state) == 0 and sorted(state.hands[0]) == sorted(hand)
    return state


def random_hand(rng: random.Random, must: str = ""):
    """Three distinct ranks (including ``must``) and a total at which ``must`` is legal."""
    ranks = ([must] if must else []) + rng.sample([r for r in RANK_WORDS if r != must], 3 - bool(must))
    rng.shuffle(ranks)
    return ranks, rng.randint(0, 90)


def same_intent(heard: str, said: str) -> bool:
    """Right when the game would do what was said: "the seven" for "seven" is right, as is
    "what does a two do" for "what does two do" (the session acts on the intent)."""
    return bool(heard) and GRAMMAR.parse(heard) == GRAMMAR.parse(said)


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


def fsdd(rec: SphinxRecognizer, limit: int, latencies: list, right: list) -> None:
    if not FSDD.is_dir():
        print("\n(a) FSDD: skipped, the recordings are not at %s" % FSDD)
        return
    files = sorted(p for p in FSDD.glob("*.wav") if 2 <= int(p.name.split("_")[0]) <= 9)
    if limit:
        files = files[::max(1, len(files) // limit)]
    rng = random.Random(99)
    seg = Segmenter()
    by_speaker = defaultdict(lambda: [0, 0, 0, 0, 0])  # game, accepted, rank words, digits, n
    sizes = []
    for i, path in enumerate(files):
        digit, speaker = int(path.name.split("_")[0]), path.name.split("_")[1]
        rank = DIGITS[digit]
        hand, total = random_hand(rng, must=rank)
        vocab = in_game_vocabulary(hand, total)
        sizes.append(len(vocab))
        pcm = np.concatenate(list(WavSource(path, rate=16000).chunks()))
        utt = mic_path(pcm, seg, seed=i)
        rec.set_vocabulary(vocab)
        t0 = time.perf_counter()
        hyp = rec.recognize(utt.tobytes())
        latencies.append(time.perf_counter() - t0)
        row = by_speaker[speaker]
        row[4] += 1
        if same_intent(hyp.text, rank):
            row[0] += 1
            row[1] += hyp.verdict == ACCEPT
            right.append(_reading(rec, hyp))
        rec.set_vocabulary(hand)
        row[2] += rec.recognize(utt.tobytes()).text == rank
        rec.set_vocabulary(DIGITS)
        row[3] += rec.recognize(utt.tobytes()).text == rank
    print("\n(a) FSDD real speech, words two..nine, 8 kHz -> 16 kHz, noise floor, segmenter")
    print("in-game vocabulary: %d-%d phrases (mean %.0f), as the session builds it for a hand "
          "holding the clip's rank" % (min(sizes), max(sizes), np.mean(sizes)))
    print("%-9s %5s %13s %13s %13s %11s" % ("speaker", "clips", "in-game vocab", "and accepted",
                                            "3 rank words", "ten digits"))
    tot = [0] * 5
    for speaker in sorted(by_speaker):
        g, a, h, d, n = by_speaker[speaker]
        tot = [x + y for x, y in zip(tot, by_speaker[speaker])]
        print("%-9s %5d %13s %13s %13s %11s" % (speaker, n, pct(g, n), pct(a, n), pct(h, n), pct(d, n)))
    g, a, h, d, n = tot
    print("%-9s %5d %13s %13s %13s %11s" % ("all", n, pct(g, n), pct(a, n), pct(h, n), pct(d, n)))


def _reading(rec: SphinxRecognizer, hyp) -> dict:
    """What a threshold sweep needs of one reading: its features and its verdict."""
    return dict(rec.last_features, verdict=hyp.verdict, text=hyp.text)


def espeak_commands(rng: random.Random, n: int):
    """``n`` (vocabulary, command) pairs: a random hand and total, a phrase of its vocabulary."""
    for _ in range(n):
        vocab = in_game_vocabulary(*random_hand(rng))
        yield vocab, rng.choice(vocab)


def espeak_voices(rec: SphinxRecognizer, per_voice: int, latencies: list, right: list,
                  seed: int = 7) -> None:
    print("\n(b) espeak-ng voices, random in-game vocabulary, one command each")
    print("%-16s %6s %9s %9s %9s" % ("voice", "clips", "clean", "20 dB", "10 dB"))
    rng = random.Random(seed)
    totals = defaultdict(lambda: [0, 0])
    wrong = []
    for voice, speed in VOICES:
        cells = []
        for snr in (None, 20.0, 10.0):
            n_right = 0
            for j, (vocab, cmd) in enumerate(espeak_commands(rng, per_voice)):
                rec.set_vocabulary(vocab)
                pcm = synthesize_pcm(cmd, voice=voice, speed=speed, snr_db=snr, seed=j)
                t0 = time.perf_counter()
                hyp = rec.recognize(pcm.tobytes())
                latencies.append(time.perf_counter() - t0)
                if same_intent(hyp.text, cmd):
                    n_right += 1
                    if snr is None:
                        right.append(_reading(rec, hyp))
                elif snr is None:
                    wrong.append("%r -> %r (%s)" % (cmd, hyp.text, voice))
            totals[snr][0] += n_right
            totals[snr][1] += per_voice
            cells.append(pct(n_right, per_voice))
        print("%-16s %6d %9s %9s %9s" % ("%s@%d" % (voice, speed), per_voice, *cells))
    print("%-16s %6d %9s %9s %9s" % ("all", totals[None][1], *(pct(*totals[s]) for s in (None, 20.0, 10.0))))
    for w in wrong:
        print("  misheard (clean):", w)


def off_topic(rec: SphinxRecognizer, phrases, readings: list, seed: int = 5, show: bool = True) -> None:
    rng = random.Random(seed)
    items = [(t, v, s) for t in phrases for v, s in VOICES[:4]]
    items += [(kind, None, None) for kind in ("cough", "click", "hum") for _ in range(4)]
    for k, (text, voice, speed) in enumerate(items):
        rec.set_vocabulary(in_game_vocabulary(*random_hand(rng)))
        pcm = (synthesize_pcm(text, voice=voice, speed=speed) if voice
               else noise_burst(text, seed=k))
        hyp = rec.recognize(pcm.tobytes())
        readings.append(dict(_reading(rec, hyp), said=text, voice=voice))
    if not show:
        return
    print("\n(c) off-topic speech and noises, random in-game vocabulary (held-out phrases), "
          "%d utterances: what the session does" % len(items))
    for strict, name in ((True, "open microphone"), (False, "push-to-talk")):
        done = defaultdict(list)
        for r in readings:
            done[session_outcome(r, strict)].append(r)
        print("  %-15s a move at once %d, a move asked first %d, answered as a question or "
              "command %d, 'say that again' %d" % (name, len(done["move"]), len(done["confirm"]),
                                                   len(done["command"]), len(done["again"])))
        for r in done["move"]:
            print("    became a move: %r -> %r (%s)" % (r["said"], r["text"], r["voice"]))


def session_outcome(reading: dict, strict: bool) -> str:
    """What the session does with a reading: "move" (played at once), "confirm" ("Seven?"
    first), "command" (a question or command: answered at once, even when unsure) or
    "again" ("Sorry, say that again")."""
    verdict = rec_judge(reading, strict)
    if verdict == REJECT:
        return "again"
    if not is_move(reading["text"]):
        return "command"
    return "move" if verdict == ACCEPT else "confirm"


def verdict_table(groups) -> None:
    print("\nRIGHT readings: what the session does, open microphone (strict) and push-to-talk "
          "(lenient) thresholds")
    print("%-22s %6s %10s %10s %10s %10s %10s" % ("", "n", "at once", "asks first", "say again",
                                                  "PTT once", "PTT asks"))
    for name, readings in groups:
        n = len(readings)
        strict, lenient = defaultdict(int), defaultdict(int)
        for r in readings:
            strict[session_outcome(r, True)] += 1
            lenient[session_outcome(r, False)] += 1
        print("%-22s %6d %10s %10s %10s %10s %10s" % (
            name, n, pct(strict["move"] + strict["command"], n), pct(strict["confirm"], n),
            pct(strict["again"], n), pct(lenient["move"] + lenient["command"], n),
            pct(lenient["confirm"], n)))


def rec_judge(features: dict, strict: bool) -> str:
    return SphinxRecognizer.judge_features(features, strict)


# The verdict's score is a weighted sum of these features (voice/hear/sphinx.py).
SCORE_FEATURES = ("gpf", "silsp", "phone_err")
# Above the highest calibration off-topic move: a margin for phrases never seen.
STRICT_MARGIN = 0.4


def telephone(pcm: np.ndarray, seg: Segmenter, seed: int) -> np.ndarray:
    """A synthesized clip as a poorer channel gives it: through 8 kHz and back, then the
    microphone path (so the calibration sees a mismatched channel without using FSDD)."""
    return mic_path(resample(resample(pcm, 16000, 8000), 8000, 16000), seg, seed)


# Game words said when the vocabulary leaves them out (no question waits): calibration too.
OUT_OF_TURN = ("yes", "no")


def calibration_readings(rec: SphinxRecognizer, per_voice: int = 40):
    """Features of right espeak-ng commands and of CALIBRATION_OFF_TOPIC and OUT_OF_TURN (with
    noises), each clean, with white noise at 20 dB SNR, and through the telephone channel."""
    rng, seg = random.Random(1234), Segmenter()
    right: list = []
    for voice, speed in VOICES:
        for channel in ("clean", "20 dB", "telephone"):
            for j, (vocab, cmd) in enumerate(espeak_commands(rng, per_voice)):
                rec.set_vocabulary(vocab)
                pcm = synthesize_pcm(cmd, voice=voice, speed=speed, seed=j,
                                     snr_db=20.0 if channel == "20 dB" else None)
                hyp = rec.recognize((telephone(pcm, seg, j) if channel == "telephone" else pcm).tobytes())
                if same_intent(hyp.text, cmd):
                    right.append(dict(_reading(rec, hyp), channel=channel))
    # The commonest move is a bare card ("seven"), rare among random phrases: every rank too.
    for voice, speed in VOICES:
        for j, rank in enumerate(RANK_WORDS):
            rec.set_vocabulary(in_game_vocabulary(*random_hand(rng, must=rank)))
            pcm = synthesize_pcm(rank, voice=voice, speed=speed)
            for channel, utt in (("clean", pcm), ("20 dB", synthesize_pcm(rank, voice=voice, speed=speed,
                                                                          snr_db=20.0, seed=j)),
                                 ("telephone", telephone(pcm, seg, j))):
                hyp = rec.recognize(utt.tobytes())
                if same_intent(hyp.text, rank):
                    right.append(dict(_reading(rec, hyp), channel=channel))
    off: list = []
    rng = random.Random(4321)
    for k, text in enumerate(CALIBRATION_OFF_TOPIC + OUT_OF_TURN):
        for voice, speed in VOICES:
            rec.set_vocabulary(in_game_vocabulary(*random_hand(rng)))
            pcm = synthesize_pcm(text, voice=voice, speed=speed)
            for channel, utt in (("clean", pcm), ("20 dB", synthesize_pcm(text, voice=voice, speed=speed,
                                                                          snr_db=20.0, seed=k)),
                                 ("telephone", telephone(pcm, seg, k))):
                hyp = rec.recognize(utt.tobytes())
                off.append(dict(_reading(rec, hyp), channel=channel, said=text))
    for k, kind in enumerate(("cough", "click", "hum") * 4):
        rec.set_vocabulary(in_game_vocabulary(*random_hand(rng)))
        hyp = rec.recognize(noise_burst(kind, seed=k).tobytes())
        off.append(dict(_reading(rec, hyp), channel="clean", said=kind))
    return right, off


def is_move(text: str) -> bool:
    """Whether the session would take this reading as a move: it answers a question or a
    command at CONFIRM as at ACCEPT, and asks "Seven?" only before a move."""
    intent = GRAMMAR.parse(text)
    return intent is not None and intent.kind not in ("command", "rules")


def fit_score(right: list, off: list):
    """Weights (gpf fixed at 0.1) from a grid: those that accept the most right moves above
    the highest off-topic reading that would be a move (the session answers questions and
    commands at CONFIRM as at ACCEPT, so only moves need the margin).  Returns the weights
    and the usable right and off-topic readings with their scores."""
    usable = lambda rs: [r for r in rs if "score" in r and not r.get("fallback")  # noqa: E731
                         and r["modulation"] >= MIN_MODULATION_DB]
    right, off = usable(right), usable(off)
    feats = lambda rs: np.array([[r[k] for k in SCORE_FEATURES] for r in rs])  # noqa: E731
    grid = np.array([(0.1, b, c) for b in np.arange(-4.0, 0.001, 0.25)
                     for c in np.arange(-10.0, 0.001, 0.25)])
    move_r = np.array([is_move(r["text"]) for r in right])
    move_o = np.array([is_move(r["text"]) for r in off])
    accepted = ((feats(right)[move_r] @ grid.T) > (feats(off)[move_o] @ grid.T).max(axis=0)).sum(axis=0)
    best = grid[int(np.argmax(accepted))]
    weights = dict(zip(SCORE_FEATURES, (round(float(x), 2) for x in best)))
    return weights, (right, feats(right) @ best), (off, feats(off) @ best)


def calibrate(rec: SphinxRecognizer) -> None:
    """Fit the score's weights and print the constants of voice/hear/sphinx.py with the
    figures they come from (espeak-ng against CALIBRATION_OFF_TOPIC only)."""
    weights, (right, sg), (off, sb) = fit_score(*calibration_readings(rec))
    move_r = np.array([is_move(r["text"]) for r in right])
    move_o = np.array([is_move(r["text"]) for r in off])
    channel = np.array([r["channel"] for r in right])
    top = sb[move_o].max()
    print("right readings %d (moves %d), off-topic readings %d (would be moves %d)" % (
        len(sg), move_r.sum(), len(sb), move_o.sum()))
    order = np.flatnonzero(move_o)[np.argsort(sb[move_o])[::-1][:3]]
    print("highest off-topic moves: %s" % ", ".join(
        "%.2f (%r -> %r)" % (sb[i], off[i]["said"], off[i]["text"]) for i in order))
    for c in ("clean", "20 dB", "telephone"):
        sel = sg[move_r & (channel == c)]
        print("  %-9s right moves above them: %s" % (c, pct((sel > top).sum(), len(sel))))
    for q in (50, 10, 5, 3):
        print("  %d%% of right readings score below %.2f" % (q, np.percentile(sg, q)))
    print("\nSCORE_WEIGHTS = %r" % weights)
    print("THRESHOLDS = (%.2f, %.2f, %.2f)  # strict: max + %.1f; lenient: max; confirm: 5th "
          "percentile" % (top + STRICT_MARGIN, top, np.percentile(sg, 5), STRICT_MARGIN))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller samples")
    ap.add_argument("--calibrate", action="store_true", help="print the calibration figures only")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    rec = SphinxRecognizer(Language.load("en").sphinx_pronunciations)
    if args.calibrate:
        calibrate(rec)
        return
    lat_fsdd, lat_espeak = [], []
    r_fsdd, r_espeak, r_off = [], [], []
    fsdd(rec, 120 if args.quick else 0, lat_fsdd, r_fsdd)
    espeak_voices(rec, 10 if args.quick else 30, lat_espeak, r_espeak)
    off_topic(rec, OFF_TOPIC, r_off)
    verdict_table([("FSDD right readings", r_fsdd), ("espeak right (clean)", r_espeak)])
    lat = np.array(lat_fsdd + lat_espeak) * 1000
    print("\n(d) decode latency, end of utterance -> hypothesis, %d utterances:" % len(lat))
    print("  mean %.0f ms, p95 %.0f ms (the segmenter adds its %.1f s trailing silence before this)"
          % (lat.mean(), np.percentile(lat, 95), Segmenter().trailing_frames / 100))


if __name__ == "__main__":
    main()
