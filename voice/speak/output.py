"""Sound output: int16 mono PCM played through sounddevice in short blocks, so it can be cut."""
from __future__ import annotations

from typing import Callable, Optional, Union

import numpy as np

from voice.dsp import resample
from voice.errors import SpeakerError

_BLOCK_S = 0.02          # playback block: an interrupt cuts the sound within this
# Output buffer: generous, because the recognizer may be decoding on the same cores (a
# Raspberry Pi) and an underrun is a stutter mid-word; 0.1 s more before the first sound is
# not noticed in a turn-based game.
_OUTPUT_LATENCY_S = 0.1


class SoundOutput:
    """Plays int16 mono PCM on a sounddevice output, in short blocks so it can be cut off."""

    def __init__(self, device: Optional[Union[int, str]] = None) -> None:
        try:
            import sounddevice
        except (ImportError, OSError) as exc:
            raise SpeakerError("Sound output is not available: the PortAudio library could not be "
                               "loaded (%s); install libportaudio2." % exc) from None
        self._sd = sounddevice
        self.device = device
        try:
            info = sounddevice.query_devices(device, kind="output")
        except (ValueError, sounddevice.PortAudioError):
            raise SpeakerError("No sound output device was found.") from None
        self.device_rate = int(info["default_samplerate"])
        self.device_name = info["name"]
        self.latency = 0.0   # the device's reported output latency, seconds

    def play(self, pcm: np.ndarray, rate: int, should_stop: Callable[[], bool],
             on_start: Callable[[], None] = lambda: None) -> bool:
        """Play to the end (True) or until ``should_stop()`` (False); raises SpeakerError."""
        sd = self._sd
        try:
            sd.check_output_settings(self.device, samplerate=rate, channels=1, dtype="int16")
        except (ValueError, sd.PortAudioError):
            # the device cannot take this rate itself
            pcm, rate = resample(pcm, rate, self.device_rate), self.device_rate
        block = max(1, int(rate * _BLOCK_S))
        try:
            stream = sd.OutputStream(samplerate=rate, channels=1, dtype="int16",
                                     device=self.device, latency=_OUTPUT_LATENCY_S)
        except (ValueError, sd.PortAudioError):
            raise SpeakerError("The sound output %s could not be opened." % self.device_name) from None
        completed = False
        try:
            stream.start()
            self.latency = float(stream.latency)
            for n, start in enumerate(range(0, len(pcm), block)):
                if should_stop():
                    break
                stream.write(np.ascontiguousarray(pcm[start:start + block]).reshape(-1, 1))
                if n == 0:
                    on_start()
            else:
                # stop() does not wait for the buffer to play out everywhere (ALSA's pulse
                # plugin drops it): push the last sound through with a little silence.
                tail = np.zeros((int(rate * (self.latency + 2 * _BLOCK_S)), 1), dtype=np.int16)
                stream.write(tail)
                completed = True
        except sd.PortAudioError:   # the device went away: unplugged, or its server stopped
            raise SpeakerError("The sound output stopped working.") from None
        finally:
            try:
                if completed:
                    stream.stop()    # plays out what is buffered
                else:
                    stream.abort()   # cut off now
                stream.close()
            except sd.PortAudioError:
                pass
        return completed
