"""Audio path on real signals: resampler quality, WAV sources, and the segmenter on real speech."""
from __future__ import annotations

import wave

import numpy as np
import pytest

from tests.speech_clips import VOICES, join, noise_burst, synthesize_pcm
from voice.hear.audio import WavSource, chunk_array, read_wav, write_wav
from voice.dsp import StreamResampler, level_dbfs, pad_with_noise, resample
from voice.errors import AudioError
from voice.hear.segmenter import Segmenter


def _spectrum(y: np.ndarray, rate: int):
    y = y[len(y) // 8: -len(y) // 8].astype(np.float64)      # skip the edges
    mag = np.abs(np.fft.rfft(y * np.hanning(len(y))))
    return np.fft.rfftfreq(len(y), 1.0 / rate), mag


def _sine(freq: float, rate: int, seconds: float = 1.0, amp: float = 10000.0) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return np.round(amp * np.sin(2 * np.pi * freq * t)).astype(np.int16)


def test_upsampling_keeps_frequency_and_leaves_no_image():
    y = resample(_sine(1000, 8000), 8000, 16000)
    assert y.dtype == np.int16 and len(y) == 16000
    freqs, mag = _spectrum(y, 16000)
    assert abs(freqs[mag.argmax()] - 1000) < 2
    image = mag[freqs > 4200].max() / mag.max()          # sample repetition leaves 7 kHz here
    assert 20 * np.log10(image) < -60
    assert abs(np.std(y) / np.std(_sine(1000, 8000)) - 1) < 0.02   # pass band keeps its level


def test_downsampling_removes_what_the_new_rate_cannot_hold():
    x = (_sine(1000, 44100).astype(np.int32) + _sine(10000, 44100)).astype(np.int16)
    y = resample(x, 44100, 16000)
    freqs, mag = _spectrum(y, 16000)
    assert abs(freqs[mag.argmax()] - 1000) < 2
    alias = mag[np.abs(freqs - 6000) < 300].max() / mag.max()   # 10 kHz would fold to 6 kHz
    assert 20 * np.log10(alias) < -60


def test_streaming_resampler_matches_whole_signal():
    x = _sine(440, 48000, 0.5)
    whole = resample(x, 48000, 16000)
    r = StreamResampler(48000, 16000)
    parts = [r.process(x[i:i + 777]) for i in range(0, len(x), 777)] + [r.flush()]
    assert np.array_equal(np.concatenate(parts), whole)


def test_wav_source_resamples_and_mixes_stereo(tmp_path):
    tone = _sine(500, 22050, 0.5)
    path = tmp_path / "stereo.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(22050)
        w.writeframes(np.stack([tone, tone // 2], axis=1).astype("<i2").tobytes())
    src = WavSource(path, rate=16000, chunk_ms=20)
    chunks = list(src.chunks())
    assert src.rate == 16000 and src.source_rate == 22050
    assert all(c.dtype == np.int16 for c in chunks) and len(chunks[0]) == 320
    pcm = np.concatenate(chunks)
    assert abs(len(pcm) - 8000) <= 1
    freqs, mag = _spectrum(pcm, 16000)
    assert abs(freqs[mag.argmax()] - 500) < 3
    assert abs(np.std(pcm[2000:-2000]) / np.std(tone) - 0.75) < 0.03   # mean of L and R/2


def test_wav_source_at_8k_is_what_the_fsdd_bench_uses(tmp_path):
    path = write_wav(tmp_path / "tel.wav", _sine(1000, 8000, 0.3), 8000)
    pcm = np.concatenate(list(WavSource(path).chunks()))
    assert abs(len(pcm) - 4800) <= 1


def test_unreadable_files_raise_one_clear_error(tmp_path):
    with pytest.raises(AudioError, match="does not exist"):
        WavSource(tmp_path / "missing.wav")
    junk = tmp_path / "junk.wav"
    junk.write_bytes(b"this is not a wav file at all")
    with pytest.raises(AudioError, match="not a readable WAV"):
        read_wav(junk)


def test_noise_padding_gives_a_floor_below_the_speech():
    speech = synthesize_pcm("seven", pad_s=0.0, noise_db=-80)
    padded = pad_with_noise(speech, 16000, pad_s=0.3, noise_db=-35)
    assert len(padded) == len(speech) + 9600
    floor = level_dbfs(padded[:4000])
    assert -100 < floor and floor - level_dbfs(speech) < -25


def test_segmenter_splits_a_spoken_sequence_into_utterances():
    texts = ["seven", "play the nine", "ten minus", "whose turn", "ace eleven", "yes"]
    clips = [synthesize_pcm(t, voice=v, speed=s) for t, (v, s) in zip(texts, VOICES)]
    stream = join(clips, gap_s=0.9)
    utterances = list(Segmenter().segment(chunk_array(stream, chunk_ms=30)))
    assert len(utterances) == len(texts)
    for utt, clip in zip(utterances, clips):
        # Each utterance holds its word plus the lead padding and some trailing silence.
        assert 0.6 * len(clip) < len(utt) < len(clip) + 16000


def test_segmenter_ignores_clicks_and_keeps_a_hesitation_inside_one_utterance():
    floor = level_dbfs(synthesize_pcm("seven")[:1600])
    click = noise_burst("click", level_dbfs=floor + 20, noise_db=-20)
    ten, minus = synthesize_pcm("ten", pad_s=0.15), synthesize_pcm("minus", pad_s=0.15)
    hesitation = join([ten, minus], gap_s=0.05, noise_dbfs=floor)   # a 0.35 s pause between words
    stream = join([click, hesitation], gap_s=1.0, noise_dbfs=floor)
    utterances = list(Segmenter().segment(chunk_array(stream)))
    assert len(utterances) == 1
    assert len(utterances[0]) > len(ten) + len(minus) - 9600


def test_trailing_silence_is_tunable():
    clips = [synthesize_pcm("ten"), synthesize_pcm("minus")]
    stream = join(clips, gap_s=0.2)   # 0.8 s between the words with the clips' own padding
    assert len(list(Segmenter(trailing_silence_s=0.5).segment(chunk_array(stream)))) == 2
    assert len(list(Segmenter(trailing_silence_s=1.2).segment(chunk_array(stream)))) == 1


def test_push_to_talk_returns_the_audio_between_key_down_and_key_up():
    seg = Segmenter(hands_free=False)
    clip = synthesize_pcm("play the seven")
    noise = join([clip], gap_s=1.0)[:16000]
    assert seg.push(noise) == []            # nothing is heard without the key
    seg.key_down()
    assert seg.push(clip) == []
    utt = seg.key_up()
    assert utt is not None and len(utt) == len(clip) + 4800   # plus 0.3 s lead padding
    seg.key_down()
    assert seg.key_up() is None             # a tap of the key is not an utterance


def test_segmenter_reads_a_wav_file_stream(tmp_path):
    clips = [synthesize_pcm("two"), synthesize_pcm("my cards")]
    path = write_wav(tmp_path / "two.wav", resample(join(clips), 16000, 44100), 44100)
    src = WavSource(path)
    assert len(list(Segmenter(rate=src.rate).segment(src.chunks()))) == 2
