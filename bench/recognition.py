"""Recognition benchmark for the PocketSphinx backend: prints tables for the README.

Every vocabulary is the real in-game one, built as the session builds it on a Ninety-Nine
turn (``Grammar.vocabulary`` filtered by ``NinetyNineTalk.turn(...).allowed`` for a dealt hand of three
ranks at a random total; yes/no only while a question waits, so not here), in the language
asked (``--lang``; its voices, off-topic lists and espeak-ng spellings are the bench's data,
``bench/recognition_languages.json``).

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
(e) table mode (English): the referee's vocabulary, where every rank can be said on a turn,
    on the FSDD recordings per speaker and on the espeak-ng voices.

In another language (b) and (c) use its held-out voices and off-topic list, with what the
verdict does with every command (accepted right, confirmed, rejected, accepted wrong).

    python3 bench/recognition.py              # everything (several minutes on 2 cores)
    python3 bench/recognition.py --quick      # a smaller sample
    python3 bench/recognition.py --table      # table mode (e) only
    python3 bench/recognition.py --lang tr    # Turkish on its held-out voices
    python3 bench/recognition.py [--lang tr] --calibrate  # fit that language's verdict
                                              # (its calibration voices and off-topic list only)
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
import warnings
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from engine import ninety_nine as nn  # noqa: E402
from engine import ninety_nine_table as table  # noqa: E402
from tests.speech_clips import RANK_WORDS, VOICES, noise_burst, synthesize_pcm  # noqa: E402
from voice.dialog.session import phrase_allowed  # noqa: E402
from voice.lang import Language  # noqa: E402
from voice.hear.audio import WavSource  # noqa: E402
from voice.dsp import noise_floor, speech_level_dbfs  # noqa: E402
from voice.dsp import resample  # noqa: E402
from voice.hear.recognizer import ACCEPT, CONFIRM, REJECT  # noqa: E402
from voice.games.ninety_nine import NinetyNineTalk  # noqa: E402
from voice.games.ninety_nine_table import NinetyNineTableTalk  # noqa: E402
from voice.hear.segmenter import Segmenter  # noqa: E402
from voice.hear.sphinx import MIN_MODULATION_DB, SphinxRecognizer, SphinxVerdict  # noqa: E402

def _fsdd_dir() -> Path:
    """CI places shared/ beside the clone; on the development machine it is /work/shared."""
    for base in (ROOT.parent / "shared", Path("/work/shared")):
        if (base / "speech" / "fsdd-dev").is_dir():
            return base / "speech" / "fsdd-dev"
    return ROOT.parent / "shared" / "speech" / "fsdd-dev"


FSDD = _fsdd_dir()
DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
RANK_CODES = dict(zip(RANK_WORDS, ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")))
LANGUAGE_DATA = json.loads((Path(__file__).with_name("recognition_languages.json"))
                           .read_text(encoding="utf-8"))


class Bench:
    """One language as the bench uses it: its grammar and Ninety-Nine talk, and its data (the
    calibration and held-out voices and off-topic lists, how espeak-ng spells its words)."""

    def __init__(self, code: str = "en"):
        self.code = code
        self.language = Language.load(code)
        self.grammar = self.language.grammar
        self.talk = NinetyNineTalk(self.language)
        data = LANGUAGE_DATA[code]
        voices = lambda key: tuple(tuple(v) for v in data[key]) if key in data else VOICES  # noqa: E731
        self.calibration_voices = voices("calibration_voices")
        self.held_out_voices = voices("held_out_voices")
        self.calibration_off_topic = tuple(data["calibration_off_topic"])
        self.held_out_off_topic = tuple(data["held_out_off_topic"])
        self.out_of_turn = data["out_of_turn"]
        self._say = data.get("say", {})
        self.verdict = SphinxVerdict.from_data(self.language.sphinx_verdict)

    def say(self, phrase: str) -> str:
        """What espeak-ng is given for a spoken grammar key ("dort" -> "dört")."""
        if phrase in self._say:
            return self._say[phrase]
        return " ".join(self._say.get(word, word) for word in phrase.split())

    def rank_words(self, code: str):
        return self.grammar.data["ranks"][code]["spoken"]

    def recognizer(self) -> SphinxRecognizer:
        return SphinxRecognizer(self.language.sphinx_pronunciations,
                                verdict=self.language.sphinx_verdict)


EN = Bench("en")
# Held out: none of these phrases was used to calibrate the rejection thresholds.
OFF_TOPIC = EN.held_out_off_topic


def in_game_vocabulary(hand, total: int, bench: Bench = EN):
    """The recognizer's vocabulary exactly as the session builds it on the player's turn in
    Ninety-Nine: the player holds ``hand`` (rank codes) at ``total``, no question waits
    (so no yes/no)."""
    state = deal(hand, total)
    seat = nn.current_player(state)

    menu = bench.talk.turn(state, seat, None)
    # the session's rule with no question waiting and no move to undo
    return bench.grammar.vocabulary(lambda intent: phrase_allowed(intent, lambda: menu))


def deal(hand, total: int):
    suits = "SHD"
    cards = ["%s%s" % (r, suits[i]) for i, r in enumerate(hand)]
    other = ["%sC" % r for r in RANK_CODES.values() if r not in hand][:3]
    state = replace(nn.new_game(["You", "Bot"], seed=1, deck=cards + other), total=total)
    assert nn.current_player(state) == 0 and sorted(state.hands[0]) == sorted(cards)
    return state


def random_hand(rng: random.Random, must: str = ""):
    """Three distinct rank codes (including ``must``) and a total at which ``must`` is legal."""
    codes = list(RANK_CODES.values())
    ranks = ([must] if must else []) + rng.sample([r for r in codes if r != must], 3 - bool(must))
    rng.shuffle(ranks)
    return ranks, rng.randint(0, 90)


def same_intent(heard: str, said: str, bench: Bench = EN) -> bool:
    """Right when the game would do what was said: "the seven" for "seven" is right, as is
    "what does a two do" for "what does two do" (the session acts on the intent)."""
    return bool(heard) and bench.grammar.parse(heard) == bench.grammar.parse(said)


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


def fsdd_clips(limit: int):
    """(index, speaker, rank word, utterance) of the FSDD words two ... nine, each through
    the microphone path; nothing when the recordings are not there."""
    files = sorted(p for p in FSDD.glob("*.wav") if 2 <= int(p.name.split("_")[0]) <= 9)
    if limit:
        files = files[::max(1, len(files) // limit)]
    seg = Segmenter()
    for i, path in enumerate(files):
        digit, speaker = int(path.name.split("_")[0]), path.name.split("_")[1]
        pcm = np.concatenate(list(WavSource(path, rate=16000).chunks()))
        yield i, speaker, DIGITS[digit], mic_path(pcm, seg, seed=i)


def fsdd(rec: SphinxRecognizer, limit: int, latencies: list, right: list) -> None:
    if not FSDD.is_dir():
        print("\n(a) FSDD: skipped, the recordings are not at %s" % FSDD)
        return
    rng = random.Random(99)
    by_speaker = defaultdict(lambda: [0, 0, 0, 0, 0])  # game, accepted, rank words, digits, n
    sizes = []
    for i, speaker, rank, utt in fsdd_clips(limit):
        hand, total = random_hand(rng, must=RANK_CODES[rank])
        vocab = in_game_vocabulary(hand, total)
        sizes.append(len(vocab))
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
        rec.set_vocabulary([RANK_WORDS[list(RANK_CODES.values()).index(c)] for c in hand])
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


def espeak_commands(rng: random.Random, n: int, bench: Bench = EN):
    """``n`` (vocabulary, command) pairs: a random hand and total, a phrase of its vocabulary."""
    for _ in range(n):
        vocab = in_game_vocabulary(*random_hand(rng), bench=bench)
        yield vocab, rng.choice(vocab)


SNRS = (None, 20.0, 10.0)   # clean, then white noise at 20 and 10 dB SNR


def espeak_voices(rec: SphinxRecognizer, per_voice: int, latencies: list, right: list,
                  seed: int = 7, bench: Bench = EN, commands: Optional[list] = None) -> None:
    """Reading right per voice (the language's held-out voices); ``commands`` collects every
    decoding (right or not, each condition) for the verdict table."""
    print("\n(b) espeak-ng voices (%s, held out), random in-game vocabulary, one command each"
          % bench.code)
    print("%-16s %6s %9s %9s %9s" % ("voice", "clips", "clean", "20 dB", "10 dB"))
    rng = random.Random(seed)
    totals = defaultdict(lambda: [0, 0])
    wrong = []
    for voice, speed in bench.held_out_voices:
        cells = []
        for snr in SNRS:
            n_right = 0
            for j, (vocab, cmd) in enumerate(espeak_commands(rng, per_voice, bench)):
                rec.set_vocabulary(vocab)
                pcm = synthesize_pcm(bench.say(cmd), voice=voice, speed=speed, snr_db=snr, seed=j)
                t0 = time.perf_counter()
                hyp = rec.recognize(pcm.tobytes())
                latencies.append(time.perf_counter() - t0)
                good = same_intent(hyp.text, cmd, bench)
                if commands is not None:
                    commands.append(dict(_reading(rec, hyp), right=good, snr=snr))
                if good:
                    n_right += 1
                    if snr is None:
                        right.append(_reading(rec, hyp))
                elif snr is None:
                    wrong.append("%r -> %r (%s)" % (cmd, hyp.text, voice))
            totals[snr][0] += n_right
            totals[snr][1] += per_voice
            cells.append(pct(n_right, per_voice))
        print("%-16s %6d %9s %9s %9s" % ("%s@%d" % (voice, speed), per_voice, *cells))
    print("%-16s %6d %9s %9s %9s" % ("all", totals[None][1], *(pct(*totals[s]) for s in SNRS)))
    for w in wrong:
        print("  misheard (clean):", w)


def off_topic(rec: SphinxRecognizer, readings: list, seed: int = 5, show: bool = True,
              bench: Bench = EN) -> None:
    """The held-out off-topic list and game words said out of turn, in the first four
    held-out voices, and noises: what the session does with each."""
    rng = random.Random(seed)
    said = [(t, t) for t in bench.held_out_off_topic]
    said += [(k, bench.say(k)) for k in bench.out_of_turn["held_out"]]
    items = [(label, text, v, s) for label, text in said for v, s in bench.held_out_voices[:4]]
    items += [(kind, kind, None, None) for kind in ("cough", "click", "hum") for _ in range(4)]
    for k, (label, text, voice, speed) in enumerate(items):
        rec.set_vocabulary(in_game_vocabulary(*random_hand(rng), bench=bench))
        pcm = (synthesize_pcm(text, voice=voice, speed=speed) if voice
               else noise_burst(text, seed=k))
        hyp = rec.recognize(pcm.tobytes())
        readings.append(dict(_reading(rec, hyp), said=label, voice=voice))
    if not show:
        return
    print("\n(c) off-topic speech, out-of-turn words and noises, random in-game vocabulary "
          "(held-out phrases), %d utterances: what the session does" % len(items))
    for strict, name in ((True, "open microphone"), (False, "push-to-talk")):
        done = defaultdict(list)
        for r in readings:
            done[session_outcome(r, strict, bench)].append(r)
        print("  %-15s a move at once %d, a move asked first %d, answered as a question or "
              "command %d, 'say that again' %d" % (name, len(done["move"]), len(done["confirm"]),
                                                   len(done["command"]), len(done["again"])))
        for r in done["move"]:
            print("    became a move: %r -> %r (%s)" % (r["said"], r["text"], r["voice"]))


def session_outcome(reading: dict, strict: bool, bench: Bench = EN) -> str:
    """What the session does with a reading: "move" (played at once), "confirm" ("Seven?"
    first), "command" (a question or command: answered at once, even when unsure) or
    "again" ("Sorry, say that again")."""
    verdict = bench.verdict.judge(reading, strict)
    if verdict == REJECT:
        return "again"
    if not is_move(reading["text"], bench):
        return "command"
    return "move" if verdict == ACCEPT else "confirm"


def verdict_table(groups, bench: Bench = EN) -> None:
    print("\nRIGHT readings: what the session does, open microphone (strict) and push-to-talk "
          "(lenient) thresholds")
    print("%-22s %6s %10s %10s %10s %10s %10s" % ("", "n", "at once", "asks first", "say again",
                                                  "PTT once", "PTT asks"))
    for name, readings in groups:
        n = len(readings)
        strict, lenient = defaultdict(int), defaultdict(int)
        for r in readings:
            strict[session_outcome(r, True, bench)] += 1
            lenient[session_outcome(r, False, bench)] += 1
        print("%-22s %6d %10s %10s %10s %10s %10s" % (
            name, n, pct(strict["move"] + strict["command"], n), pct(strict["confirm"], n),
            pct(strict["again"], n), pct(lenient["move"] + lenient["command"], n),
            pct(lenient["confirm"], n)))


def command_verdicts(commands: list, bench: Bench) -> None:
    """Every command decoding by its verdict: accepted and right, confirmed, rejected,
    accepted and wrong (any phrase; in brackets, wrong moves), per condition and setting."""
    print("\nVerdicts on every command decoding (%s, held-out voices): accepted right / "
          "confirmed / rejected / accepted WRONG (of which moves)" % bench.code)
    print("%-8s %-16s %5s %9s %9s %9s %14s" % ("", "", "n", "A right", "confirm", "reject",
                                               "A WRONG (move)"))
    for snr in SNRS:
        rows = [c for c in commands if c["snr"] == snr]
        n = len(rows)
        for strict, name in ((False, "push-to-talk"), (True, "open microphone")):
            count = defaultdict(int)
            for c in rows:
                verdict = bench.verdict.judge(c, strict)
                count[verdict + ("+" if c["right"] else "-")] += 1
                count["wrong move"] += verdict == ACCEPT and not c["right"] and is_move(c["text"], bench)
            print("%-8s %-16s %5d %9s %9s %9s %8s (%d)" % (
                "clean" if snr is None else "%d dB" % snr, name, n, pct(count[ACCEPT + "+"], n),
                pct(count[CONFIRM + "+"] + count[CONFIRM + "-"], n),
                pct(count[REJECT + "+"] + count[REJECT + "-"], n), pct(count[ACCEPT + "-"], n),
                count["wrong move"]))


# The verdict's score is a weighted sum of these features (voice/hear/sphinx.py).
SCORE_FEATURES = SphinxVerdict.FEATURES
# Above the highest calibration off-topic move: a margin for phrases never seen.
STRICT_MARGIN = 0.4


def telephone(pcm: np.ndarray, seg: Segmenter, seed: int) -> np.ndarray:
    """A synthesized clip as a poorer channel gives it: through 8 kHz and back, then the
    microphone path (so the calibration sees a mismatched channel without using FSDD)."""
    return mic_path(resample(resample(pcm, 16000, 8000), 8000, 16000), seg, seed)


def calibration_readings(rec: SphinxRecognizer, bench: Bench = EN, per_voice: int = 40):
    """Features of right espeak-ng commands and of the calibration off-topic list and the
    out-of-turn words (with noises), in the language's calibration voices, each clean, with
    white noise at 20 dB SNR, and through the telephone channel."""
    rng, seg = random.Random(1234), Segmenter()
    right: list = []
    voices = bench.calibration_voices
    misheard = defaultdict(int)   # (said, heard) -> how often, for the pronunciation work
    for voice, speed in voices:
        for channel in ("clean", "20 dB", "telephone"):
            for j, (vocab, cmd) in enumerate(espeak_commands(rng, per_voice, bench)):
                rec.set_vocabulary(vocab)
                pcm = synthesize_pcm(bench.say(cmd), voice=voice, speed=speed, seed=j,
                                     snr_db=20.0 if channel == "20 dB" else None)
                hyp = rec.recognize((telephone(pcm, seg, j) if channel == "telephone" else pcm).tobytes())
                if same_intent(hyp.text, cmd, bench):
                    right.append(dict(_reading(rec, hyp), channel=channel))
                else:
                    misheard[cmd, hyp.text] += 1
    # The commonest move is a bare card ("seven"), rare among random phrases: every rank too.
    bare = [(code, word) for code in RANK_CODES.values() for word in bench.rank_words(code)]
    for voice, speed in voices:
        for j, (code, word) in enumerate(bare):
            rec.set_vocabulary(in_game_vocabulary(*random_hand(rng, must=code), bench=bench))
            text = bench.say(word)
            pcm = synthesize_pcm(text, voice=voice, speed=speed)
            for channel, utt in (("clean", pcm), ("20 dB", synthesize_pcm(text, voice=voice, speed=speed,
                                                                          snr_db=20.0, seed=j)),
                                 ("telephone", telephone(pcm, seg, j))):
                hyp = rec.recognize(utt.tobytes())
                if same_intent(hyp.text, word, bench):
                    right.append(dict(_reading(rec, hyp), channel=channel))
                else:
                    misheard[word, hyp.text] += 1
    off: list = []
    rng = random.Random(4321)
    said = [(t, t) for t in bench.calibration_off_topic]
    said += [(k, bench.say(k)) for k in bench.out_of_turn["calibration"]]
    for k, (label, text) in enumerate(said):
        for voice, speed in voices:
            rec.set_vocabulary(in_game_vocabulary(*random_hand(rng), bench=bench))
            pcm = synthesize_pcm(text, voice=voice, speed=speed)
            for channel, utt in (("clean", pcm), ("20 dB", synthesize_pcm(text, voice=voice, speed=speed,
                                                                          snr_db=20.0, seed=k)),
                                 ("telephone", telephone(pcm, seg, k))):
                hyp = rec.recognize(utt.tobytes())
                off.append(dict(_reading(rec, hyp), channel=channel, said=label))
    for k, kind in enumerate(("cough", "click", "hum") * 4):
        rec.set_vocabulary(in_game_vocabulary(*random_hand(rng), bench=bench))
        hyp = rec.recognize(noise_burst(kind, seed=k).tobytes())
        off.append(dict(_reading(rec, hyp), channel="clean", said=kind))
    worst = sorted(misheard.items(), key=lambda kv: -kv[1])[:10]
    print("commonest misreadings (calibration voices, all channels): %s" % ", ".join(
        "%s -> %s %d" % (said, heard or "(nothing)", k) for (said, heard), k in worst))
    return right, off


def answer_scores(rec: SphinxRecognizer, bench: Bench, weights) -> np.ndarray:
    """Scores (under ``weights``) of the yes and no words answering a read-back ("Seven?"),
    in the calibration voices and channels, where heard right: the confirm threshold lets every
    one through (CONFIRM never plays a move; an unsure yes is listened to again between yes
    and no), or a player could not say yes to a read-back."""
    rng, seg, scores = random.Random(2468), Segmenter(), []
    for voice, speed in bench.calibration_voices:
        for j, word in enumerate(bench.out_of_turn["calibration"]):
            hand, total = random_hand(rng)
            menu = bench.talk.turn(deal(hand, total), 0, None)
            rec.set_vocabulary(bench.grammar.vocabulary(
                lambda intent, menu=menu: phrase_allowed(intent, lambda: menu, asking=True)))
            text = bench.say(word)
            pcm = synthesize_pcm(text, voice=voice, speed=speed)
            for utt in (pcm, synthesize_pcm(text, voice=voice, speed=speed, snr_db=20.0, seed=j),
                        telephone(pcm, seg, j)):
                hyp = rec.recognize(utt.tobytes())
                if same_intent(hyp.text, word, bench) and "score" in rec.last_features:
                    scores.append(sum(weights[k] * rec.last_features[k] for k in SCORE_FEATURES))
    return np.array(scores)


def is_move(text: str, bench: Bench = EN) -> bool:
    """Whether the session would take this reading as a move: it answers a question or a
    command at CONFIRM as at ACCEPT, and asks "Seven?" only before a move."""
    intent = bench.grammar.parse(text)
    return intent is not None and intent.kind not in ("command", "rules")


def fit_score(right: list, off: list, bench: Bench = EN):
    """Weights (gpf fixed at 0.1; silsp, phone_err and pace on a grid) that accept the most right moves above
    the highest off-topic reading that would be a move (the session answers questions and
    commands at CONFIRM as at ACCEPT, so only moves need the margin).  Returns the weights
    and the usable right and off-topic readings with their scores."""
    usable = lambda rs: [r for r in rs if "score" in r and not r.get("fallback")  # noqa: E731
                         and r["modulation"] >= MIN_MODULATION_DB]
    right, off = usable(right), usable(off)
    feats = lambda rs: np.array([[r[k] for k in SCORE_FEATURES] for r in rs])  # noqa: E731
    grid = np.array([(0.1, b, c, d) for b in np.arange(-4.0, 0.001, 0.25)
                     for c in np.arange(-10.0, 0.001, 0.25) for d in np.arange(-8.0, 8.001, 0.5)])
    move_r = np.array([is_move(r["text"], bench) for r in right])
    move_o = np.array([is_move(r["text"], bench) for r in off])
    accepted = ((feats(right)[move_r] @ grid.T) > (feats(off)[move_o] @ grid.T).max(axis=0)).sum(axis=0)
    best = grid[int(np.argmax(accepted))]
    weights = dict(zip(SCORE_FEATURES, (round(float(x), 2) for x in best)))
    return weights, (right, feats(right) @ best), (off, feats(off) @ best)


def calibrate(rec: SphinxRecognizer, bench: Bench = EN, per_voice: int = 40) -> None:
    """Fit the score's weights and print the language's ``sphinx_verdict`` entry with the
    figures it comes from (its calibration voices against its calibration off-topic list)."""
    weights, (right, sg), (off, sb) = fit_score(*calibration_readings(rec, bench, per_voice), bench)
    move_r = np.array([is_move(r["text"], bench) for r in right])
    move_o = np.array([is_move(r["text"], bench) for r in off])
    channel = np.array([r["channel"] for r in right])
    top = sb[move_o].max()
    print("%s: right readings %d (moves %d), off-topic readings %d (would be moves %d)" % (
        bench.code, len(sg), move_r.sum(), len(sb), move_o.sum()))
    order = np.flatnonzero(move_o)[np.argsort(sb[move_o])[::-1][:3]]
    print("highest off-topic moves: %s" % ", ".join(
        "%.2f (%r -> %r)" % (sb[i], off[i]["said"], off[i]["text"]) for i in order))
    for c in ("clean", "20 dB", "telephone"):
        sel = sg[move_r & (channel == c)]
        print("  %-9s right moves above them: %s" % (c, pct((sel > top).sum(), len(sel))))
    for q in (50, 10, 5, 3):
        print("  %d%% of right readings score below %.2f" % (q, np.percentile(sg, q)))
    answers = answer_scores(rec, bench, weights)
    print("  yes/no answering a read-back: %d heard right, the lowest scores %.2f" % (
        len(answers), answers.min()))
    confirm = min(top, np.percentile(sg, 5), answers.min())
    entry = {"weights": weights, "strict_accept": round(float(top + STRICT_MARGIN), 2),
             "lenient_accept": round(float(top), 2), "confirm": round(float(confirm), 2)}
    if rec.verdict.phone_reference != "first":   # the features were computed with it: keep it
        entry["phone_reference"] = rec.verdict.phone_reference
    print("\n\"sphinx_verdict\" for voice/lang/%s/language.json (strict: max + %.1f; lenient: "
          "max; confirm: 5th percentile of right readings or the lowest yes/no answer, the lower):"
          % (bench.code, STRICT_MARGIN))
    print(json.dumps(entry))


def table_mode(rec: SphinxRecognizer, limit: int) -> None:
    """Table mode's vocabulary (every rank can be said, corrections, "the total is ...") on
    FSDD per speaker and on the espeak-ng voices, words two ... nine: right intent, the same
    clip through an in-game hand for comparison, and what the session does."""
    talk = NinetyNineTableTalk(EN.language)
    state, _ = table.apply(table.new_game(["Ann", "Bob", "Cem"]), table.TablePlay("5"))
    menu = talk.turn(state, state.turn, None)
    # right after a play: corrections and "undo" can be said, as at a real table
    vocab = EN.grammar.vocabulary(lambda intent: phrase_allowed(intent, lambda: menu, can_undo=True))
    clips = [(speaker, rank, utt) for _, speaker, rank, utt in
             (fsdd_clips(limit) if FSDD.is_dir() else ())]
    clips += [("espeak-ng", rank, synthesize_pcm(rank, voice=voice, speed=speed, seed=j))
              for voice, speed in VOICES for j, rank in enumerate(RANK_WORDS[:8])]
    rng = random.Random(99)
    n, in_table, in_game, right = (defaultdict(int), defaultdict(int), defaultdict(int),
                                   defaultdict(list))
    for speaker, rank, utt in clips:
        group = speaker if speaker == "espeak-ng" else "FSDD " + speaker
        for key in (group, "FSDD all") if group != "espeak-ng" else (group,):
            n[key] += 1
        rec.set_vocabulary(vocab)
        hyp = rec.recognize(utt.tobytes())
        if same_intent(hyp.text, rank):
            for key in (group, "FSDD all") if group != "espeak-ng" else (group,):
                in_table[key] += 1
                right[key].append(_reading(rec, hyp))
        rec.set_vocabulary(in_game_vocabulary(*random_hand(rng, must=RANK_CODES[rank])))
        if same_intent(rec.recognize(utt.tobytes()).text, rank):
            for key in (group, "FSDD all") if group != "espeak-ng" else (group,):
                in_game[key] += 1
    print("\n(e) table mode: %d phrases (every rank, its values, corrections, 'the total is N', "
          "the questions), words two..nine: FSDD and espeak-ng (6 voices)" % len(vocab))
    print("%-16s %5s %11s %11s %11s %11s %11s" % ("", "clips", "table vocab", "(in-game)",
                                                  "asks first", "PTT asks", "say again"))
    for key in sorted(n, key=lambda k: (k == "espeak-ng", k == "FSDD all", k)):
        outcome = [session_outcome(r, strict) for r in right[key] for strict in (True, False)]
        strict, lenient = outcome[0::2], outcome[1::2]
        print("%-16s %5d %11s %11s %11s %11s %11s" % (
            key, n[key], pct(in_table[key], n[key]), pct(in_game[key], n[key]),
            pct(strict.count("confirm"), len(strict)), pct(lenient.count("confirm"), len(lenient)),
            pct(strict.count("again"), len(strict))))
    print("  (in-game): the same clip through a Ninety-Nine hand holding its rank; 'asks first' "
          "(open microphone), 'PTT asks' (push-to-talk) and 'say again' are shares of the right "
          "readings of the table vocabulary")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller samples")
    ap.add_argument("--calibrate", action="store_true", help="print the calibration figures only")
    ap.add_argument("--lang", default="en", choices=[c for c in LANGUAGE_DATA if not c.startswith("_")],
                    help="the language whose grammar, voices and verdict are measured")
    ap.add_argument("--table", action="store_true", help="table mode (English) only")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    bench = EN if args.lang == "en" else Bench(args.lang)
    rec = bench.recognizer()
    if args.calibrate:
        calibrate(rec, bench, 15 if args.quick else 40)
        return
    if args.table:
        table_mode(rec, 120 if args.quick else 0)
        return
    lat_fsdd, lat_espeak = [], []
    r_fsdd, r_espeak, r_off, commands = [], [], [], []
    if bench is EN:
        fsdd(rec, 120 if args.quick else 0, lat_fsdd, r_fsdd)
    espeak_voices(rec, 10 if args.quick else 30, lat_espeak, r_espeak, bench=bench,
                  commands=commands)
    off_topic(rec, r_off, bench=bench)
    groups = [("espeak right (clean)", r_espeak)]
    verdict_table(([("FSDD right readings", r_fsdd)] if bench is EN else []) + groups, bench)
    if bench is not EN:
        command_verdicts(commands, bench)
    lat = np.array(lat_fsdd + lat_espeak) * 1000
    print("\n(d) decode latency, end of utterance -> hypothesis, %d utterances:" % len(lat))
    print("  mean %.0f ms, p95 %.0f ms (the segmenter adds its %.1f s trailing silence before this)"
          % (lat.mean(), np.percentile(lat, 95), Segmenter().trailing_frames / 100))
    if bench is EN:
        table_mode(rec, 120 if args.quick else 0)


if __name__ == "__main__":
    main()
