"""The one small interface every speech recognizer backend implements.

The session gives the recognizer the phrases that can be said right now (built from the
hand, the legal values and the commands), then feeds it one utterance of 16-bit mono PCM at
``sample_rate`` and gets back a ``Hypothesis``: the phrase heard (always one of the
vocabulary phrases, or "" for nothing usable) and a verdict from the backend's own
calibrated rejection signal.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence, Tuple



ACCEPT = "accept"    # confident: act on it
CONFIRM = "confirm"  # plausible but unsure: ask "Seven?" first
REJECT = "reject"    # not a command, or too unsure: "Sorry, say that again"


@dataclass(frozen=True)
class Hypothesis:
    text: str                      # a vocabulary phrase, or "" when nothing usable was heard
    verdict: str = REJECT          # ACCEPT, CONFIRM or REJECT
    confidence: float = 0.0        # 0..1, backend-calibrated; for logs and benchmarks
    alternatives: Tuple[str, ...] = field(default_factory=tuple)  # other vocabulary readings
    free_text: str = ""            # what an unconstrained decoding heard, when there is one
    # seconds of audio after the reading's last word (None: the backend cannot say); a word
    # that the grammar squeezed into the trailing silence leaves almost none
    trailing_s: Optional[float] = None
    # the player's own voice vouches for the reading: a voice profile's takes of it are the
    # nearest and near, nothing else the player enrolled comes close, and the decoder heard
    # the same (``voice.hear.fused``); a move so heard needs no read-back in any language
    vouched: bool = False


class Recognizer:
    """Base class: set the vocabulary, then feed utterances."""

    name = "base"
    sample_rate = 16000

    def set_vocabulary(self, phrases: Sequence[str]) -> None:
        raise NotImplementedError

    def begin(self) -> None:
        """Start a new utterance."""
        raise NotImplementedError

    def feed(self, pcm: bytes) -> None:
        """Add 16-bit little-endian mono PCM at ``sample_rate`` to the current utterance."""
        raise NotImplementedError

    def end(self) -> Hypothesis:
        """Finish the utterance and return what was heard."""
        raise NotImplementedError

    def peek(self, then: bytes = b"") -> Optional[Hypothesis]:
        """What ``end`` would return if ``then`` (the rest of a trailing silence) came now,
        leaving the utterance open for more audio (the listener asks at a pause); None when
        this backend cannot tell before the end."""
        return None

    def cancel(self) -> None:
        """Finish the utterance without a reading (the listener already has one)."""
        self.end()

    def recognize(self, pcm: bytes) -> Hypothesis:
        """Decode one whole utterance."""
        self.begin()
        self.feed(pcm)
        return self.end()
