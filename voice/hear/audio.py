"""Audio in: sources of 16-bit mono PCM chunks at the recognizer's rate, and WAV files.

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


MIN_RATE, MAX_RATE = 4000, 384000      # a header outside this is damaged, not a recording
MAX_WAV_BYTES = 256 * 1024 * 1024      # about 20 minutes of 48 kHz stereo 24-bit
_PCM, _FLOAT, _EXTENSIBLE = 1, 3, 0xFFFE


def read_wav(path: Union[str, Path]) -> Tuple[np.ndarray, int]:
    """Read a WAV file as (int16 mono samples, sample rate); stereo is mixed down.

    Integer PCM of 8, 16, 24 and 32 bits and 32/64-bit float, plain or in the "extensible"
    header that recorders write for 24-bit audio. A file that is not a regular file, is
    huge, or claims an impossible format is refused in one sentence (AudioError).
    """
    path = Path(path)
    try:
        if not path.is_file():
            raise AudioError("The sound file %s does not exist or is not a regular file." % path)
        if path.stat().st_size > MAX_WAV_BYTES:
            raise AudioError("The sound file %s is too large to be one spoken turn." % path)
        data = path.read_bytes()
    except OSError as exc:
        raise AudioError("The sound file %s cannot be read (%s)." % (path, exc.strerror)) from None
    tag, channels, rate, width, raw = _parse_riff(data, path)
    if not MIN_RATE <= rate <= MAX_RATE or not 1 <= channels <= 16:
        raise AudioError("The sound file %s claims %d channels at %d Hz; that is not a "
                         "recording I can use." % (path, channels, rate))
    samples = _decode(raw, tag, width, path)
    usable = len(samples) - len(samples) % channels
    frames = samples[:usable].reshape(-1, channels)
    mono = frames.mean(axis=1) if channels > 1 else frames[:, 0]
    return np.clip(np.round(mono), -32768, 32767).astype(np.int16), rate


def _parse_riff(data: bytes, path: Path) -> Tuple[int, int, int, int, bytes]:
    """(format tag, channels, rate, bytes per sample, sample bytes) of a RIFF WAVE file."""
    bad = AudioError("The sound file %s is not a readable WAV file." % path)
    if len(data) < 12 or data[:4] not in (b"RIFF", b"RF64") or data[8:12] != b"WAVE":
        raise bad
    fmt, raw, at = None, None, 12
    while at + 8 <= len(data):
        kind, size = data[at:at + 4], int.from_bytes(data[at + 4:at + 8], "little")
        body = data[at + 8:at + 8 + size]
        if kind == b"fmt " and len(body) >= 16:
            fmt = body
        elif kind == b"data":
            raw = body  # a truncated recording keeps what it has
            break
        at += 8 + size + (size & 1)
    if fmt is None or raw is None:
        raise bad
    tag = int.from_bytes(fmt[0:2], "little")
    channels = int.from_bytes(fmt[2:4], "little")
    rate = int.from_bytes(fmt[4:8], "little")
    width = int.from_bytes(fmt[14:16], "little") // 8
    if tag == _EXTENSIBLE and len(fmt) >= 26:
        tag = int.from_bytes(fmt[24:26], "little")  # the sub-format's first two bytes
    return tag, channels, rate, width, raw


def _decode(raw: bytes, tag: int, width: int, path: Path) -> np.ndarray:
    """PCM or float sample bytes as float samples on the int16 scale."""
    if tag == _FLOAT and width in (4, 8):
        dtype = "<f4" if width == 4 else "<f8"
        return np.frombuffer(raw[: len(raw) // width * width], dtype=dtype).astype(np.float64) \
            * 32767.0
    if tag != _PCM:
        raise AudioError("The sound file %s is compressed (format %d); save it as PCM WAV."
                         % (path, tag))
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
