"""Real speech for tests and benchmarks: espeak-ng clips, made like a microphone would hear them.

``synthesize("play the seven")`` speaks the text with espeak-ng, resamples it to ``rate``,
pads ``pad_s`` on both sides and mixes in a noise floor ``noise_db`` below the speech (a
microphone never gives digital silence, and decoders fail on it).  WAVs are cached in a temp
directory keyed by every parameter, so repeated test runs do not re-synthesize.

    from tests.speech_clips import synthesize, load, join
    pcm = load(synthesize("seven", voice="en-us+f3", speed=140))
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import numpy as np

from voice.hear.audio import read_wav, write_wav
from voice.dsp import add_noise, level_dbfs, noise_floor, pad_with_noise, resample

CACHE_DIR = Path(tempfile.gettempdir()) / "talking-cards-clips"

# A spread of espeak-ng voices used across tests and the benchmark (voice, words per minute).
VOICES = (("en-us", 160), ("en-us+f3", 140), ("en-gb", 175), ("en-us+m3", 190),
          ("en-gb-x-rp+f4", 150), ("en-029", 165))


class SynthesisError(RuntimeError):
    """espeak-ng is missing or failed."""


def espeak_available() -> bool:
    return shutil.which("espeak-ng") is not None


def synthesize(text: str, voice: str = "en-us", speed: int = 160, noise_db: float = -35.0,
               pad_s: float = 0.3, lang: Optional[str] = None, rate: int = 16000,
               pitch: Optional[int] = None, snr_db: Optional[float] = None, seed: int = 0) -> Path:
    """Speak ``text`` to a cached 16-bit mono WAV at ``rate`` and return its path.

    ``lang`` (e.g. "ko", "tr") picks espeak-ng's voice for that language and overrides
    ``voice``.  ``noise_db`` is the noise floor relative to the speech level; ``snr_db``, when
    given, adds further white noise at that signal-to-noise ratio (for noisy-room figures).
    """
    voice = lang or voice
    key = repr(("v2", text, voice, speed, noise_db, pad_s, rate, pitch, snr_db, seed))
    path = CACHE_DIR / ("%s.wav" % hashlib.sha1(key.encode("utf-8")).hexdigest()[:20])
    if path.exists():
        return path
    if not espeak_available():
        raise SynthesisError("espeak-ng is not installed.")
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    unique = "%s.%d.%d" % (path.stem, os.getpid(), threading.get_ident())   # parallel runs
    raw = CACHE_DIR / ("%s.espeak.wav" % unique)
    cmd = ["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(raw)]
    if pitch is not None:
        cmd += ["-p", str(pitch)]
    proc = subprocess.run(cmd + [text], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0 or not raw.exists():
        raise SynthesisError("espeak-ng failed on %r: %s" % (text, proc.stderr.decode(errors="replace")))
    pcm, src_rate = read_wav(raw)
    raw.unlink()
    pcm = trim_silence(resample(pcm, src_rate, rate), rate)
    pcm = pad_with_noise(pcm, rate, pad_s, noise_db, seed=seed)
    if snr_db is not None:
        pcm = add_noise(pcm, snr_db, rate, seed=seed + 1)
    tmp = CACHE_DIR / ("%s.tmp" % unique)
    write_wav(tmp, pcm, rate)
    tmp.replace(path)   # atomic: parallel test runs never read half a file
    return path


def trim_silence(pcm: np.ndarray, rate: int = 16000, below_peak_db: float = 45.0) -> np.ndarray:
    """Cut the silence espeak-ng leaves around speech (10 ms frames ``below_peak_db`` under
    the loudest), so ``pad_s`` is the real margin, as in clips trimmed like FSDD's."""
    frame = rate // 100
    n = len(pcm) // frame
    if n == 0:
        return pcm
    power = np.mean(pcm[: n * frame].astype(np.float64).reshape(n, frame) ** 2, axis=1)
    loud = np.nonzero(power >= power.max() * 10 ** (-below_peak_db / 10))[0]
    return pcm[loud[0] * frame: (loud[-1] + 1) * frame]


def load(path: Path) -> np.ndarray:
    """The int16 samples of a clip (at the rate it was synthesized with)."""
    return read_wav(path)[0]


def wav_files(folder: Path, phrases: Sequence[str], **kwargs) -> List[str]:
    """Each phrase ``synthesize``d (with ``kwargs``) into a numbered WAV in ``folder``, in
    order: the files a voice run (``--wav``) is given, one utterance each."""
    paths = []
    for i, phrase in enumerate(phrases):
        target = Path(folder) / f"{i:02d}.wav"
        shutil.copy(synthesize(phrase, **kwargs), target)
        paths.append(str(target))
    return paths


def synthesize_pcm(text: str, **kwargs) -> np.ndarray:
    """``synthesize`` then ``load``: the clip's int16 samples."""
    return load(synthesize(text, **kwargs))


def join(clips: Sequence[np.ndarray], gap_s: float = 1.0, rate: int = 16000,
         noise_dbfs: Optional[float] = None, seed: int = 0) -> np.ndarray:
    """Concatenate clips with ``gap_s`` of noise floor between them (a player's pauses).

    The gap's noise level defaults to the quietest clip's own floor (its first 0.1 s).
    """
    if noise_dbfs is None:
        noise_dbfs = min(level_dbfs(c[: rate // 10]) for c in clips)
    gap = int(gap_s * rate)
    parts = []
    for i, clip in enumerate(clips):
        parts.append(noise_floor(gap, noise_dbfs, seed + i))
        parts.append(clip.astype(np.float64))
    parts.append(noise_floor(gap, noise_dbfs, seed + len(clips)))
    return np.clip(np.round(np.concatenate(parts)), -32768, 32767).astype(np.int16)


def in_noise(words: np.ndarray, gap_s: float = 1.0, below_db: float = 35.0) -> np.ndarray:
    """Words (with pauses of digital silence between them) in a noise floor ``below_db``
    under their level, which also lies under the words, and ``gap_s`` of it on each side."""
    floor = level_dbfs(words) - below_db
    noisy = words.astype(np.float64) + noise_floor(len(words), floor, seed=7)
    return join([np.clip(np.round(noisy), -32768, 32767).astype(np.int16)], gap_s=gap_s,
                noise_dbfs=floor)


def noise_burst(kind: str = "cough", rate: int = 16000, level_dbfs: float = -20.0,
                noise_db: float = -35.0, pad_s: float = 0.3, seed: int = 0) -> np.ndarray:
    """A non-speech sound inside a noise floor ``noise_db`` below it: "cough" (a 0.3 s shaped
    noise burst), "click" (two 5 ms taps) or "hum" (0.6 s of 120 Hz buzz with harmonics)."""
    rng = np.random.default_rng(seed)
    if kind == "cough":
        n = int(0.3 * rate)
        env = np.exp(-np.linspace(0, 6, n)) * np.minimum(1, np.linspace(0, 20, n))
        sound = np.convolve(rng.standard_normal(n), np.ones(4) / 4, mode="same") * env
    elif kind == "click":
        tap = rng.standard_normal(int(0.005 * rate)) * np.hanning(int(0.005 * rate))
        sound = np.concatenate([tap, np.zeros(int(0.12 * rate)), tap])
    elif kind == "hum":
        t = np.arange(int(0.6 * rate)) / rate
        sound = sum(np.sin(2 * np.pi * 120 * k * t) / k for k in range(1, 6))
    else:
        raise ValueError("unknown noise kind %r" % kind)
    sound = sound / (np.sqrt(np.mean(sound ** 2)) + 1e-12) * 32768.0 * 10 ** (level_dbfs / 20)
    pad = int(pad_s * rate)
    body = np.concatenate([np.zeros(pad), sound, np.zeros(pad)])
    body = body + noise_floor(len(body), level_dbfs + noise_db, seed + 1)
    return np.clip(np.round(body), -32768, 32767).astype(np.int16)


# --------------------------------------------------------------------------- vocabularies

RANK_WORDS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
              "jack", "queen", "king", "ace")
QUERY_PHRASES = ("whose turn", "my cards", "total", "score", "repeat", "help", "undo", "yes", "no")


def rank_phrases(rank: str) -> Tuple[str, ...]:
    """How a player names a card of ``rank`` in play (Ninety-Nine values included)."""
    phrases = [rank, "play the " + rank, "play " + rank]
    if rank == "ten":
        phrases += ["ten plus", "ten minus"]
    if rank == "ace":
        phrases += ["ace one", "ace eleven"]
    return tuple(phrases)


def game_vocabulary(hand_ranks: Sequence[str]) -> Tuple[str, ...]:
    """A typical in-game vocabulary for tests and benchmarks: the hand's cards plus queries."""
    return tuple(p for r in hand_ranks for p in rank_phrases(r)) + QUERY_PHRASES
