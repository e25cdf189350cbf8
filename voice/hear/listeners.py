"""Where a player's spoken words come from: a microphone or WAV files (the keyboard and
``Heard`` are in ``keyboard.py``, which loads no audio library).
"""
from __future__ import annotations

import queue
import sys
import threading
import time
from typing import IO, Callable, List, Optional, Sequence

import numpy as np

from voice.hear.keyboard import Heard
from voice.hear.recognizer import ACCEPT, CONFIRM, REJECT, Hypothesis, Recognizer  # noqa: F401 (CONFIRM: the doctests)
from voice.hear.segmenter import AUDIO, DISCARD, END, PAUSE, START, SegmentEvent, Segmenter


_SPOKEN = object()  # push-to-talk: the key is down (not typed, not the end)


class VoiceListener:
    """Live speech: a thread reads the audio source and cuts utterances; each ``listen``
    decodes the next one with the vocabulary of the moment, while it is being spoken.

    The capture thread only cuts: it queues the segmenter's events (an utterance's START,
    its AUDIO, its END or DISCARD).  The thread that called ``listen`` does all the
    recognizer's work, so feeding happens only while a ``listen`` waits and can never race
    ``set_vocabulary``.  Events queued while nobody listened (speech between two turns) are
    decoded by the next ``listen`` with its vocabulary, as they were before streaming.

    Hands-free, the segmenter finds utterances by itself. With push-to-talk, Enter starts and
    Enter ends an utterance, and a typed line is taken as typed input, so the keyboard keeps
    working. Audio problems (a microphone unplugged mid-game) are raised from ``listen``.
    """

    typed_only = False

    def __init__(self, source, segmenter, recognizer: Recognizer, push_to_talk: bool = False,
                 keys: Optional[IO[str]] = None, on_listening=None, on_key_down=None,
                 on_speech_start=None,
                 prompts: Sequence[str] = ("(Enter to talk) ", "Listening... Enter when done. ")
                 ) -> None:
        """``prompts``: push-to-talk's two prompts in the player's language (press, release)."""
        self.source = source
        self.segmenter = segmenter
        self.recognizer = recognizer
        self.push_to_talk = push_to_talk
        self.keys = keys or sys.stdin
        self.on_listening = on_listening
        self.on_key_down = on_key_down    # push-to-talk: the player barges in
        self.on_speech_start = on_speech_start  # hands-free barge-in (headphones)
        self.prompts = tuple(prompts)
        self.live = True
        self._vocabulary: List[str] = []
        self._events: "queue.Queue" = queue.Queue()  # SegmentEvents, an error, None at the end
        self._lock = threading.Lock()     # the segmenter is used by the capture and key threads
        self._talking = False             # push-to-talk: the key is down
        self.ended_early = 0             # the utterance last ended at a pause
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._capture, name="microphone", daemon=True)
        self._thread.start()

    def _capture(self) -> None:
        try:
            for chunk in self.source.chunks():
                if self._stop.is_set():
                    return
                with self._lock:  # queued in order with the key thread's START and END
                    for event in self.segmenter.push_events(chunk):
                        if self._talking or not self.push_to_talk:
                            self._events.put(event)
        except Exception as exc:  # handed to the game loop, which speaks it and goes on typing
            self._events.put(exc)
        self._events.put(None)

    def listen(self, vocabulary: Sequence[str], prompt: str,
               timeout: Optional[float] = None) -> Optional[Heard]:
        """The next utterance (None at the end of the audio).  With ``timeout``, None if no
        utterance began in that time; one already begun is waited for to its end."""
        if self.push_to_talk and timeout is None:
            typed = self._push_to_talk(prompt)
            if typed is not _SPOKEN:
                return typed
        if list(vocabulary) != self._vocabulary:
            self.recognizer.set_vocabulary(vocabulary)
            self._vocabulary = list(vocabulary)
        if self.on_listening and timeout is None and not self.push_to_talk:
            self.on_listening()
        return self._decode_next(timeout)

    def _decode_next(self, timeout: Optional[float]) -> Optional[Heard]:
        """Feed the recognizer the next utterance as its events come; its Heard at the end.

        At each pause the recognizer reads what was said so far.  Hands-free, when that is a
        confident whole phrase that no other phrase continues, the utterance ends there
        instead of after the whole trailing silence; otherwise that reading is the answer
        if nothing more is said before the end (no second decoding after the speech)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        in_utterance, fed, failure = False, 0, None
        parts: List[np.ndarray] = []
        so_far: Optional[Hypothesis] = None   # the reading at the utterance's last pause
        while True:
            wait = None if in_utterance or deadline is None else max(0.0,
                                                                     deadline - time.monotonic())
            try:
                item = self._events.get(timeout=wait)
            except queue.Empty:
                return None
            if item is None or isinstance(item, Exception):
                if in_utterance and self.push_to_talk:
                    failure = item  # the key-up still comes: decode the words, report it next
                    continue
                if in_utterance:
                    self.recognizer.end()  # cut off by the failure: nothing to act on
                if item is None:
                    self._events.put(None)  # the end stays the end for later calls
                    return None
                raise item
            if item.utterance == self.ended_early:
                continue  # its trailing silence
            if item.kind == START:
                if self.on_speech_start:
                    self.on_speech_start()  # the player talks over the game: it stops
                self.recognizer.begin()
                in_utterance, fed, parts, so_far = True, self._feed(item.pcm), [item.pcm], None
            elif not in_utterance:
                continue
            elif item.kind in (AUDIO, PAUSE):
                fed += self._feed(item.pcm)
                parts.append(item.pcm)
                if item.kind == PAUSE:
                    heard = np.concatenate(parts)
                    rest = self.segmenter.rest_of_silence(heard)
                    so_far = self.recognizer.peek(rest.astype("<i2").tobytes())
                    # its last word must end in the first half of the pause or before
                    min_trailing_s = (len(rest) / self.segmenter.rate
                                      + self.segmenter.pause_s / 2)
                    if not self.push_to_talk and ends_here(so_far, self._vocabulary,
                                                           min_trailing_s):
                        return self._end_early(item.utterance, so_far, heard)
            else:  # END, or DISCARD: a click, a tap of the key
                if self.on_listening and self.push_to_talk:
                    self.on_listening()  # the key is up (as before streaming)
                if item.kind == END and item.settled and so_far is not None:
                    self.recognizer.cancel()  # nothing said since the pause: that reading
                    hypothesis = so_far
                else:
                    if item.kind == END:
                        self._feed(item.pcm[fed:])  # the last samples, not reported as AUDIO
                    hypothesis = self.recognizer.end()
                in_utterance = False
                if failure is not None:
                    self._events.put(failure)
                if item.kind == END:
                    return heard_from(hypothesis, self._second_opinion(item.pcm))
                if self.push_to_talk:  # the player meant to speak: "say that again"
                    return Heard("", REJECT, typed=False, confidence=0.0)

    def _end_early(self, utterance: int, hypothesis: Hypothesis, pcm: np.ndarray) -> Heard:
        """End ``utterance`` at its pause; its remaining events are dropped as they come."""
        self.ended_early = utterance
        self.recognizer.cancel()
        with self._lock:
            for event in self.segmenter.cut(utterance):  # speech resumed: a new utterance
                self._events.put(event)
        return heard_from(hypothesis, self._second_opinion(pcm))

    def _feed(self, pcm: np.ndarray) -> int:
        if len(pcm):
            self.recognizer.feed(pcm.astype("<i2").tobytes())
        return len(pcm)

    def _second_opinion(self, pcm: np.ndarray) -> Callable[[Sequence[str]], str]:
        return second_opinion(self.recognizer, pcm, self._vocabulary)

    def _push_to_talk(self, prompt: str):
        """Wait for Enter, then start an utterance that the next Enter ends (in a thread, so
        ``listen`` decodes meanwhile): _SPOKEN, a typed line's Heard, or None at the end."""
        sys.stdout.write(prompt + self.prompts[0])
        sys.stdout.flush()
        line = self.keys.readline()
        if not line:
            return None
        if line.strip():
            return Heard(line.strip())
        if self.on_key_down:
            self.on_key_down()  # cut what is being said: the player is talking now
        with self._lock:
            self._talking = True
            start = self.segmenter.key_down()
            self._events.put(SegmentEvent(START, start, utterance=self.segmenter.utterance))
        sys.stdout.write(self.prompts[1])
        sys.stdout.flush()
        threading.Thread(target=self._await_key_up, name="talk key", daemon=True).start()
        return _SPOKEN

    def _await_key_up(self) -> None:
        try:
            self.keys.readline()
        except (OSError, ValueError):  # the keyboard is gone: that ends the utterance too
            pass
        with self._lock:
            utterance = self.segmenter.key_up()
            self._talking = False
            number = self.segmenter.utterance
            if utterance is None:  # too short to be speech
                self._events.put(SegmentEvent(DISCARD, np.zeros(0, dtype=np.int16),
                                              utterance=number))
            else:
                self._events.put(SegmentEvent(END, utterance, self.segmenter.settled, number))

    def close(self) -> None:
        self._stop.set()
        self.source.close()
        self._events.put(None)  # a listen() still waiting returns: the input has ended


class WavFilesListener:
    """Each WAV file is one turn's speech: the same audio path as a microphone, from files."""

    live = False
    typed_only = False

    def __init__(self, paths: Sequence[str], segmenter_factory, recognizer: Recognizer) -> None:
        from voice.hear.audio import WavSource  # numpy-heavy audio code only when voice is used
        self._sources = [WavSource(p, rate=recognizer.sample_rate) for p in paths]
        self._segmenter_factory = segmenter_factory
        self.recognizer = recognizer
        self._vocabulary: List[str] = []

    def listen(self, vocabulary: Sequence[str], prompt: str) -> Optional[Heard]:
        if not self._sources:
            return None
        source = self._sources.pop(0)
        if list(vocabulary) != self._vocabulary:
            self.recognizer.set_vocabulary(vocabulary)
            self._vocabulary = list(vocabulary)
        utterances = list(self._segmenter_factory().segment(source.chunks()))
        if not utterances:
            return Heard("", REJECT, typed=False, confidence=0.0)
        pcm = np.concatenate(utterances)
        return heard_from(self.recognizer.recognize(pcm.astype("<i2").tobytes()),
                          second_opinion(self.recognizer, pcm, self._vocabulary))

    def close(self) -> None:
        pass


def ends_here(hypothesis: Optional[Hypothesis], vocabulary: Sequence[str],
              min_trailing_s: float) -> bool:
    """Whether an utterance may end with what was heard so far: a confident reading of a
    phrase that no other phrase of the vocabulary continues ("ten" may become "ten minus"),
    whose last word ends at least ``min_trailing_s`` before the audio decoded (a grammar can
    fill a pause with a word: "ace" heard as "ace high" while "eleven" is coming).

    >>> vocabulary = ["seven", "ace", "ace eleven", "ace high"]
    >>> ends_here(Hypothesis("seven", ACCEPT, trailing_s=0.2), vocabulary, 0.1)
    True
    >>> ends_here(Hypothesis("ace", ACCEPT, trailing_s=0.2), vocabulary, 0.1)
    False
    >>> ends_here(Hypothesis("seven", CONFIRM, trailing_s=0.2), vocabulary, 0.1)
    False
    >>> ends_here(Hypothesis("ace high", ACCEPT, trailing_s=0.0), vocabulary, 0.1)
    False
    """
    if (hypothesis is None or hypothesis.verdict != ACCEPT or not hypothesis.text
            or hypothesis.trailing_s is None or hypothesis.trailing_s < min_trailing_s):
        return False
    words = hypothesis.text.lower().split()
    return not any(len(other) > len(words) and other[:len(words)] == words
                   for other in (phrase.lower().split() for phrase in vocabulary))


def heard_from(hypothesis: Hypothesis, opinion=None) -> Heard:
    return Heard(hypothesis.text, hypothesis.verdict, typed=False,
                 confidence=hypothesis.confidence, second_opinion=opinion,
                 vouched=hypothesis.vouched)


def second_opinion(recognizer: Recognizer, pcm: np.ndarray,
                   vocabulary: Sequence[str]) -> Callable[[Sequence[str]], str]:
    """Decode the utterance again against ``phrases`` (the best reading, or "" when the
    recognizer rejects it all), then give the recognizer back the turn's vocabulary. Nothing
    is copied unless it is asked: most utterances never are."""
    kept = vocabulary  # the listener replaces its list on a change, never edits it

    def ask(phrases: Sequence[str]) -> str:
        try:
            recognizer.set_vocabulary(phrases)
            return recognizer.recognize(pcm.astype("<i2").tobytes()).text
        finally:
            recognizer.set_vocabulary(kept)
    return ask

def open_voice_input(make_recognizer: Callable[[], Recognizer], speaker,
                     push_to_talk: bool = False, trailing_silence_s: float = 0.5,
                     prompts: Sequence[str] = ("(Enter to talk) ", "Listening... Enter when done. "),
                     barge_in: bool = False) -> VoiceListener:
    """A listener on the default microphone; MicrophoneError (one sentence) if there is none.

    The microphone is opened first, so a recognizer is only loaded when there is one. It
    drops its input while the speaker talks, so the program never hears itself; the
    "listening" earcon tells the player when to speak.  ``barge_in`` (headphones: the
    microphone cannot hear the game) keeps it open while the game talks, and speech cuts it.
    """
    from voice.hear.microphone import MicrophoneSource
    source = MicrophoneSource(rate=Recognizer.sample_rate,
                              mute_while=None if barge_in else speaker)
    try:
        recognizer = make_recognizer()
    except Exception:
        source.close()
        raise
    segmenter = Segmenter(rate=recognizer.sample_rate, trailing_silence_s=trailing_silence_s,
                          hands_free=not push_to_talk)
    return VoiceListener(source, segmenter, recognizer, push_to_talk=push_to_talk,
                         on_listening=lambda: speaker.earcon("listening"),
                         on_key_down=speaker.barge_in, prompts=prompts,
                         on_speech_start=speaker.barge_in if barge_in else None)
