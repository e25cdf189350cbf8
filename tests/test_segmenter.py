"""The segmenter's streaming events, on real espeak-ng speech in microphone-sized chunks: an
utterance is reported from its onset, piece by piece, before the trailing silence ends it."""
from __future__ import annotations

import numpy as np
import pytest

from tests.speech_clips import espeak_available, in_noise, join, synthesize_pcm
from voice.hear.audio import chunk_array
from voice.dsp import level_dbfs
from voice.hear.segmenter import AUDIO, DISCARD, END, PAUSE, START, Segmenter

pytestmark = pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")


def events_of(segmenter, stream, chunk_ms=30):
    """(chunk index, event) of every event, in order."""
    found = []
    for i, chunk in enumerate(chunk_array(stream, chunk_ms=chunk_ms)):
        found += [(i, event) for event in segmenter.push_events(chunk)]
    return found


def short_burst() -> np.ndarray:
    """0.1 s cut from the middle of a word: loud enough to open an utterance, too short to
    be one."""
    word = synthesize_pcm("seven", pad_s=0.0)
    return word[len(word) // 2: len(word) // 2 + 1600]


def test_an_utterance_is_reported_while_it_is_spoken():
    clip = synthesize_pcm("play the seven")
    stream = join([clip], gap_s=1.0)
    found = events_of(Segmenter(), stream)
    kinds = [event.kind for _, event in found]
    assert kinds[0] == START and kinds[-1] == END
    assert set(kinds[1:-1]) <= {AUDIO, PAUSE} and AUDIO in kinds
    # The START comes within the first half of the clip, long before the END.
    clip_chunks = len(clip) / 480.0
    start_chunk, end_chunk = found[0][0], found[-1][0]
    assert start_chunk < (1.0 * 16000 / 480) + clip_chunks / 2
    assert end_chunk - start_chunk > clip_chunks / 2
    # The pieces reported are the utterance's beginning; the END holds the whole of it,
    # the same utterance ``push`` returns.
    streamed = np.concatenate([event.pcm for _, event in found[:-1]])
    whole = found[-1][1].pcm
    assert len(whole) - 160 <= len(streamed) < len(whole)
    assert np.array_equal(whole[:len(streamed)], streamed)
    pushed = Segmenter()
    utterances = [u for c in chunk_array(stream) for u in pushed.push(c)]
    assert len(utterances) == 1 and np.array_equal(utterances[0], whole)


def test_the_start_carries_the_lead_padding_and_the_onset():
    stream = join([synthesize_pcm("king")], gap_s=1.0)
    segmenter = Segmenter(lead_pad_s=0.3, onset_frames=3)
    start = events_of(segmenter, stream)[0][1]
    assert start.kind == START
    assert len(start.pcm) == (30 + 3) * 160            # 0.3 s before the onset + 3 frames
    levels = [level_dbfs(start.pcm[i:i + 160]) for i in range(0, len(start.pcm), 160)]
    assert max(levels[-3:]) > max(levels[:20]) + 12     # speech at its end, noise before


def test_a_burst_too_short_to_be_a_word_is_discarded():
    floor = level_dbfs(synthesize_pcm("seven")[:1600])
    word = synthesize_pcm("nine")
    stream = join([short_burst(), word], gap_s=1.0, noise_dbfs=floor)
    found = [event for _, event in events_of(Segmenter(), stream)]
    kinds = [event.kind for event in found]
    assert kinds.count(START) == 2
    first_end = kinds.index(DISCARD)
    assert kinds[:first_end] == [START] + [AUDIO] * (first_end - 1)
    assert kinds[first_end + 1] == START and kinds[-1] == END and kinds.count(END) == 1
    assert len(found[first_end].pcm) == 0
    assert len(list(Segmenter().segment(chunk_array(stream)))) == 1   # push() skips it


def test_events_do_not_depend_on_the_chunk_size():
    stream = join([synthesize_pcm("ten minus")], gap_s=1.0)
    ends = []
    for chunk_ms in (10, 30, 64):
        found = [event for _, event in events_of(Segmenter(), stream, chunk_ms)]
        assert found[0].kind == START and found[-1].kind == END
        ends.append(found[-1].pcm)
    assert all(np.array_equal(ends[0], end) for end in ends[1:])


def test_push_to_talk_streams_from_key_down_to_key_up():
    clip = synthesize_pcm("play the seven")
    noise = join([clip], gap_s=1.0)[:16000]
    segmenter = Segmenter(hands_free=False)
    assert segmenter.push_events(noise) == []           # nothing without the key
    start = segmenter.key_down()
    assert np.array_equal(start, noise[-4800:])          # the last 0.3 s before the key
    pieces = [start]
    for chunk in chunk_array(clip[:-50]):                # ends in the middle of a frame
        found = segmenter.push_events(chunk)
        assert {event.kind for event in found} <= {AUDIO, PAUSE}
        pieces += [event.pcm for event in found]
    streamed = np.concatenate(pieces)
    whole = segmenter.key_up()
    assert np.array_equal(whole, np.concatenate([noise[-4800:], clip[:-50]]))
    assert np.array_equal(whole[:len(streamed)], streamed) and len(whole) - len(streamed) < 160
    segmenter.key_down()
    assert segmenter.key_up() is None                    # a tap is not an utterance


def test_a_pause_is_reported_and_a_cut_keeps_speech_that_resumed():
    """PAUSE after 0.2 s of quiet inside an utterance; the listener's cut at that pause ends
    the utterance, and a word begun meanwhile becomes an utterance of its own."""
    seven, king = synthesize_pcm("seven", pad_s=0.0), synthesize_pcm("king", pad_s=0.0)
    stream = in_noise(np.concatenate([seven, np.zeros(4800, dtype=np.int16), king]))
    king_said = (16000 + len(seven) + 4800 + len(king) // 3) // 480  # a third into "king"
    segmenter, found, restarted = Segmenter(), [], []
    for i, chunk in enumerate(chunk_array(stream, chunk_ms=30)):
        found += segmenter.push_events(chunk)
        if i == king_said:
            pauses = [e for e in found if e.kind == PAUSE]
            assert pauses and pauses[0].utterance == 1
            restarted = segmenter.cut(1)                   # the listener ends it now
            found += restarted
    assert [e.kind for e in restarted] == [START] and restarted[0].utterance == 2
    ends = [e for e in found if e.kind == END]
    assert len(ends) == 1 and ends[0].utterance == 2 and ends[0].settled
    assert len(ends[0].pcm) < len(king) + 16000             # "king" and its padding only
    assert segmenter.cut(1) == []                            # ended already: nothing to do
