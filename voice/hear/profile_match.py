"""The speaker-dependent matcher of a voice profile: MFCC features and dynamic time warping.

A word the player enrolled is kept as the MFCC frames of a few of their own takes; a new
utterance is compared with each take by DTW, and the phrase whose takes are nearest wins.
Written with numpy alone (a library such as librosa costs far more than these sixty lines).

Features: 25 ms frames every 10 ms, pre-emphasis, a Hamming window, 24 mel bands from 100 Hz
to 3.8 kHz (what an 8 kHz headset still carries, so a profile made on one microphone holds
on another), 13 cepstra without c0, each utterance's mean removed (the channel), then the
frame-to-frame deltas.  The utterance is taken as the segmenter cut it (lead padding and
trailing pause included, the same in enrollment as in play), only very quiet edges dropped.

DTW uses the symmetric slope-constrained steps (1,1), (1,2), (2,1): a path may stretch a
word to at most twice its length, and each row of the cost matrix depends only on the two
rows before it, so all of an utterance's comparisons run as one vectorised pass over its
frames.  The distance is the path's mean Euclidean frame distance.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

RATE = 16000
FRAME, HOP = 400, 160            # 25 ms, 10 ms at 16 kHz
N_FFT = 512
N_MELS, N_CEPS = 24, 13
LOW_HZ, HIGH_HZ = 100.0, 3800.0
# Frames this far under the loudest are dropped (digital silence, a long quiet lead-in).  The
# segmenter already cuts the utterance; trimming closer to the word (30 dB, or 5 dB over the
# room's floor) lost the weak onsets of "six", "five", "three" and cost 5-20 points on FSDD
# takes 3-9.
SPEECH_RANGE_DB = 45.0
MIN_FRAMES = 8                   # under 80 ms of speech: nothing to compare


def _mel_filters() -> np.ndarray:
    mel = lambda hz: 2595.0 * np.log10(1.0 + hz / 700.0)  # noqa: E731
    hz = lambda m: 700.0 * (10.0 ** (m / 2595.0) - 1.0)   # noqa: E731
    edges = hz(np.linspace(mel(LOW_HZ), mel(HIGH_HZ), N_MELS + 2))
    bins = np.fft.rfftfreq(N_FFT, 1.0 / RATE)
    lower, centre, upper = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    rising = (bins - lower) / (centre - lower)
    falling = (upper - bins) / (upper - centre)
    return np.maximum(0.0, np.minimum(rising, falling))


_MEL = _mel_filters()
_DCT = np.cos(np.pi / N_MELS * (np.arange(N_MELS) + 0.5)[None, :] * np.arange(1, N_CEPS)[:, None])
_WINDOW = np.hamming(FRAME)


def features(pcm: np.ndarray) -> np.ndarray:
    """(frames, 24) float32 features of 16 kHz int16 speech (an empty array: too short)."""
    x = np.asarray(pcm, dtype=np.float64)
    if len(x) < FRAME + HOP * MIN_FRAMES:
        return np.zeros((0, 2 * (N_CEPS - 1)), dtype=np.float32)
    x = np.append(x[0], x[1:] - 0.97 * x[:-1])
    n = 1 + (len(x) - FRAME) // HOP
    frames = x[np.arange(FRAME)[None, :] + HOP * np.arange(n)[:, None]] * _WINDOW
    power = np.abs(np.fft.rfft(frames, N_FFT)) ** 2
    energy = 10.0 * np.log10(power.sum(axis=1) + 1e-9)
    loud = np.flatnonzero(energy >= energy.max() - SPEECH_RANGE_DB)
    power = power[loud[0]:loud[-1] + 1]
    if len(power) < MIN_FRAMES:
        return np.zeros((0, 2 * (N_CEPS - 1)), dtype=np.float32)
    ceps = np.log(power @ _MEL.T + 1e-6) @ _DCT.T
    ceps -= ceps.mean(axis=0)
    deltas = np.gradient(ceps, axis=0)
    return np.hstack([ceps, deltas]).astype(np.float32)


def distances(utterance: np.ndarray, templates: Sequence[np.ndarray]) -> np.ndarray:
    """The DTW distance from ``utterance``'s features to each template's (inf where no path
    fits: one is more than twice as long as the other)."""
    out = np.full(len(templates), np.inf)
    if len(utterance) < MIN_FRAMES or not templates:
        return out
    n = len(utterance)
    longest = max(len(t) for t in templates)
    lengths = np.array([len(t) for t in templates])
    stack = np.zeros((len(templates), longest, utterance.shape[1]), dtype=np.float32)
    for k, t in enumerate(templates):
        stack[k, :len(t)] = t
    # cost[k, i, j]: frame i of the utterance against frame j of template k
    cost = np.sqrt(np.maximum(0.0, (utterance ** 2).sum(1)[None, :, None]
                              + (stack ** 2).sum(2)[:, None, :]
                              - 2.0 * np.einsum("id,kjd->kij", utterance, stack)))
    big = np.float32(1e9)
    # acc[i] holds each path's summed cost to (i, j); weights: 2 for the diagonal step, 3
    # for a stretched one (both frames it spans), so long and short paths compare fairly.
    before2 = np.full((len(templates), longest), big, dtype=np.float32)
    before1 = np.full((len(templates), longest), big, dtype=np.float32)
    before1[:, 0] = cost[:, 0, 0]
    for i in range(1, n):
        row = np.full((len(templates), longest), big, dtype=np.float32)
        c = cost[:, i, :]
        diagonal = before1[:, :-1] + 2.0 * c[:, 1:]
        stretch_t = np.full_like(diagonal, big)            # two template frames, one step
        stretch_t[:, 1:] = before1[:, :-2] + 3.0 * c[:, 2:]
        stretch_u = before2[:, :-1] + 3.0 * c[:, 1:]       # two utterance frames, one step
        row[:, 1:] = np.minimum(np.minimum(diagonal, stretch_t), stretch_u)
        before2, before1 = before1, row
    ends = before1[np.arange(len(templates)), lengths - 1]
    fits = ends < big / 2
    out[fits] = ends[fits] / (n + lengths[fits])
    return out
