"""Earcons: short generated sounds that say "your turn", "penalty" and so on without words.

Each one is a few sine tones or chirps (100-250 ms) with a smooth attack and release, so
they do not click, synthesized with numpy at ``RATE``.  They are distinct in pitch contour,
not just in pitch, so they stay apart on a small laptop speaker: rising for "your turn" and
"listening", falling for "penalty" and "eliminated", a low buzz for "error".
"""
from __future__ import annotations

from typing import Dict, List, Tuple

import numpy as np

RATE = 22050            # the same rate pyttsx3's espeak-ng voice renders at: one output stream
_PEAK = 0.5             # of full scale: clearly audible, quieter than speech at full volume
_EDGE_S = 0.008         # attack and release ramps; shorter ramps click


def _chirp(f0: float, f1: float, seconds: float, harmonics: float = 0.0) -> np.ndarray:
    """A tone sliding from f0 to f1 (exponentially, as pitch is heard), with an envelope."""
    n = int(round(seconds * RATE))
    t = np.arange(n) / RATE
    if f0 == f1:
        freq = np.full(n, float(f0))
    else:
        freq = f0 * (f1 / f0) ** (t / seconds)
    phase = 2.0 * np.pi * np.cumsum(freq) / RATE
    wave = np.sin(phase) + harmonics * np.sin(3.0 * phase) / 3.0
    edge = max(1, int(_EDGE_S * RATE))
    envelope = np.ones(n)
    envelope[:edge] = np.linspace(0.0, 1.0, edge)
    envelope[-edge:] = np.minimum(envelope[-edge:], np.linspace(1.0, 0.0, edge))
    # A gentle decay makes a tone sound like a chime rather than a test signal.
    envelope *= np.exp(-1.5 * t / seconds)
    return wave * envelope / (1.0 + harmonics / 3.0)


def _gap(seconds: float) -> np.ndarray:
    return np.zeros(int(round(seconds * RATE)))


# name -> list of pieces; each piece is (f0, f1, seconds, harmonics) or a gap (seconds,)
_RECIPES: Dict[str, List[Tuple[float, ...]]] = {
    "your_turn": [(660.0, 660.0, 0.07, 0.0), (0.03,), (880.0, 990.0, 0.09, 0.0)],
    "listening": [(520.0, 1040.0, 0.12, 0.0)],
    "penalty": [(620.0, 310.0, 0.18, 0.3)],
    "error": [(220.0, 220.0, 0.08, 0.8), (0.04,), (196.0, 196.0, 0.10, 0.8)],
    "eliminated": [(880.0, 660.0, 0.07, 0.2), (440.0, 294.0, 0.16, 0.2)],
}

NAMES = tuple(sorted(_RECIPES))


class EarconError(KeyError):
    """An earcon name that does not exist."""

    def __str__(self) -> str:
        return self.args[0]


def earcon(name: str) -> Tuple[np.ndarray, int]:
    """The earcon ``name`` as (int16 mono samples, sample rate)."""
    try:
        recipe = _RECIPES[name]
    except KeyError:
        raise EarconError("There is no sound called %r; the sounds are %s."
                          % (name, ", ".join(NAMES))) from None
    pieces = [_gap(p[0]) if len(p) == 1 else _chirp(*p) for p in recipe]
    signal = np.concatenate(pieces) * (_PEAK * 32767.0)
    return np.round(signal).astype(np.int16), RATE
