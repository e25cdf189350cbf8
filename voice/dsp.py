"""Signal helpers shared by hearing and speaking: a windowed-sinc resampler, levels, noise.

Audio is resampled once, at its source, with a proper low-pass (polyphase windowed-sinc)
resampler: the en-us PocketSphinx model is useless on 8 kHz audio decoded as-is.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from voice.errors import AudioError


# --------------------------------------------------------------------------- resampling

_ZERO_CROSSINGS = 16     # filter half-length, in zero crossings of the sinc
_KAISER_BETA = 8.6       # about 80 dB stop-band attenuation
_ROLLOFF = 0.92          # pass band ends at 92% of the lower Nyquist: room for the transition
_BLOCK = 8192            # outputs computed per vectorized block (bounds memory)


class StreamResampler:
    """Rational-ratio windowed-sinc resampler that keeps its state between calls.

    Output sample n sits at input time t = n * src / dst.  Its value is the input convolved
    with a Kaiser-windowed sinc whose cut-off is the lower of the two Nyquist frequencies, so
    downsampling does not alias and upsampling leaves no image above the old Nyquist.  The
    fractional part of t takes only ``up`` values, so the weights are precomputed per phase.
    """

    def __init__(self, src_rate: int, dst_rate: int):
        if src_rate <= 0 or dst_rate <= 0:
            raise AudioError("Sample rates must be positive, got %r and %r." % (src_rate, dst_rate))
        g = math.gcd(int(src_rate), int(dst_rate))
        self.src_rate, self.dst_rate = int(src_rate), int(dst_rate)
        self.up, self.down = self.dst_rate // g, self.src_rate // g
        scale = min(1.0, self.dst_rate / self.src_rate)          # cut-off relative to input Nyquist
        cutoff = scale * _ROLLOFF
        half = _ZERO_CROSSINGS / scale                            # half-width in input samples
        self.reach = int(math.ceil(half))
        self.offsets = np.arange(-self.reach + 1, self.reach + 1)  # taps x[base + j]
        frac = np.arange(self.up)[:, None] / self.up               # one row per phase
        tau = frac - self.offsets[None, :]
        window = np.i0(_KAISER_BETA * np.sqrt(np.clip(1.0 - (tau / (half + 1.0)) ** 2, 0.0, 1.0)))
        weights = cutoff * np.sinc(cutoff * tau) * window / np.i0(_KAISER_BETA)
        self.weights = weights / weights.sum(axis=1, keepdims=True)  # exact unity gain at DC
        # Input buffer starts with `reach` zeros so the first outputs have a left context.
        self._buf = np.zeros(self.reach, dtype=np.float64)
        self._buf_start = -self.reach   # absolute input index of _buf[0]
        self._n_in = 0                  # input samples received
        self._n_out = 0                 # next output index

    def process(self, pcm: np.ndarray) -> np.ndarray:
        """Feed input samples; return every output sample that is now fully determined."""
        x = np.asarray(pcm, dtype=np.float64).ravel()
        self._buf = np.concatenate([self._buf, x])
        self._n_in += len(x)
        buf_end = self._buf_start + len(self._buf)
        # Output n needs inputs up to base(n) + reach, i.e. n * down // up + reach < buf_end.
        last_base = buf_end - 1 - self.reach
        n_stop = (last_base * self.up) // self.down + 1 if last_base >= 0 else 0
        return self._emit(n_stop)

    def flush(self) -> np.ndarray:
        """Finish the stream: the remaining outputs, with zeros past the end of the input."""
        self._buf = np.concatenate([self._buf, np.zeros(self.reach + 1)])
        n_total = -(-self._n_in * self.up // self.down)   # ceil(n_in * dst / src)
        return self._emit(n_total)

    def _emit(self, n_stop: int) -> np.ndarray:
        pieces = []
        while self._n_out < n_stop:
            n = np.arange(self._n_out, min(n_stop, self._n_out + _BLOCK))
            base = (n * self.down) // self.up
            phase = (n * self.down) % self.up
            idx = base[:, None] + self.offsets[None, :] - self._buf_start
            pieces.append(np.einsum("ij,ij->i", self._buf[idx], self.weights[phase]))
            self._n_out = int(n[-1]) + 1
        # Drop input no future output will need.
        keep_from = (self._n_out * self.down) // self.up - self.reach + 1
        drop = keep_from - self._buf_start
        if drop > 0:
            self._buf = self._buf[drop:]
            self._buf_start += drop
        if not pieces:
            return np.zeros(0, dtype=np.int16)
        y = np.concatenate(pieces)
        return np.clip(np.round(y), -32768, 32767).astype(np.int16)


def resample(pcm: np.ndarray, src_rate: int, dst_rate: int) -> np.ndarray:
    """Resample a whole int16 signal from ``src_rate`` to ``dst_rate`` (windowed-sinc)."""
    pcm = np.asarray(pcm)
    if src_rate == dst_rate:
        return pcm.astype(np.int16, copy=True)
    r = StreamResampler(src_rate, dst_rate)
    return np.concatenate([r.process(pcm), r.flush()])


# --------------------------------------------------------------------------- levels and noise

def level_dbfs(pcm: np.ndarray) -> float:
    """RMS level in dB relative to int16 full scale (-120 for silence)."""
    x = np.asarray(pcm, dtype=np.float64)
    if x.size == 0:
        return -120.0
    rms = math.sqrt(float(np.mean(x * x)))
    return 20.0 * math.log10(max(rms, 1e-6) / 32768.0)


def speech_level_dbfs(pcm: np.ndarray, rate: int = 16000) -> float:
    """Level of the active part of a signal: RMS over 20 ms frames within 30 dB of the loudest."""
    x = np.asarray(pcm, dtype=np.float64)
    frame = max(1, rate // 50)
    n = len(x) // frame
    if n == 0:
        return level_dbfs(x)
    power = np.mean(x[: n * frame].reshape(n, frame) ** 2, axis=1)
    active = power[power >= power.max() * 1e-3]
    return 10.0 * math.log10(max(float(np.mean(active)), 1e-12) / 32768.0 ** 2)


def noise_floor(n_samples: int, level_db: float, seed: Optional[int] = 0) -> np.ndarray:
    """White noise at ``level_db`` dBFS RMS, as float64 (mix it in before converting to int16)."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal(int(n_samples)) * (32768.0 * 10.0 ** (level_db / 20.0))


def add_noise(pcm: np.ndarray, snr_db: float, rate: int = 16000, seed: Optional[int] = 0) -> np.ndarray:
    """Mix white noise ``snr_db`` below the speech level into int16 ``pcm``."""
    level = speech_level_dbfs(pcm, rate) - snr_db
    mixed = np.asarray(pcm, dtype=np.float64) + noise_floor(len(pcm), level, seed)
    return np.clip(np.round(mixed), -32768, 32767).astype(np.int16)


def pad_with_noise(pcm: np.ndarray, rate: int = 16000, pad_s: float = 0.3,
                   noise_db: float = -35.0, seed: Optional[int] = 0) -> np.ndarray:
    """Put ``pad_s`` of noise floor on both sides and under the whole signal.

    ``noise_db`` is relative to the speech level.  This is what a microphone gives around a
    word; decoders misbehave on digital silence and on clips trimmed tight to the speech.
    """
    pcm = np.asarray(pcm, dtype=np.float64)
    pad = int(round(pad_s * rate))
    body = np.concatenate([np.zeros(pad), pcm, np.zeros(pad)])
    level = speech_level_dbfs(pcm, rate) + noise_db
    mixed = body + noise_floor(len(body), level, seed)
    return np.clip(np.round(mixed), -32768, 32767).astype(np.int16)
