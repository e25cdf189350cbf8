"""Speech out: a queue of announcements and earcons, spoken without blocking the game.

    speaker = Speaker(on_text=print)
    speaker.say("North plays the queen of hearts. Total ninety-one.")
    speaker.earcon("your_turn")
    speaker.say("Your turn.", interrupt=True)   # drops what is still queued and cuts the current one
    speaker.wait_until_quiet(5.0)

How it works, and why:

* Synthesis runs in a small worker process (``python -m voice.speaker --tts-worker``) that
  owns one pyttsx3 engine and only ever renders to a WAV file.  A process, not a thread,
  because espeak-ng is one global per process (pyttsx3.init() hands every caller the same
  engine, and after ``save_to_file`` that engine keeps writing to the file), pyttsx3 prints
  "Audio saved to ..." on stdout (the screen reader's channel), and espeak-ng calls exit()
  when its data files are missing.  In the worker all of that is contained.
* Playback happens here, through sounddevice, in short blocks: so playback failures are
  seen (pyttsx3's own ``say`` plays through ``aplay`` and reports nothing), an interrupt
  takes effect within one block, and earcons use the same output.
* Every announcement is also given to ``on_text`` as one plain line, at once, so a screen
  reader or a log shows it even when no sound can be made.
* ``is_speaking`` is set from the moment something audible is queued until ``holdoff_s``
  after the last sound ends (the room's echo of a voice), or a shorter hold-off after an
  earcon (a "listening" beep is followed at once by the player's words); the microphone
  drops its input meanwhile.
* When synthesis or sound output cannot work, the speaker says so once (one sentence to
  ``on_problem``, stderr by default) and carries on as text only.  Never a traceback.
"""
from __future__ import annotations

import json
import os
import queue
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

from voice.earcons import earcon as make_earcon

DEFAULT_RATE_WPM = 180
MIN_RATE_WPM, MAX_RATE_WPM, RATE_STEP_WPM = 80, 450, 25
_BLOCK_S = 0.02          # playback block: an interrupt cuts the sound within this
# Output buffer: generous, because the recognizer may be decoding on the same cores (a
# Raspberry Pi) and an underrun is a stutter mid-word; 0.1 s more before the first sound is
# not noticed in a turn-based game.
_OUTPUT_LATENCY_S = 0.1
_EARCON_HOLDOFF_S = 0.1
_WORKER_START_S = 15.0   # a cold start on a Raspberry Pi can take seconds
_RENDER_TIMEOUT_S = 30.0


class SpeakerError(RuntimeError):
    """Speech cannot be produced as asked: one clear sentence the caller can speak or show."""


def print_line(text: str) -> None:
    """The plain-text channel: one line per announcement, flushed at once."""
    print(text, flush=True)


def _print_problem(sentence: str) -> None:
    print(sentence, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- synthesis

class TtsWorker:
    """A pyttsx3 engine in its own process that turns text into int16 PCM.

    Requests are one JSON line on the worker's stdin; each reply is one JSON line, followed
    by the raw samples when it carries ``"bytes"``.  Thread-safe: one request at a time.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        root = str(Path(__file__).resolve().parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "voice.speaker", "--tts-worker"],
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


# --------------------------------------------------------------------------- sound output

class SoundOutput:
    """Plays int16 mono PCM on a sounddevice output, in short blocks so it can be cut off."""

    def __init__(self, device: Optional[Union[int, str]] = None) -> None:
        try:
            import sounddevice
        except (ImportError, OSError) as exc:
            raise SpeakerError("Sound output is not available: the PortAudio library could not be "
                               "loaded (%s); install libportaudio2." % exc) from None
        self._sd = sounddevice
        self.device = device
        try:
            info = sounddevice.query_devices(device, kind="output")
        except (ValueError, sounddevice.PortAudioError):
            raise SpeakerError("No sound output device was found.") from None
        self.device_rate = int(info["default_samplerate"])
        self.device_name = info["name"]
        self.latency = 0.0   # the device's reported output latency, seconds

    def play(self, pcm: np.ndarray, rate: int, should_stop: Callable[[], bool],
             on_start: Callable[[], None] = lambda: None) -> bool:
        """Play to the end (True) or until ``should_stop()`` (False); raises SpeakerError."""
        sd = self._sd
        try:
            sd.check_output_settings(self.device, samplerate=rate, channels=1, dtype="int16")
        except (ValueError, sd.PortAudioError):
            from voice.audio import resample   # the device cannot take this rate itself
            pcm, rate = resample(pcm, rate, self.device_rate), self.device_rate
        block = max(1, int(rate * _BLOCK_S))
        try:
            stream = sd.OutputStream(samplerate=rate, channels=1, dtype="int16",
                                     device=self.device, latency=_OUTPUT_LATENCY_S)
        except (ValueError, sd.PortAudioError):
            raise SpeakerError("The sound output %s could not be opened." % self.device_name) from None
        completed = False
        try:
            stream.start()
            self.latency = float(stream.latency)
            for n, start in enumerate(range(0, len(pcm), block)):
                if should_stop():
                    break
                stream.write(np.ascontiguousarray(pcm[start:start + block]).reshape(-1, 1))
                if n == 0:
                    on_start()
            else:
                # stop() does not wait for the buffer to play out everywhere (ALSA's pulse
                # plugin drops it): push the last sound through with a little silence.
                tail = np.zeros((int(rate * (self.latency + 2 * _BLOCK_S)), 1), dtype=np.int16)
                stream.write(tail)
                completed = True
        except sd.PortAudioError:   # the device went away: unplugged, or its server stopped
            raise SpeakerError("The sound output stopped working.") from None
        finally:
            try:
                if completed:
                    stream.stop()    # plays out what is buffered
                else:
                    stream.abort()   # cut off now
                stream.close()
            except sd.PortAudioError:
                pass
        return completed


# --------------------------------------------------------------------------- the speaker

class _Item:
    __slots__ = ("kind", "payload", "generation", "queued_at")

    def __init__(self, kind: str, payload: str, generation: int) -> None:
        self.kind, self.payload, self.generation = kind, payload, generation
        self.queued_at = time.perf_counter()


class Speaker:
    """Announcements and earcons, spoken one after another in a background thread.

    ``on_text(line)`` receives every announcement as one plain line (``print_line`` prints
    it); in ``muted`` mode nothing is played and announcements only go to ``on_text``
    (printed when no ``on_text`` is given).  ``on_problem(sentence)`` is told once when
    speech or sound output cannot work (stderr by default).  ``on_sound_start(kind, what)``
    is called from the speech thread as each sound starts: ("say", text) or ("earcon", name).
    """

    def __init__(self, muted: bool = False, on_text: Optional[Callable[[str], None]] = None,
                 on_problem: Optional[Callable[[str], None]] = None,
                 rate_wpm: int = DEFAULT_RATE_WPM, volume: float = 1.0,
                 voice: Optional[str] = None, output_device: Optional[Union[int, str]] = None,
                 holdoff_s: float = 0.3,
                 on_sound_start: Optional[Callable[[str, str], None]] = None) -> None:
        self.muted = bool(muted)
        self.on_sound_start = on_sound_start
        self.on_text = on_text if on_text is not None else (print_line if muted else None)
        self.on_problem = on_problem or _print_problem
        self.holdoff_s = float(holdoff_s)
        self._holdoff_now = self.holdoff_s   # for the sound that played last
        self.is_speaking = threading.Event()
        self.rate_wpm = _clamp_rate(rate_wpm)
        self.volume = min(1.0, max(0.0, float(volume)))
        self.voice: Optional[str] = None
        self.last_start_delay: Optional[float] = None   # say() -> first block written, seconds
        self._queue: "queue.Queue[Optional[_Item]]" = queue.Queue()
        self._lock = threading.Condition()
        self._pending = 0
        self._generation = 0
        self._closed = False
        self._reported: set = set()
        self._output: Optional[SoundOutput] = None
        self._tts: Optional[TtsWorker] = None
        if not self.muted:
            self._start_audio(output_device)
            if voice and self._tts is not None:
                try:
                    self.set_voice(voice)
                except SpeakerError as exc:   # a wrong preference is not worth stopping for
                    self.on_problem(str(exc))
        self._thread = threading.Thread(target=self._run, name="speaker", daemon=True)
        self._thread.start()

    # -- what the game calls

    @property
    def speech_available(self) -> bool:
        """True when announcements are actually spoken, not only shown as text."""
        return self._output is not None and self._tts is not None

    def say(self, text: str, interrupt: bool = False) -> None:
        """Queue one announcement; returns at once.  ``interrupt`` drops what is queued first."""
        line = " ".join(str(text).split())
        if not line:
            return
        if self.on_text is not None:
            self.on_text(line)
        if interrupt:
            self.stop()
        if self.speech_available:
            self._enqueue("say", line)

    def earcon(self, name: str) -> None:
        """Queue the earcon ``name`` (see voice.earcons.NAMES); unknown names raise EarconError."""
        make_earcon(name)   # an unknown name fails here, in the caller, with its sentence
        if self._output is not None:
            self._enqueue("earcon", name)

    def stop(self) -> None:
        """Drop everything queued and cut off what is playing now."""
        with self._lock:
            self._generation += 1
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                self._done_with_item()
            else:
                self._queue.put(None)   # keep a close() request
                break

    def wait_until_quiet(self, timeout: Optional[float] = None) -> bool:
        """Block until everything queued has been played; False if ``timeout`` ran out first."""
        with self._lock:
            return self._lock.wait_for(lambda: self._pending == 0, timeout)

    def set_rate(self, words_per_minute: int) -> int:
        self.rate_wpm = _clamp_rate(words_per_minute)
        return self.rate_wpm

    def slower(self) -> int:
        return self.set_rate(self.rate_wpm - RATE_STEP_WPM)

    def faster(self) -> int:
        return self.set_rate(self.rate_wpm + RATE_STEP_WPM)

    def set_volume(self, volume: float) -> float:
        self.volume = min(1.0, max(0.0, float(volume)))
        return self.volume

    def set_voice(self, voice: str) -> str:
        """Choose a voice by id ("gmw/en-us") or language ("en", "ko"); returns the voice id.

        Raises SpeakerError (one sentence) when no voice fits; the voice stays as it was.
        """
        tts = self._tts   # the speech thread may drop a dead engine at any moment
        if tts is None:
            self.voice = voice
            return voice
        self.voice = tts.find_voice(voice)
        return self.voice

    def voices(self) -> List[Tuple[str, List[str]]]:
        """The installed voices as (id, languages); empty when speech is not available."""
        tts = self._tts
        return tts.voices() if tts is not None else []

    def render(self, text: str) -> Tuple[np.ndarray, int]:
        """Synthesize ``text`` with the current rate and voice without playing it."""
        tts = self._tts
        if tts is None:
            raise SpeakerError("Speech synthesis is not available.")
        return tts.render(text, self.rate_wpm, self.voice)

    def close(self) -> None:
        """Stop speaking, end the worker thread and process; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self.stop()
        self._queue.put(None)
        self._thread.join(timeout=5.0)
        if self._tts is not None:
            self._tts.close()
        self.is_speaking.clear()

    def __enter__(self) -> "Speaker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- setup and failures

    def _start_audio(self, output_device: Optional[Union[int, str]]) -> None:
        try:
            self._output = SoundOutput(output_device)
        except SpeakerError as exc:
            self._report("output", exc)
            return
        try:
            self._tts = TtsWorker()
        except SpeakerError as exc:
            self._report("tts", exc)

    def _report(self, kind: str, exc: Exception, disable: bool = True) -> None:
        """Say once per kind of failure what stopped working; speech continues as text."""
        if disable and kind == "output":
            self._output = None
        elif disable and kind == "tts":
            self._tts = None
        if kind in self._reported:
            return
        self._reported.add(kind)
        sentence = str(exc).rstrip(".") + "."
        if kind == "output" or (kind == "tts" and self._output is not None):
            sentence += " Announcements continue as text only."
        self.on_problem(sentence)

    # -- the speech thread

    def _enqueue(self, kind: str, payload: str) -> None:
        with self._lock:
            if self._closed:
                return
            self._pending += 1
            self.is_speaking.set()
            item = _Item(kind, payload, self._generation)
        self._queue.put(item)

    def _done_with_item(self) -> None:
        with self._lock:
            self._pending -= 1
            self._lock.notify_all()

    def _run(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=self._holdoff_now if self.is_speaking.is_set() else None)
            except queue.Empty:
                with self._lock:   # quiet for a whole hold-off: the microphone may listen again
                    if self._pending == 0:
                        self.is_speaking.clear()
                continue
            if item is None:
                return
            self._holdoff_now = (min(self.holdoff_s, _EARCON_HOLDOFF_S) if item.kind == "earcon"
                                 else self.holdoff_s)
            try:
                self._play_item(item)
            except Exception as exc:   # never let the speech thread die with a traceback
                self._report("unexpected", SpeakerError("Speaking failed (%s: %s)."
                                                        % (type(exc).__name__, exc)))
            finally:
                self._done_with_item()

    def _play_item(self, item: _Item) -> None:
        cancelled = lambda: item.generation != self._generation or self._closed
        if cancelled():
            return
        if item.kind == "say":
            tts = self._tts
            if tts is None:
                return
            try:
                pcm, rate = tts.render(item.payload, self.rate_wpm, self.voice)
            except SpeakerError as exc:
                # A dead engine means text only from now on; one bad sentence does not.
                self._report("tts", exc, disable=not tts.alive)
                return
        else:
            pcm, rate = make_earcon(item.payload)
        output = self._output
        if output is None or cancelled():
            return
        if self.volume < 1.0:
            pcm = np.round(pcm.astype(np.float64) * self.volume).astype(np.int16)

        def started() -> None:
            self.last_start_delay = time.perf_counter() - item.queued_at
            if self.on_sound_start is not None:
                self.on_sound_start(item.kind, item.payload)
        try:
            output.play(pcm, rate, cancelled, started)
        except SpeakerError as exc:
            self._report("output", exc)


def _clamp_rate(words_per_minute: int) -> int:
    return int(min(MAX_RATE_WPM, max(MIN_RATE_WPM, int(words_per_minute))))


if __name__ == "__main__" and sys.argv[1:] == ["--tts-worker"]:
    _worker_main()
