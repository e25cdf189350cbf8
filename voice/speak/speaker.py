"""Speech out: a queue of announcements and earcons, spoken without blocking the game.

    speaker = Speaker(on_text=print)
    speaker.say("North plays the queen of hearts. Total ninety-one.")
    speaker.earcon("your_turn")
    speaker.say("Your turn.", interrupt=True)   # drops what is still queued and cuts the current one
    speaker.wait_until_quiet(5.0)

How it works, and why:

* Synthesis runs in a small worker process (``voice/speak/tts_worker.py``) that
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

import queue
import sys
import threading
import time
from typing import Callable, List, Optional, Tuple, Union

import numpy as np

from voice.errors import SpeakerError
from voice.speak.earcons import earcon as make_earcon
from voice.speak.output import SoundOutput
from voice.speak.tts_worker import DEFAULT_RATE_WPM, TtsWorker

MIN_RATE_WPM, MAX_RATE_WPM, RATE_STEP_WPM = 80, 450, 25
_EARCON_HOLDOFF_S = 0.1


def print_line(text: str) -> None:
    """The plain-text channel: one line per announcement, flushed at once."""
    print(text, flush=True)


def _print_problem(sentence: str) -> None:
    print(sentence, file=sys.stderr, flush=True)


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
        """Queue the earcon ``name`` (see voice.speak.earcons.NAMES); unknown names raise EarconError."""
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

    def barge_in(self) -> None:
        """The player starts to talk (push-to-talk's key): cut every sound now and open the
        microphone at once, without the hold-off for the room's echo."""
        self.stop()
        self.is_speaking.clear()

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
