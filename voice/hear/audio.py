"""Audio in: sources of 16-bit mono PCM chunks at the recognizer's rate, and a resampler.

Every source (a WAV file here, the microphone in ``voice/hear/microphone.py``) yields int16 numpy
arrays at ``source.rate``; the segmenter and the recognizers only ever see that.  Audio is
resampled once, at the source, with a proper low-pass (windowed-sinc, polyphase) resampler:
the en-us PocketSphinx model is useless on 8 kHz audio decoded as-is.
"""
from __future__ import annotations

import wave
from pathlib import Path
from typing import Iterator, Tuple, Union

import numpy as np

from voice.dsp import resample
from voice.errors import AudioError


# --------------------------------------------------------------------------- sources

class AudioSource:
    """A stream of 16-bit mono PCM chunks (int16 numpy arrays) at ``self.rate`` Hz."""

    rate = 16000

    def chunks(self) -> Iterator[np.ndarray]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the device or file; safe to call twice."""

    def __enter__(self) -> "AudioSource":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_wav(path: Union[str, Path]) -> Tuple[np.ndarray, int]:
    """Read a PCM WAV file as (int16 mono samples, sample rate); stereo is mixed down."""
    path = Path(path)
    try:
        with wave.open(str(path), "rb") as w:
            channels, width, rate = w.getnchannels(), w.getsampwidth(), w.getframerate()
            raw = w.readframes(w.getnframes())
    except FileNotFoundError:
        raise AudioError("The sound file %s does not exist." % path) from None
    except (wave.Error, EOFError, OSError) as exc:
        raise AudioError("The sound file %s is not a readable WAV file (%s)." % (path, exc)) from None
    if rate <= 0 or channels <= 0:
        raise AudioError("The sound file %s has no valid format header." % path)
    samples = _decode_pcm(raw, width, path)
    usable = len(samples) - len(samples) % channels
    frames = samples[:usable].reshape(-1, channels)
    mono = frames.mean(axis=1) if channels > 1 else frames[:, 0]
    return np.clip(np.round(mono), -32768, 32767).astype(np.int16), rate


def _decode_pcm(raw: bytes, width: int, path: Path) -> np.ndarray:
    """Integer PCM bytes of any common width as float samples on the int16 scale."""
    if width == 2:
        return np.frombuffer(raw[: len(raw) // 2 * 2], dtype="<i2").astype(np.float64)
    if width == 1:   # unsigned 8-bit
        return (np.frombuffer(raw, dtype=np.uint8).astype(np.float64) - 128.0) * 256.0
    if width == 3:
        b = np.frombuffer(raw[: len(raw) // 3 * 3], dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        v = np.where(v >= 1 << 23, v - (1 << 24), v)
        return v.astype(np.float64) / 256.0
    if width == 4:
        return np.frombuffer(raw[: len(raw) // 4 * 4], dtype="<i4").astype(np.float64) / 65536.0
    raise AudioError("The sound file %s uses %d-byte samples, which I cannot read." % (path, width))


class WavSource(AudioSource):
    """A WAV file as a source: any rate, mono or stereo, yielded at ``rate`` in ``chunk_ms`` chunks."""

    def __init__(self, path: Union[str, Path], rate: int = 16000, chunk_ms: int = 30):
        self.path = Path(path)
        self.rate = int(rate)
        self.chunk = max(1, int(self.rate * chunk_ms / 1000))
        pcm, src_rate = read_wav(self.path)   # raises AudioError up front, not mid-stream
        self.source_rate = src_rate
        self.pcm = resample(pcm, src_rate, self.rate)

    def chunks(self) -> Iterator[np.ndarray]:
        for start in range(0, len(self.pcm), self.chunk):
            yield self.pcm[start:start + self.chunk]

    def close(self) -> None:
        pass


def write_wav(path: Union[str, Path], pcm: np.ndarray, rate: int = 16000) -> Path:
    """Write int16 mono samples to a WAV file."""
    path = Path(path)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(int(rate))
        w.writeframes(np.asarray(pcm, dtype="<i2").tobytes())
    return path


def chunk_array(pcm: np.ndarray, rate: int = 16000, chunk_ms: int = 30) -> Iterator[np.ndarray]:
    """Cut an in-memory signal into source-sized chunks (what a microphone would deliver)."""
    step = max(1, int(rate * chunk_ms / 1000))
    for start in range(0, len(pcm), step):
        yield pcm[start:start + step]
