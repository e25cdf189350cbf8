"""The microphone as an AudioSource: 16-bit mono chunks at the recognizer's rate.

The device is opened at its own default sample rate (asking a USB headset for 16 kHz often
fails or gets a poor conversion) and the stream is resampled here, once, with the shared
windowed-sinc resampler.  While the program is speaking (``speaker.is_speaking``), input is
dropped, so the recognizer never hears the program's own voice.

Failures are one sentence the session can speak, never a traceback:
no device at all, a device that cannot be opened, or one that stops delivering audio
(unplugged, sound server gone) all raise ``MicrophoneError``.
"""
from __future__ import annotations

import queue
import threading
from typing import Any, Callable, Iterator, List, NamedTuple, Optional, Union

import numpy as np

from voice.dsp import StreamResampler
from voice.errors import MicrophoneError
from voice.hear.audio import AudioSource

NO_MICROPHONE = "No microphone was found."
MICROPHONE_STOPPED = "The microphone stopped working."
_FIRST_AUDIO_TIMEOUT_S = 5.0   # a sound server may take a moment to start a stream
_STALL_TIMEOUT_S = 2.0         # no audio for this long after that: the device is gone
_MAX_QUEUED_BLOCKS = 500       # ~15 s of audio; older blocks are dropped if nobody reads
_GAP = "gap"                   # marks dropped input: the resampler starts afresh after it


class InputDevice(NamedTuple):
    index: int
    name: str
    channels: int
    default_rate: int
    is_default: bool


def _sounddevice() -> Any:
    try:
        import sounddevice
    except (ImportError, OSError):
        raise MicrophoneError("The microphone cannot be used because the PortAudio library is "
                              "missing (install libportaudio2)."
                              ) from None
    return sounddevice


def list_input_devices() -> List[InputDevice]:
    """Every device that can record, as PortAudio sees it now."""
    sd = _sounddevice()
    default_input = sd.default.device[0]
    return [InputDevice(i, d["name"], int(d["max_input_channels"]), int(d["default_samplerate"]),
                        i == default_input)
            for i, d in enumerate(sd.query_devices()) if d["max_input_channels"] > 0]


def _mute_test(mute_while: Any) -> Callable[[], bool]:
    """Accept a Speaker (anything with an ``is_speaking`` Event), a callable, or None."""
    if mute_while is None:
        return lambda: False
    flag = getattr(mute_while, "is_speaking", None)
    if flag is not None:
        return flag.is_set
    if callable(mute_while):
        return lambda: bool(mute_while())
    raise TypeError("mute_while must be a Speaker, a callable or None")


class MicrophoneSource(AudioSource):
    """Live input from a sounddevice input device, as int16 chunks at ``rate`` Hz.

    ``device`` is a PortAudio index or name (None: the system default).  ``mute_while`` is
    the Speaker (or a callable returning True while input must be ignored).
    """

    def __init__(self, rate: int = 16000, device: Optional[Union[int, str]] = None,
                 chunk_ms: int = 30, mute_while: Any = None) -> None:
        self.rate = int(rate)
        self._muted = _mute_test(mute_while)
        self._queue: "queue.Queue[Any]" = queue.Queue(maxsize=_MAX_QUEUED_BLOCKS)
        self._closed = threading.Event()
        self._was_muted = False
        self.dropped_frames = 0     # input ignored while the program spoke
        self.overflows = 0          # blocks the device reported lost (a busy machine)
        sd = _sounddevice()
        try:
            info = sd.query_devices(device, kind="input")
        except (ValueError, sd.PortAudioError):   # no default input is index -1
            raise MicrophoneError(NO_MICROPHONE) from None
        self.device = device if device is not None else info["index"]
        self.device_name = info["name"]
        self.device_rate = int(info["default_samplerate"])
        self.channels = 1
        blocksize = max(1, self.device_rate * chunk_ms // 1000)
        self._stream = self._open(sd, blocksize, int(info["max_input_channels"]))

    def _open(self, sd: Any, blocksize: int, max_channels: int) -> Any:
        # Mono first; some hardware only records in stereo, then it is mixed down here.
        attempts = [1] + ([min(2, max_channels)] if max_channels > 1 else [])
        error: Exception = MicrophoneError(NO_MICROPHONE)
        for channels in attempts:
            try:
                stream = sd.InputStream(samplerate=self.device_rate, blocksize=blocksize,
                                        device=self.device, channels=channels, dtype="int16",
                                        callback=self._on_audio,
                                        finished_callback=self._on_finished)
                stream.start()
            except (ValueError, sd.PortAudioError) as exc:
                error = exc
                continue
            self.channels = channels
            return stream
        raise MicrophoneError("The microphone %s could not be opened (%s)."
                              % (self.device_name, error)) from None

    # -- PortAudio's thread

    def _on_audio(self, indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        if status and status.input_overflow:
            self.overflows += 1
        if self._muted():
            self.dropped_frames += frames
            if not self._was_muted:
                self._put(_GAP)
            self._was_muted = True
            return
        self._was_muted = False
        block = indata[:, 0].copy() if self.channels == 1 else indata.mean(axis=1)
        self._put(block)

    def _on_finished(self) -> None:
        self._put(None)

    def _put(self, item: Any) -> None:
        try:
            self._queue.put_nowait(item)
        except queue.Full:   # nobody is reading: forget the oldest audio, keep the newest
            try:
                self._queue.get_nowait()
                self._queue.put_nowait(item)
            except (queue.Empty, queue.Full):
                pass

    # -- the reader

    def chunks(self) -> Iterator[np.ndarray]:
        """Chunks of int16 mono audio at ``self.rate`` until ``close()``; raises MicrophoneError
        with MICROPHONE_STOPPED when the device stops delivering audio."""
        resampler = StreamResampler(self.device_rate, self.rate)
        timeout = _FIRST_AUDIO_TIMEOUT_S
        while not self._closed.is_set():
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                if self._closed.is_set() or self._muted():
                    continue   # no audio is expected while muted
                raise MicrophoneError(MICROPHONE_STOPPED) from None
            timeout = _STALL_TIMEOUT_S
            if item is None:
                if self._closed.is_set():
                    return
                raise MicrophoneError(MICROPHONE_STOPPED)
            if isinstance(item, str):   # input was dropped: do not splice across the gap
                resampler = StreamResampler(self.device_rate, self.rate)
                continue
            out = resampler.process(item)
            if len(out):
                yield out

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        self._put(None)
        try:
            self._stream.abort()
            self._stream.close()
        except Exception:   # the device may already be gone; closing must not fail
            pass
