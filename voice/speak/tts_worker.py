"""Synthesis in a worker process: one pyttsx3 engine that only ever renders to a WAV file.

A process, not a thread, because espeak-ng is one global per process (pyttsx3.init() hands
every caller the same engine, and after ``save_to_file`` that engine keeps writing to the
file), pyttsx3 prints "Audio saved to ..." on stdout (the screen reader's channel), and
espeak-ng calls exit() when its data files are missing.  In the worker all of that is
contained.  Started as ``python -m voice.speak.tts_worker``.
"""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
import wave
from pathlib import Path
from typing import Callable, List, Optional, Tuple, Union

import numpy as np

from voice.errors import SpeakerError

DEFAULT_RATE_WPM = 180
_WORKER_START_S = 15.0   # a cold start on a Raspberry Pi can take seconds
_RENDER_TIMEOUT_S = 30.0


class TtsWorker:
    """A pyttsx3 engine in its own process that turns text into int16 PCM.

    Requests are one JSON line on the worker's stdin; each reply is one JSON line, followed
    by the raw samples when it carries ``"bytes"``.  Thread-safe: one request at a time.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "voice.speak.tts_worker"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                env=env, cwd=root)
        except OSError as exc:
            raise SpeakerError("The speech engine could not be started (%s)." % exc) from None
        hello = self._reply(_WORKER_START_S)
        self.voice = hello.get("voice", "")

    def render(self, text: str, rate_wpm: int, voice: Optional[str] = None) -> Tuple[np.ndarray, int]:
        """Synthesize ``text``; returns (int16 samples, sample rate)."""
        reply, payload = self._request({"cmd": "render", "text": text, "rate": int(rate_wpm),
                                        "voice": voice}, _RENDER_TIMEOUT_S)
        return np.frombuffer(payload, dtype="<i2").copy(), int(reply["rate"])

    def find_voice(self, wanted: str) -> str:
        """The engine's voice id for a voice id or a language code ("en-us", "ko")."""
        reply, _ = self._request({"cmd": "find_voice", "voice": wanted}, _RENDER_TIMEOUT_S)
        return reply["voice"]

    def voices(self) -> List[Tuple[str, List[str]]]:
        reply, _ = self._request({"cmd": "voices"}, _RENDER_TIMEOUT_S)
        return [(v[0], list(v[1])) for v in reply["voices"]]

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def close(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is None or proc.poll() is not None:
            return
        try:
            proc.stdin.close()          # the worker exits at end of input
            proc.wait(timeout=2.0)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()

    # -- protocol

    def _request(self, message: dict, timeout: float) -> Tuple[dict, bytes]:
        with self._lock:
            try:
                self._proc.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
                self._proc.stdin.flush()
            except (OSError, ValueError):
                raise SpeakerError(self._death_sentence()) from None
            reply = self._reply(timeout)
            payload = self._read_exact(int(reply.get("bytes", 0)), time.monotonic() + timeout)
            return reply, payload

    def _reply(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        line = b""
        while not line.endswith(b"\n"):
            chunk = self._read_some(1, deadline)
            line += chunk
        reply = json.loads(line.decode("utf-8"))
        if not reply.get("ok"):
            raise SpeakerError(reply.get("error", "The speech engine failed."))
        return reply

    def _read_exact(self, n: int, deadline: float) -> bytes:
        parts, got = [], 0
        while got < n:
            chunk = self._read_some(n - got, deadline)
            parts.append(chunk)
            got += len(chunk)
        return b"".join(parts)

    def _read_some(self, n: int, deadline: float) -> bytes:
        fd = self._proc.stdout.fileno()
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            self._proc.kill()
            raise SpeakerError("The speech engine stopped responding.")
        chunk = os.read(fd, n)
        if not chunk:
            raise SpeakerError(self._death_sentence())
        return chunk

    def _death_sentence(self) -> str:
        code = self._proc.poll()
        if code is None:
            try:
                code = self._proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                code = "unknown"
        return ("The speech engine (pyttsx3 with espeak-ng) stopped with exit code %s; "
                "check that espeak-ng and its data are installed." % code)


def _worker_main() -> None:
    """The worker process: render requests with one pyttsx3 engine, reply on the real stdout."""
    replies = os.fdopen(os.dup(1), "wb")
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)   # pyttsx3 prints "Audio saved to ..." for every file it writes

    def send(message: dict, payload: bytes = b"") -> None:
        if payload:
            message["bytes"] = len(payload)
        replies.write((json.dumps(message) + "\n").encode("utf-8") + payload)
        replies.flush()

    finished = threading.Event()
    try:
        import pyttsx3
        engine = pyttsx3.init()
        wait_until_idle = _espeak_idle_waiter()
        # pyttsx3 holds property changes until its first run; one empty run applies them at once.
        wait_until_idle()
        engine.runAndWait()
        # espeak-ng synthesizes in its own thread: runAndWait() can return before the file is
        # written, so wait for pyttsx3's "finished-utterance", sent after the file is closed.
        engine.connect("finished-utterance", lambda **event: finished.set())
        voices = [(v.id, list(v.languages or [])) for v in engine.getProperty("voices")]
        current = engine.getProperty("voice")
    except Exception as exc:   # a missing library or engine: reported as one sentence
        send({"ok": False, "error": "The speech engine pyttsx3 could not start (%s: %s)."
              % (type(exc).__name__, exc)})
        return
    send({"ok": True, "voice": current})

    fd, wav_path = tempfile.mkstemp(prefix="talking-cards-tts-", suffix=".wav")
    os.close(fd)
    settings = {"rate": None, "voice": None}
    try:
        for line in sys.stdin.buffer:
            request = json.loads(line.decode("utf-8"))
            try:
                command = request["cmd"]
                if command == "voices":
                    send({"ok": True, "voices": voices})
                elif command == "find_voice":
                    send({"ok": True, "voice": _match_voice(request["voice"], voices)})
                elif command == "render":
                    wait_until_idle()
                    for key in ("rate", "voice"):
                        value = request.get(key)
                        if value and value != settings[key]:
                            if key == "voice":
                                value = _match_voice(value, voices)
                            engine.setProperty(key, value)
                            settings[key] = value
                    wait_until_idle()
                    if os.path.exists(wav_path):
                        os.unlink(wav_path)   # never read the last utterance by mistake
                    finished.clear()
                    engine.save_to_file(request["text"], wav_path)
                    engine.runAndWait()
                    if not finished.wait(_RENDER_TIMEOUT_S) or not os.path.exists(wav_path):
                        raise SpeakerError("The speech engine did not finish %r." % request["text"])
                    with wave.open(wav_path, "rb") as w:
                        rate, frames = w.getframerate(), w.readframes(w.getnframes())
                    if not frames:
                        raise SpeakerError("The speech engine produced no sound for %r." % request["text"])
                    send({"ok": True, "rate": rate}, frames)
                else:
                    send({"ok": False, "error": "Unknown speech engine command %r." % command})
            except Exception as exc:
                send({"ok": False, "error": str(exc) if isinstance(exc, SpeakerError)
                      else "The speech engine failed (%s: %s)." % (type(exc).__name__, exc)})
    finally:
        if os.path.exists(wav_path):
            os.unlink(wav_path)


def _espeak_idle_waiter() -> Callable[[], None]:
    """A function that waits until espeak-ng has run every command it was given.

    espeak-ng runs commands (a rate change, an utterance) on its own thread, and pyttsx3's
    runAndWait() cancels whatever is still running there: a rate change just made can be
    dropped, or the new utterance cut to nothing.  Waiting for espeak-ng to be idle before
    and after changing a property makes every render complete and at the asked rate.
    """
    try:
        from pyttsx3.drivers import _espeak   # pyttsx3's binding of libespeak-ng
    except Exception:   # another speech engine (not Linux): nothing to wait for
        return lambda: None

    def wait() -> None:
        deadline = time.monotonic() + _RENDER_TIMEOUT_S
        while _espeak.IsPlaying() and time.monotonic() < deadline:
            time.sleep(0.002)
    return wait


def _match_voice(wanted: str, voices: List[Tuple[str, List[str]]]) -> str:
    """A voice id by exact id, then exact language, then language family ("en" -> "en-gb")."""
    key = str(wanted).strip().lower().replace("_", "-")
    tests = (lambda vid, langs: vid == key,
             lambda vid, langs: key in langs,
             lambda vid, langs: vid.rsplit("/", 1)[-1] == key,
             lambda vid, langs: any(lang.startswith(key + "-") for lang in langs))
    for test in tests:
        for vid, langs in voices:
            if test(vid.lower(), [lang.lower() for lang in langs]):
                return vid
    raise SpeakerError("There is no speech voice for %r." % wanted)


def render_speech(text: str, rate_wpm: int = DEFAULT_RATE_WPM,
                  voice: Optional[str] = None) -> Tuple[np.ndarray, int]:
    """Synthesize ``text`` once with pyttsx3, as the speaker would: (int16 samples, rate)."""
    worker = TtsWorker()
    try:
        return worker.render(text, rate_wpm, voice)
    finally:
        worker.close()


def render_to_wav(text: str, path: Union[str, Path], rate_wpm: int = DEFAULT_RATE_WPM,
                  voice: Optional[str] = None) -> Path:
    """Synthesize ``text`` with pyttsx3 into a 16-bit mono WAV file."""
    pcm, rate = render_speech(text, rate_wpm, voice)
    path = Path(path)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.astype("<i2").tobytes())
    return path


if __name__ == "__main__":
    _worker_main()
