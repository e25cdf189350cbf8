"""Endpointing: cut a stream of PCM chunks into utterances, hands-free or push-to-talk.

Hands-free mode is an energy detector that adapts to the room: the noise floor is a low
percentile of the frame levels of the last few seconds, speech starts when a few frames in a
row rise ``start_margin_db`` above it, and ends after ``trailing_silence_s`` of frames below
``stop_margin_db`` over it (hysteresis, so a soft word ending does not cut the utterance).

Timing choices (all tunable):
- trailing_silence_s = 0.5: a pause this long ends the utterance.  Shorter cuts "ten ...
  minus" in two when a player hesitates; longer makes every move feel slow (the answer can
  only start after it).
- lead_pad_s = 0.3: that much audio from before the onset is kept, so the decoder sees noise
  before the speech and the soft start of a word ("f" in "five") is not lost.
- min_speech_s = 0.15: shorter bursts (a click, a cup on the table) are dropped.
- max_utterance_s = 8: a stream that never falls silent (music, a fan turning on) is cut.
- pause_s = 0.2: a quiet this long inside an utterance is reported (PAUSE), so the listener
  can decode what was said so far while the trailing silence runs, and end the utterance
  there when that is a whole phrase nothing else continues (``bench/endpointing.py``
  measured 0.15-0.3 s; shorter pauses fall inside words such as "six").  None turns it off.

Push-to-talk (``hands_free=False``, or at any time in hands-free mode): ``key_down()``
starts an utterance, ``key_up()`` returns it (with the same lead padding); audio pushed
outside a key press is only kept as that padding.

Streaming: ``push_events`` reports an utterance while it is still being spoken, so a
recognizer can decode during speech: START (the lead padding and the onset frames), AUDIO
(each further piece), then END (the whole utterance: what START and AUDIO gave, then its
last samples) or DISCARD (too short: a click).  PAUSE is AUDIO after which the speaker has been
quiet ``pause_s``; an END whose ``settled`` is true ends in that same quiet, so nothing was
said after its last PAUSE.  With push-to-talk, ``key_down`` returns the
START audio and ``key_up`` the whole utterance, or None for a discarded one.  ``push``
gives only the ENDs, as whole utterances.
"""
from __future__ import annotations

import collections
import math
from typing import Deque, Iterable, Iterator, List, NamedTuple, Optional

import numpy as np

FRAME_MS = 10
START, AUDIO, PAUSE, END, DISCARD = "start", "audio", "pause", "end", "discard"
_NOISE_WINDOW_S = 3.0      # noise floor = low percentile of this much recent audio
_NOISE_PERCENTILE = 10.0


class SegmentEvent(NamedTuple):
    """A step of an utterance being cut: START, AUDIO, PAUSE, END or DISCARD, with its samples;
    ``settled``: an END that nothing was said in since the utterance's last PAUSE."""
    kind: str
    pcm: np.ndarray
    settled: bool = False
    utterance: int = 0    # which utterance it belongs to (numbered from 1)


class Segmenter:
    """Feed chunks with ``push``; completed utterances (int16 arrays) come back."""

    def __init__(self, rate: int = 16000, trailing_silence_s: float = 0.5,
                 min_speech_s: float = 0.15, lead_pad_s: float = 0.3,
                 max_utterance_s: float = 8.0, start_margin_db: float = 12.0,
                 stop_margin_db: float = 7.0, onset_frames: int = 3,
                 min_level_dbfs: float = -60.0, hands_free: bool = True,
                 pause_s: Optional[float] = 0.2):
        self.rate = int(rate)
        self.hands_free = hands_free
        self.frame = self.rate * FRAME_MS // 1000
        self.trailing_frames = max(1, int(round(trailing_silence_s * 1000 / FRAME_MS)))
        self.min_speech_frames = max(1, int(round(min_speech_s * 1000 / FRAME_MS)))
        self.lead_frames = int(round(lead_pad_s * 1000 / FRAME_MS))
        self.max_frames = int(round(max_utterance_s * 1000 / FRAME_MS))
        self.pause_s = pause_s
        self.pause_frames = (None if pause_s is None
                             else max(1, int(round(pause_s * 1000 / FRAME_MS))))
        self.start_margin_db = start_margin_db
        self.stop_margin_db = stop_margin_db
        self.onset_frames = max(1, onset_frames)
        self.min_level_dbfs = min_level_dbfs
        self.reset()

    # ------------------------------------------------------------------ state

    def reset(self) -> None:
        """Forget everything (e.g. after the speaker talked with the microphone muted)."""
        self._pending = np.zeros(0, dtype=np.int16)          # samples not yet a whole frame
        self._history: Deque[float] = collections.deque(
            maxlen=int(_NOISE_WINDOW_S * 1000 / FRAME_MS))    # recent frame levels (dBFS)
        self._before: Deque[np.ndarray] = collections.deque(maxlen=self.lead_frames + self.onset_frames)
        self._utt: List[np.ndarray] = []                       # frames of the current utterance
        self._in_speech = False
        self._loud_run = 0        # consecutive loud frames while waiting for an onset
        self._quiet_run = 0       # consecutive quiet frames inside speech
        self._speech_frames = 0   # loud frames inside the current utterance
        self._ptt = False         # a push-to-talk key is held
        self._after_pause = 0     # frames since the utterance's last PAUSE
        self._speech_at_pause = 0
        self.utterance = 0        # the number of the last utterance begun
        self.noise_dbfs = -90.0

    # ------------------------------------------------------------------ hands-free

    def push(self, chunk: np.ndarray) -> List[np.ndarray]:
        """Add a chunk of int16 samples; return the utterances it completed (often none)."""
        return [event.pcm for event in self.push_events(chunk) if event.kind == END]

    def push_events(self, chunk: np.ndarray) -> List[SegmentEvent]:
        """Add a chunk of int16 samples; return what happened to utterances in it, with the
        AUDIO of one chunk joined into one event (a PAUSE closes the AUDIO before it)."""
        data = np.concatenate([self._pending, np.asarray(chunk, dtype=np.int16).ravel()])
        n = len(data) // self.frame
        self._pending = data[n * self.frame:]
        events: List[SegmentEvent] = []
        audio: List[np.ndarray] = []
        for i in range(n):
            kind, pcm = self._step(data[i * self.frame:(i + 1) * self.frame])
            if kind in (AUDIO, PAUSE):
                audio.append(pcm)
                if kind == PAUSE:
                    events.append(self._event(PAUSE, np.concatenate(audio)))
                    audio = []
                continue
            if audio:
                events.append(self._event(AUDIO, np.concatenate(audio)))
                audio = []
            if kind is not None:
                events.append(self._event(kind, pcm))
        if audio:
            events.append(self._event(AUDIO, np.concatenate(audio)))
        return events

    def _event(self, kind: str, pcm: np.ndarray) -> SegmentEvent:
        return SegmentEvent(kind, pcm, kind == END and self.settled, self.utterance)

    def cut(self, utterance: int) -> List[SegmentEvent]:
        """The listener ended ``utterance`` early, at its last PAUSE: stop it here, with no END.
        If the player has spoken again since, what follows the pause becomes a new utterance
        (its START is returned) instead of being lost."""
        if self.utterance != utterance or not self._in_speech:
            return []             # it already ended, or a new one began
        if self.settled:          # still quiet: end it silently
            self._finish()
            return []
        kept = self._utt[-(self._after_pause + min(self.lead_frames, self.pause_frames or 0)):]
        self.utterance += 1
        self._utt, self._speech_frames = list(kept), self._speech_frames - self._speech_at_pause
        return [self._event(START, np.concatenate(kept))]

    def flush(self) -> List[np.ndarray]:
        """End of stream: return the utterance in progress, if it is long enough."""
        if self._pending.size and self._in_speech:
            self._utt.append(self._pending)
        self._pending = np.zeros(0, dtype=np.int16)
        out = []
        if self._in_speech and not self._ptt:
            utt = self._finish()
            if utt is not None:
                out.append(utt)
        return out

    def segment(self, chunks: Iterable[np.ndarray]) -> Iterator[np.ndarray]:
        """Utterances of a whole stream (a WAV source's ``chunks()``, a live microphone)."""
        for chunk in chunks:
            for utt in self.push(chunk):
                yield utt
        for utt in self.flush():
            yield utt

    def _step(self, frame: np.ndarray):
        """One 10 ms frame: (event kind or None, its samples)."""
        level = _frame_dbfs(frame)
        self._history.append(level)
        self.noise_dbfs = float(np.percentile(np.fromiter(self._history, float), _NOISE_PERCENTILE))
        if self._ptt:
            self._utt.append(frame)
            return self._speech_or_quiet(level, frame)
        if not self._in_speech:
            if not self.hands_free:          # push-to-talk only: just keep the lead padding
                self._before.append(frame)
                return None, None
            loud = level >= max(self.noise_dbfs + self.start_margin_db, self.min_level_dbfs)
            self._loud_run = self._loud_run + 1 if loud else 0
            self._before.append(frame)
            if self._loud_run >= self.onset_frames:
                # Onset: the lead padding and the onset frames open the utterance.
                self._in_speech = True
                self.utterance += 1
                self._utt = list(self._before)
                self._before.clear()
                self._speech_frames = self._loud_run
                self._quiet_run = self._after_pause = 0
                return START, np.concatenate(self._utt)
            return None, None
        self._utt.append(frame)
        kind = self._speech_or_quiet(level, frame)[0]
        if self._quiet_run >= self.trailing_frames or len(self._utt) >= self.max_frames:
            utt = self._finish()
            return (END, utt) if utt is not None else (DISCARD, frame[:0])
        return kind, frame

    def _speech_or_quiet(self, level: float, frame: np.ndarray):
        """Count a frame inside an utterance as speech or quiet: (AUDIO or PAUSE, frame)."""
        self._after_pause += 1
        if level >= max(self.noise_dbfs + self.stop_margin_db, self.min_level_dbfs - 5.0):
            self._speech_frames += 1
            self._quiet_run = 0
            return AUDIO, frame
        self._quiet_run += 1
        if (self._quiet_run == self.pause_frames
                and self._speech_frames >= self.min_speech_frames):
            self._after_pause, self._speech_at_pause = 0, self._speech_frames
            return PAUSE, frame
        return AUDIO, frame

    def rest_of_silence(self, so_far: np.ndarray) -> np.ndarray:
        """Quiet like the last ``pause_s`` of ``so_far``, as long as the rest of the trailing
        silence that would end it: decoding ``so_far`` with it at a pause reads as the
        whole utterance will (PocketSphinx misreads a word with only 0.2 s after it)."""
        quiet = so_far[-self.pause_frames * self.frame:]
        n = max(0, self.trailing_frames - self.pause_frames) * self.frame
        mirrored = np.concatenate([quiet[::-1], quiet])  # no click where the copies meet
        return np.resize(mirrored, n) if len(quiet) else np.zeros(n, dtype=np.int16)

    @property
    def settled(self) -> bool:
        """The utterance ended (or ends now) in a quiet of at least ``pause_s``."""
        return self.pause_frames is not None and self._quiet_run >= self.pause_frames

    def _finish(self) -> Optional[np.ndarray]:
        frames, speech = self._utt, self._speech_frames
        self._utt, self._in_speech, self._loud_run, self._speech_frames = [], False, 0, 0
        # Keep the tail as lead padding for a following utterance.
        for f in frames[-self.lead_frames:] if self.lead_frames else []:
            self._before.append(f)
        if speech < self.min_speech_frames or not frames:
            return None
        return np.concatenate(frames)

    # ------------------------------------------------------------------ push-to-talk

    def key_down(self) -> np.ndarray:
        """The talk key was pressed: start an utterance with the lead padding already heard,
        and return that padding (the START audio; empty if the key was already down)."""
        if self._ptt:
            return np.zeros(0, dtype=np.int16)
        self._ptt = True
        self.utterance += 1
        self._speech_frames = self._quiet_run = self._after_pause = 0
        self._utt = list(self._before)[-self.lead_frames:] if self.lead_frames else []
        self._before.clear()
        self._in_speech = False
        return np.concatenate(self._utt) if self._utt else np.zeros(0, dtype=np.int16)

    def key_up(self) -> Optional[np.ndarray]:
        """The talk key was released: the audio since key_down, or None if it was too short
        (``settled`` then tells whether the player was already quiet for ``pause_s``)."""
        if not self._ptt:
            return None
        if self._pending.size:
            self._utt.append(self._pending)
            self._pending = np.zeros(0, dtype=np.int16)
        frames = self._utt
        self._ptt, self._utt = False, []
        held = sum(len(f) for f in frames) - self.lead_frames * self.frame
        if held < self.min_speech_frames * self.frame:
            return None
        return np.concatenate(frames)


def _frame_dbfs(frame: np.ndarray) -> float:
    x = frame.astype(np.float64)
    power = float(np.dot(x, x)) / max(1, len(x))
    return 10.0 * math.log10(max(power, 1e-3) / 32768.0 ** 2)
