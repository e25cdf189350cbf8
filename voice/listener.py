"""Where a player's words come from: the keyboard, a microphone, or WAV files.

Every listener has ``listen(vocabulary, prompt) -> Heard | None`` (None: input has ended)
and ``live`` (True when a person is there in real time, so the session may listen for
"repeat" or "total" while bots play).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import IO, Iterator, List, Optional, Sequence

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

    def listen(self, vocabulary: Sequence[str], prompt: str) -> Optional[Heard]:
        if self.live:
            self.out.write(prompt)
            self.out.flush()
        line = self.stream.readline()
        if not line:
            return None
        return Heard(line.strip())

    def close(self) -> None:
        pass


class VoiceListener:
    """Utterances cut from an audio stream by the segmenter, decoded by the recognizer."""

    def __init__(self, chunks: Iterator[np.ndarray], segmenter, recognizer: Recognizer,
                 live: bool = True, on_listening=None) -> None:
        self.recognizer = recognizer
        self.live = live
        self.on_listening = on_listening
        self._utterances = segmenter.segment(chunks)
        self._vocabulary: List[str] = []

    def listen(self, vocabulary: Sequence[str], prompt: str) -> Optional[Heard]:
        if list(vocabulary) != self._vocabulary:
            self.recognizer.set_vocabulary(vocabulary)
            self._vocabulary = list(vocabulary)
        if self.on_listening:
            self.on_listening()
        utterance = next(self._utterances, None)
        if utterance is None:
            return None
        return heard_from(self.recognizer.recognize(utterance.astype("<i2").tobytes()))


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
