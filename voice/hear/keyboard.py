"""Typed input, and what any listener hears: ``Heard``. No audio library is loaded here,
so a keyboard game starts without numpy or a sound library (``listeners.py`` has the voice).

Every listener has ``listen(vocabulary, prompt) -> Heard | None`` (None: input has ended),
``live`` (True when a person is there in real time, so the session may listen for
"repeat" or "total" while bots play) and ``typed_only`` (no voice: the session plays the
"your turn" cue itself, as voice input has its "listening" cue).
"""
from __future__ import annotations

import select
import sys
from dataclasses import dataclass
from typing import IO, Callable, Optional, Sequence

from voice.hear.recognizer import ACCEPT


@dataclass(frozen=True)
class Heard:
    text: str
    verdict: str = ACCEPT
    typed: bool = True              # typed text gets precise messages; speech gets "say again"
    confidence: float = 1.0
    # Speech only: the same utterance decoded again against other phrases (the best one, or
    # ""), so the dialog can ask "was that a yes?" or "which rank was it?" before a read-back.
    second_opinion: Optional[Callable[[Sequence[str]], str]] = None
    # Speech only: the player's own voice profile vouches for the reading (see
    # ``Hypothesis.vouched``): a move needs no read-back even where the language asks for one
    vouched: bool = False


class KeyboardListener:
    """One line of typed text per turn (screen readers read the prompt)."""

    typed_only = True

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
