"""Speech out, with real pyttsx3 speech played through a real (virtual) sound card."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from tests.virtual_audio import VirtualAudio, frame_levels_db
from voice.hear.audio import read_wav
from voice.speak.earcons import NAMES, EarconError, earcon
from voice.speak.speaker import MAX_RATE_WPM, MIN_RATE_WPM, Speaker
from voice.speak.tts_worker import TtsWorker, render_speech, render_to_wav
from voice.errors import SpeakerError

LONG = ("North plays the queen of hearts. The total is ninety one. "
        "East plays the seven of clubs. The total is ninety eight.")   # about 7 s
MEDIUM = "North plays the queen of hearts. The total is ninety one."   # about 3.5 s


class Log:
    """Collects what a Speaker reports through its callbacks, thread-safely."""

    def __init__(self):
        self.lock = threading.Lock()
        self.texts, self.problems, self.sounds = [], [], []
        self.first_sound = threading.Event()

    def text(self, line):
        with self.lock:
            self.texts.append(line)

    def problem(self, sentence):
        with self.lock:
            self.problems.append(sentence)

    def sound(self, kind, what):
        with self.lock:
            self.sounds.append((kind, what))
        self.first_sound.set()

    def speaker(self, **kwargs) -> Speaker:
        return Speaker(on_text=self.text, on_problem=self.problem, on_sound_start=self.sound,
                       **kwargs)


# --------------------------------------------------------------------------- earcons

@pytest.mark.parametrize("name", NAMES)
def test_earcons_are_short_clean_int16_sounds(name):
    pcm, rate = earcon(name)
    assert pcm.dtype == np.int16 and pcm.ndim == 1
    assert rate == 22050
    assert 0.1 <= len(pcm) / rate <= 0.25
    assert 5000 < np.abs(pcm).max() < 32767            # audible, not clipped
    assert abs(int(pcm[0])) < 200 and abs(int(pcm[-1])) < 200   # ramps: no click at the edges


def test_earcons_differ_from_each_other():
    spectra = {}
    for name in NAMES:
        pcm, rate = earcon(name)
        spectrum = np.abs(np.fft.rfft(pcm.astype(np.float64), n=8192))
        spectra[name] = spectrum / np.linalg.norm(spectrum)
    for a in NAMES:
        for b in NAMES:
            if a < b:
                assert float(spectra[a] @ spectra[b]) < 0.9, (a, b)


def test_unknown_earcon_is_one_sentence():
    with pytest.raises(EarconError) as info:
        earcon("fanfare")
    assert "There is no sound called 'fanfare'" in str(info.value)
    assert "your_turn" in str(info.value)


# --------------------------------------------------------------------------- synthesis

def test_rendered_announcement_is_real_speech(tmp_path):
    path = render_to_wav("North plays the queen of hearts. Total ninety one.", tmp_path / "a.wav")
    pcm, rate = read_wav(path)
    seconds = len(pcm) / rate
    assert 1.5 < seconds < 6.0
    levels = frame_levels_db(pcm, rate)
    voiced = levels > -40
    assert 0.5 < voiced.mean() < 0.98          # mostly sound, with pauses between words
    assert levels.max() > -20
    # Speech energy sits in the voice band, not in a hum or a hiss.
    spectrum = np.abs(np.fft.rfft(pcm.astype(np.float64))) ** 2
    freqs = np.fft.rfftfreq(len(pcm), 1.0 / rate)
    band = spectrum[(freqs > 80) & (freqs < 4000)].sum() / spectrum.sum()
    assert band > 0.8
    # Syllables: the loudness rises and falls several times a second.
    rises = np.sum((levels[1:] > -30) & (levels[:-1] <= -30))
    assert rises >= 4


def test_speech_rate_changes_the_duration():
    slow, rate = render_speech("Seven of spades, total ninety.", rate_wpm=120)
    fast, rate2 = render_speech("Seven of spades, total ninety.", rate_wpm=300)
    assert rate == rate2
    assert len(slow) > 1.6 * len(fast)


def test_one_engine_renders_every_request_whole_and_at_its_own_rate():
    # espeak-ng takes a rate change on its own thread: a render started before it had was
    # spoken at the previous rate, or cut to nothing by pyttsx3's runAndWait().
    worker = TtsWorker()
    lengths = {120: [], 300: []}
    try:
        for _ in range(8):
            for wpm in lengths:
                pcm, _ = worker.render("Seven of spades, total ninety.", wpm)
                lengths[wpm].append(len(pcm))
    finally:
        worker.close()
    assert min(lengths[120]) > 2 * max(lengths[300]), lengths


# --------------------------------------------------------------------------- text-only modes

def test_muted_mode_only_prints(capsys):
    speaker = Speaker(muted=True)
    start = time.perf_counter()
    speaker.say("North plays the   queen\nof hearts.")
    speaker.earcon("your_turn")
    speaker.say("")
    assert speaker.wait_until_quiet(0.1)
    assert time.perf_counter() - start < 2.0           # nothing waited for a sound
    assert not speaker.is_speaking.is_set()
    assert not speaker.speech_available
    speaker.close()
    out = capsys.readouterr()
    assert out.out == "North plays the queen of hearts.\n"    # one clean line, nothing else
    assert out.err == ""


def test_missing_output_device_is_reported_once_and_text_goes_on():
    log = Log()
    speaker = log.speaker(output_device="no such sound card")
    for n in range(3):
        speaker.say("Announcement %d." % n)
        speaker.earcon("penalty")
    assert speaker.wait_until_quiet(1.0)
    speaker.close()
    assert log.texts == ["Announcement 0.", "Announcement 1.", "Announcement 2."]
    assert log.problems == ["No sound output device was found. "
                            "Announcements continue as text only."]
    assert log.sounds == []


# --------------------------------------------------------------------------- through the virtual sound card

def test_say_returns_at_once_and_speech_reaches_the_device(virtual_audio):
    log = Log()
    speaker = log.speaker(holdoff_s=0.3)
    try:
        assert speaker.speech_available
        with virtual_audio.recorder() as recording:
            time.sleep(0.2)
            start = time.perf_counter()
            speaker.say(MEDIUM)
            said_in = time.perf_counter() - start
            assert speaker.is_speaking.is_set()        # set before the first sound
            assert not speaker.wait_until_quiet(0.5)   # still speaking: say() did not block
            assert speaker.wait_until_quiet(20.0)
            spoken_in = time.perf_counter() - start
            assert speaker.is_speaking.is_set()        # the hold-off keeps the microphone shut
            time.sleep(0.6)
            assert not speaker.is_speaking.is_set()
    finally:
        speaker.close()
    assert said_in < 0.5                               # far shorter than the 3.5 s sentence
    assert spoken_in > 2.5                             # the sentence really played, in real time
    assert log.problems == []
    assert log.texts == [MEDIUM]
    assert speaker.last_start_delay is not None and speaker.last_start_delay < 0.5
    levels = frame_levels_db(recording.pcm, recording.rate)
    assert (levels > -40).sum() * 0.02 > 2.0           # seconds of speech came out of the device


def test_queue_keeps_order_and_interrupt_drops_the_rest(virtual_audio):
    log = Log()
    speaker = log.speaker()
    try:
        speaker.say("First.")
        speaker.earcon("your_turn")
        speaker.say("Second.")
        assert speaker.wait_until_quiet(10.0)
        assert log.sounds == [("say", "First."), ("earcon", "your_turn"), ("say", "Second.")]

        del log.sounds[:]
        log.first_sound.clear()
        speaker.say(LONG)
        assert log.first_sound.wait(10.0)
        start = time.perf_counter()  # from its first sound: rendering time does not count
        speaker.say("Queued and dropped.")
        speaker.earcon("penalty")
        speaker.say("Your turn.", interrupt=True)
        assert speaker.wait_until_quiet(10.0)
        elapsed = time.perf_counter() - start
    finally:
        speaker.close()
    assert log.sounds == [("say", LONG), ("say", "Your turn.")]
    assert elapsed < 5.0                     # the 7 s sentence was cut short
    assert log.texts[-3:] == [LONG, "Queued and dropped.", "Your turn."]   # text is never dropped
    assert log.problems == []


def test_failed_speech_engine_is_reported_once(virtual_audio, monkeypatch, tmp_path):
    # espeak-ng without its data files: the engine exits as soon as it starts.
    monkeypatch.setenv("ESPEAK_DATA_PATH", str(tmp_path))
    log = Log()
    speaker = log.speaker()
    try:
        for n in range(3):
            speaker.say("Announcement %d." % n)
        speaker.earcon("your_turn")                    # sound output still works
        assert speaker.wait_until_quiet(5.0)
    finally:
        speaker.close()
    assert not speaker.speech_available
    assert len(log.problems) == 1
    assert log.problems[0].startswith("The speech engine")
    assert log.problems[0].endswith("Announcements continue as text only.")
    assert "\n" not in log.problems[0] and "Traceback" not in log.problems[0]
    assert log.texts == ["Announcement 0.", "Announcement 1.", "Announcement 2."]
    assert log.sounds == [("earcon", "your_turn")]


def test_rate_volume_and_voice_settings(virtual_audio):
    log = Log()
    speaker = log.speaker(rate_wpm=180)
    try:
        assert speaker.slower() == 155 and speaker.faster() == 180
        assert speaker.set_rate(10) == MIN_RATE_WPM
        assert speaker.set_rate(10000) == MAX_RATE_WPM
        assert speaker.set_volume(1.7) == 1.0 and speaker.set_volume(-1) == 0.0
        assert speaker.set_voice("ko") == "ko"
        assert speaker.set_voice("en-us") == "gmw/en-us"
        assert any(vid == "gmw/en-us" for vid, _ in speaker.voices())
        with pytest.raises(SpeakerError, match="There is no speech voice for 'klingon'"):
            speaker.set_voice("klingon")
        assert speaker.voice == "gmw/en-us"
        speaker.set_rate(180)
        pcm, rate = speaker.render("Nine of diamonds.")
        assert len(pcm) / rate > 0.5
    finally:
        speaker.close()


def test_volume_scales_what_is_played(virtual_audio):
    peaks = []
    for volume in (1.0, 0.25):
        speaker = Speaker(volume=volume, on_problem=pytest.fail)
        try:
            with virtual_audio.recorder() as recording:
                speaker.earcon("listening")
                assert speaker.wait_until_quiet(5.0)
        finally:
            speaker.close()
        peaks.append(int(np.abs(recording.pcm).max()))
    assert peaks[0] > 5000
    assert 0.15 < peaks[1] / peaks[0] < 0.35


def test_output_device_lost_mid_sentence_is_reported_once():
    log = Log()
    with VirtualAudio() as audio:
        speaker = log.speaker()
        try:
            speaker.say(LONG)
            assert log.first_sound.wait(5.0)
            audio.kill_daemon()                        # the headset is unplugged mid-sentence
            assert speaker.wait_until_quiet(5.0)
            speaker.say("Your turn.")
            speaker.earcon("your_turn")
            assert speaker.wait_until_quiet(1.0)
            time.sleep(0.5)
            assert not speaker.is_speaking.is_set()    # the microphone is not kept shut
        finally:
            speaker.close()
    assert log.problems == ["The sound output stopped working. Announcements continue as text only."]
    assert log.texts == [LONG, "Your turn."]
    assert log.sounds == [("say", LONG)]


def test_hold_off_is_longer_after_a_voice_than_after_a_beep(virtual_audio):
    speaker = Speaker(on_problem=pytest.fail, holdoff_s=0.4)

    def hold_off_after(queue_sound) -> float:
        queue_sound()
        assert speaker.wait_until_quiet(10.0)
        quiet_at = time.perf_counter()
        while speaker.is_speaking.is_set():
            time.sleep(0.005)
        return time.perf_counter() - quiet_at

    try:
        after_voice = hold_off_after(lambda: speaker.say("Seven."))
        after_beep = hold_off_after(lambda: speaker.earcon("listening"))
    finally:
        speaker.close()
    assert 0.35 < after_voice < 1.5   # loose upper bounds: a busy CI machine is slow to wake
    assert 0.05 < after_beep < after_voice


def test_barge_in_cuts_the_speech_and_opens_the_microphone_at_once(virtual_audio):
    log = Log()
    speaker = log.speaker()
    try:
        speaker.say(LONG)
        assert log.first_sound.wait(10.0)
        assert speaker.is_speaking.is_set()
        start = time.perf_counter()
        speaker.barge_in()
        assert not speaker.is_speaking.is_set()      # the microphone hears the player now
        assert speaker.wait_until_quiet(5.0)
        assert time.perf_counter() - start < 1.0     # the 7 s sentence was cut
    finally:
        speaker.close()
    assert log.problems == []
