"""The microphone source, capturing for real from a virtual sound card (tests/virtual_audio.py).

espeak-ng speech is played into the virtual speaker with paplay; its monitor is the default
input, so sounddevice records it exactly as it would record a microphone.
"""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from tests.speech_clips import synthesize
from tests.virtual_audio import VirtualAudio, frame_levels_db, refresh_portaudio
from voice.hear.audio import AudioSource, read_wav
from voice.errors import AudioError
from voice.hear.microphone import MICROPHONE_STOPPED, NO_MICROPHONE, MicrophoneSource, list_input_devices
from voice.errors import MicrophoneError
from voice.speak.speaker import Speaker


class Capture:
    """Reads a MicrophoneSource in a thread, as the session's recognizer loop would."""

    def __init__(self, mic: MicrophoneSource):
        self.mic = mic
        self.chunks, self.error = [], None
        self.first = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        assert self.first.wait(8.0), "the microphone delivered no audio"

    def _read(self):
        try:
            for chunk in self.mic.chunks():
                self.chunks.append(chunk)
                self.first.set()
        except MicrophoneError as exc:
            self.error = exc
            self.first.set()

    def stop(self) -> np.ndarray:
        self.mic.close()
        self.thread.join(5.0)
        assert not self.thread.is_alive()
        return np.concatenate(self.chunks) if self.chunks else np.zeros(0, np.int16)

    def samples_so_far(self) -> int:
        return sum(len(c) for c in list(self.chunks))


def best_match(recorded: np.ndarray, clip: np.ndarray):
    """(normalized cross-correlation peak, lag in samples) of ``clip`` inside ``recorded``."""
    x = recorded.astype(np.float64)
    y = clip.astype(np.float64)
    n = 1 << int(np.ceil(np.log2(len(x) + len(y))))
    corr = np.fft.irfft(np.fft.rfft(x, n) * np.conj(np.fft.rfft(y, n)), n)[: len(x) - len(y) + 1]
    running = np.concatenate([[0.0], np.cumsum(x * x)])
    energy = running[len(y):] - running[: len(x) - len(y) + 1]   # of each clip-long window
    score = corr / np.sqrt(energy * float(y @ y) + 1e-9)
    lag = int(np.argmax(score))
    return float(score[lag]), lag


PIECE_S = 0.4


def pieces_found(recorded: np.ndarray, clip: np.ndarray, rate: int):
    """(score, lag) of each voiced 0.4 s piece of ``clip`` where it best matches ``recorded``.

    Matched piece by piece, not whole: on a busy machine one block can be lost or a few
    milliseconds of silence slipped in between the player and the virtual speaker, and a
    single such seam already halves the correlation of the whole sentence.
    """
    size = int(rate * PIECE_S)
    found = []
    for start in range(0, len(clip) - size + 1, size):
        piece = clip[start: start + size]
        if frame_levels_db(piece, rate).max() < -40:          # a pause: nothing to find
            continue
        score, lag = best_match(recorded, piece)
        found.append((score, lag - start))                    # lag of the clip's start
    return found


def assert_played_whole(recorded: np.ndarray, clip: np.ndarray, rate: int, overflows: int):
    """Every voiced piece of ``clip`` is in ``recorded`` (one seam allowed), in order and at
    real-time pace: the sentence arrived whole, resampled to ``rate`` correctly."""
    found = pieces_found(recorded, clip, rate)
    good = [lag for score, lag in found if score > 0.8]
    assert len(found) >= 2 and len(good) >= len(found) - 1, (
        "the captured audio does not contain the played speech: piece scores %s "
        "(the device reported %d lost blocks)" % ([round(s, 2) for s, _ in found], overflows))
    # Each piece sits where the first put the clip, give or take one seam: the right pace.
    assert max(good) - min(good) < 0.15 * rate, "pieces out of place: %s" % good
    return min(good)


# --------------------------------------------------------------------------- without a device
# (these run before the module's virtual sound card starts: this machine has no sound card)

def test_no_default_microphone_is_one_sentence():
    import sounddevice as sd
    refresh_portaudio()
    if sd.default.device[0] >= 0:
        pytest.skip("this machine has a real microphone, so 'no microphone' cannot be tested")
    with pytest.raises(MicrophoneError) as info:
        MicrophoneSource()
    assert str(info.value) == NO_MICROPHONE
    assert isinstance(info.value, AudioError)
    assert list_input_devices() == []


def test_unknown_microphone_name_is_one_sentence():
    with pytest.raises(MicrophoneError) as info:
        MicrophoneSource(device="no such microphone")
    assert str(info.value) == "No microphone was found."


# --------------------------------------------------------------------------- through the virtual sound card

def test_lists_the_virtual_microphone(virtual_audio):
    devices = list_input_devices()
    defaults = [d for d in devices if d.is_default]
    assert len(defaults) == 1
    assert defaults[0].default_rate > 0 and defaults[0].channels >= 1


def test_captures_played_speech_at_16_khz(virtual_audio, tmp_path):
    clip_path = synthesize("North plays the queen of hearts, total ninety one.", rate=16000)
    clip, clip_rate = read_wav(clip_path)
    mic = MicrophoneSource(rate=16000)
    assert isinstance(mic, AudioSource)
    assert mic.rate == 16000
    # Opened at the device's own rate (44.1 kHz here), resampled to 16 kHz in the source.
    import sounddevice as sd
    assert mic.device_rate == int(sd.query_devices(kind="input")["default_samplerate"])
    assert mic.device_rate != 16000
    capture = Capture(mic)
    try:
        time.sleep(0.3)
        before = capture.samples_so_far()
        virtual_audio.play_wav(clip_path)
        time.sleep(0.5)
    finally:
        recorded = capture.stop()
    assert capture.error is None
    assert all(c.dtype == np.int16 and c.ndim == 1 for c in capture.chunks)
    lag = assert_played_whole(recorded, clip, 16000, mic.overflows)
    assert lag >= before - 16000 // 2                 # it arrived after it was played


def test_ignores_the_programs_own_voice(virtual_audio):
    clip_path = synthesize("seven of spades", rate=16000)
    clip, _ = read_wav(clip_path)
    problems = []
    speaker = Speaker(on_problem=problems.append, holdoff_s=0.3)
    mic = MicrophoneSource(rate=16000, mute_while=speaker)
    capture = Capture(mic)
    try:
        time.sleep(0.2)
        before_speech = capture.samples_so_far()
        speaker.say("Your turn. You hold the seven of spades and the king of clubs.")
        assert speaker.wait_until_quiet(15.0)
        while speaker.is_speaking.is_set():
            time.sleep(0.02)
        after_speech = capture.samples_so_far()
        time.sleep(0.2)
        virtual_audio.play_wav(clip_path)             # the player speaks after the program
        time.sleep(0.5)
    finally:
        recorded = capture.stop()
        speaker.close()
    assert problems == []
    assert mic.dropped_frames > 3 * mic.device_rate   # seconds of the program's voice dropped
    # Nothing loud was delivered while the program spoke ...
    during = recorded[before_speech:after_speech]
    assert len(during) < 16000 * 0.5
    assert (frame_levels_db(during, 16000) < -50).all() if len(during) >= 320 else True
    # ... and the player's words afterwards were.
    lag = assert_played_whole(recorded, clip, 16000, mic.overflows)
    assert lag >= after_speech - 16000 // 2


def test_unplugged_microphone_raises_one_sentence():
    with VirtualAudio() as audio:
        mic = MicrophoneSource()
        capture = Capture(mic)
        assert capture.error is None
        audio.kill_daemon()                            # the device disappears mid-stream
        capture.thread.join(5.0)
        assert not capture.thread.is_alive()
        capture.stop()
    assert isinstance(capture.error, MicrophoneError)
    assert str(capture.error) == MICROPHONE_STOPPED
    assert MICROPHONE_STOPPED == "The microphone stopped working."
