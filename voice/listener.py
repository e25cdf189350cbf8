"""Where a player's words come from: the keyboard, a microphone, or WAV files.

Every listener has ``listen(vocabulary, prompt) -> Heard | None`` (None: input has ended)
and ``live`` (True when a person is there in real time, so the session may listen for
"repeat" or "total" while bots play).
"""
from __future__ import annotations

import queue
import select
import sys
import threading
from dataclasses import dataclass
from typing import IO, List, Optional, Sequence

import numpy as np

from .recognition import ACCEPT, REJECT, Hypothesis, Recognizer


@dataclass(frozen=True)
class Heard:
    text: str
    verdict: str = ACCEPT
    typed: bool = True              # typed text gets precise messages; speech gets "say again"
    confidence: float = 1.0


class KeyboardListener:
    """One line of typed text per turn (screen readers read the prompt)."""

    def __init__(self, stream: Optional[IO[str]] = None, out: Optional[IO[str]] = None) -> None:
        self.stream = stream or sys.stdin
        self.out = out or sys.stdout
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())

    def listen(self, vocabulary: Sequence[str], prompt: str,
               timeout: Optional[float] = None) -> Optional[Heard]:
        """The next typed line; with ``timeout`` (live keyboards only) None if none came."""
        if timeout is not None:
            if not self.live or not select.select([self.stream], [], [], timeout)[0]:
                return None
        elif self.live:
            self.out.write(prompt)
            self.out.flush()
        line = self.stream.readline()
        if not line:
            return None
        return Heard(line.strip())

    def close(self) -> None:
        pass


_SPOKEN = object()  # push-to-talk: an utterance was recorded (not typed, not the end)


class VoiceListener:
    """Live speech: a thread reads the audio source and cuts utterances; each ``listen``
    decodes the next one with the vocabulary of the moment.

    Hands-free, the segmenter finds utterances by itself. With push-to-talk, Enter starts and
    Enter ends an utterance, and a typed line is taken as typed input, so the keyboard keeps
    working. Audio problems (a microphone unplugged mid-game) are raised from ``listen``.
    """

    def __init__(self, source, segmenter, recognizer: Recognizer, push_to_talk: bool = False,
                 keys: Optional[IO[str]] = None, on_listening=None) -> None:
        self.source = source
        self.segmenter = segmenter
        self.recognizer = recognizer
        self.push_to_talk = push_to_talk
        self.keys = keys or sys.stdin
        self.on_listening = on_listening
        self.live = True
        self._vocabulary: List[str] = []
        self._utterances: "queue.Queue" = queue.Queue()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._capture, name="microphone", daemon=True)
        self._thread.start()

    def _capture(self) -> None:
        try:
            for chunk in self.source.chunks():
                if self._stop.is_set():
                    return
                with self._lock:
                    done = self.segmenter.push(chunk)
                for utterance in done:
                    if not self.push_to_talk:
                        self._utterances.put(utterance)
        except Exception as exc:  # handed to the game loop, which speaks it and goes on typing
            self._utterances.put(exc)
        self._utterances.put(None)

    def listen(self, vocabulary: Sequence[str], prompt: str,
               timeout: Optional[float] = None) -> Optional[Heard]:
        """The next utterance (None at the end of the audio; timeout: returns None too)."""
        if self.push_to_talk and timeout is None:
            typed = self._push_to_talk(prompt)
            if typed is not _SPOKEN:
                return typed
        if list(vocabulary) != self._vocabulary:
            self.recognizer.set_vocabulary(vocabulary)
            self._vocabulary = list(vocabulary)
        if self.on_listening and timeout is None:
            self.on_listening()
        try:
            item = self._utterances.get(timeout=timeout)
        except queue.Empty:
            return None
        if isinstance(item, Exception):
            raise item
        if item is None:
            return None
        return heard_from(self.recognizer.recognize(item.astype("<i2").tobytes()))

    def _push_to_talk(self, prompt: str):
        """Wait for Enter, then record until the next Enter: _SPOKEN (an utterance is
        queued), a typed line's Heard, or None at the end of input."""
        sys.stdout.write(prompt + "(Enter to talk) ")
        sys.stdout.flush()
        line = self.keys.readline()
        if not line:
            return None
        if line.strip():
            return Heard(line.strip())
        with self._lock:
            self.segmenter.key_down()
        sys.stdout.write("Listening... Enter when done. ")
        sys.stdout.flush()
        self.keys.readline()
        with self._lock:
            utterance = self.segmenter.key_up()
        if utterance is None:  # too short to be speech: the recognizer rejects silence
            utterance = np.zeros(1600, dtype=np.int16)
        self._utterances.put(utterance)
        return _SPOKEN

    def close(self) -> None:
        self._stop.set()
        self.source.close()


class WavFilesListener:
    """Each WAV file is one turn's speech: the same audio path as a microphone, from files."""

    live = False

    def __init__(self, paths: Sequence[str], segmenter_factory, recognizer: Recognizer) -> None:
        from .audio import WavSource  # numpy-heavy audio code only when voice is used
        self._sources = [WavSource(p, rate=recognizer.sample_rate) for p in paths]
        self._segmenter_factory = segmenter_factory
        self.recognizer = recognizer
        self._vocabulary: List[str] = []

    def listen(self, vocabulary: Sequence[str], prompt: str) -> Optional[Heard]:
        if not self._sources:
            return None
        source = self._sources.pop(0)
        if list(vocabulary) != self._vocabulary:
            self.recognizer.set_vocabulary(vocabulary)
            self._vocabulary = list(vocabulary)
        utterances = list(self._segmenter_factory().segment(source.chunks()))
        if not utterances:
            return Heard("", REJECT, typed=False, confidence=0.0)
        pcm = np.concatenate(utterances)
        return heard_from(self.recognizer.recognize(pcm.astype("<i2").tobytes()))

    def close(self) -> None:
        pass


def heard_from(hypothesis: Hypothesis) -> Heard:
    return Heard(hypothesis.text, hypothesis.verdict, typed=False,
                 confidence=hypothesis.confidence)
