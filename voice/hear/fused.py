"""A recognizer that also knows the player's voice: the grammar decoder (PocketSphinx or
Vosk) and the voice profile's matcher hear each utterance, and the verdict comes from both.

- Both pick the same phrase (or the same card: "ten up" and "ten"), it is near the player's
  own takes, and no phrase the player enrolled that cannot be said now (a rank not in the
  hand) is about as near: ACCEPT, vouched for by the player's voice (``Hypothesis.vouched``:
  such a move is played without a read-back even in a language whose decoder alone always
  asks), even when the decoder rejected its reading if it is nearer still (``REJECTED_AT``).
  With such a phrase as near: CONFIRM ("three" said with a two in the hand, which both
  heard as "two", is read back instead of played).
- They pick different phrases the profile knows: CONFIRM the matcher's ("Seven? Say yes,
  or say it again"), the likelier (on FSDD the matcher alone was right on every rank).
- The decoder heard nothing usable, or a phrase the profile has no takes of, while the
  matcher is sure of a phrase: CONFIRM the matcher's phrase (a rank the decoder took for
  "quit" is read back instead of being lost).
- Otherwise the decoder's own verdict stands, and agreement far from the takes (a word that
  is not in the hand, forced onto the nearest one by both) is at most a CONFIRM.
Phrases the profile has no takes of are heard by the decoder alone, as without a profile.
Nothing here depends on the language: the player's takes are the player's own words.
The session and the listeners see an ordinary ``Recognizer``.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Dict, List, Mapping, Optional, Sequence

import numpy as np

from voice.hear.profile import VoiceProfile, phrase_key
from voice.hear.profile_match import features
from voice.hear.recognizer import ACCEPT, CONFIRM, REJECT, Hypothesis, Recognizer

# Distances are in units of the profile's own spread between takes of one phrase (see
# ``VoiceProfile.scale``).  Chosen on FSDD takes 3-9 (bench/enrollment.py --sweep); the
# figures in the README are takes 10-19.
# Takes 3-9: right moves 98.8%, read back 20.8%, no wrong move at once, none of the 210
# ranks not in the hand and "zero"/"one" played at once.  Every rank not in the hand had
# its own takes nearer than the hand's (the nearest outside at most 0.993 times the nearest
# inside), so OUT_MARGIN 1.04 leaves a margin; agreement is accepted from 1.16 to 1.25 alike
# (1.20 the middle; from 1.30 a "zero", which has no takes, was played); without the
# outside check AGREE_AT had to stay at 1.12 (25.0% read back, 1.0% of those words played).
AGREE_AT = 1.20       # agreement nearer than this is accepted ...
OUT_MARGIN = 1.04     # ... when every enrolled phrase that cannot be said now is this many
                      # times farther
SURE_AT = 1.10        # the matcher alone is sure when its phrase is this near ...
SURE_MARGIN = 1.10    # ... and every other phrase is this many times farther
# A reading the decoder rejected is accepted too when the matcher agrees, is this near, and
# the outside check passes.  Takes 3-9: 14 of the 35 read-backs left were such rejections of
# a rank in the hand, all at most 1.099 away; accepted alike from 1.10 up to AGREE_AT (13
# of them, one caught by the outside check: 20.8% -> 13.1% read back, none of the 210 words
# not in the hand played; the nearest rejected agreement on such a word, 1.054, was caught
# by the outside check).  A floor on the decoder's confidence as well (0.1-0.3, tried) only
# added read-backs (13.7-15.5%).  Off-topic talk, which the decoder's rejection kept out, is
# far from the takes: said by six espeak-ng voices with their own profiles, none of 240
# off-topic sentences came nearer than 1.47 (bench/enrollment.py), and none was played.
REJECTED_AT = 1.12


def judge(heard: Hypothesis, distance: Dict[str, float],
          same: Callable[[str, str], bool] = str.__eq__,
          outside: Callable[[], Mapping[str, float]] = dict) -> Hypothesis:
    """The fused reading of one utterance: the decoder's ``heard`` and the matcher's
    ``distance`` for each phrase of the vocabulary that the profile knows; ``same(a, b)``:
    do two phrases name the same thing ("play the seven" and "seven", "ten up" and "ten");
    ``outside()``: the distances of the profile's other phrases, those no phrase of the
    vocabulary means (asked for only when an acceptance depends on them)."""
    if not distance:
        return heard
    ranked = sorted(distance, key=distance.__getitem__)
    best = ranked[0]
    nearest = distance[best]
    runner_up = distance[ranked[1]] if len(ranked) > 1 else np.inf
    sure = nearest <= SURE_AT and runner_up >= SURE_MARGIN * nearest
    text = heard.text
    card = next((p for p in ranked if text and same(text, p)), None)   # the decoder's, known
    rejected = heard.verdict == REJECT
    if card == best:
        # near the player's own takes of the phrase: that phrase was said ("ten", when the
        # decoder made it "ten up"), unless a phrase of theirs that cannot be said now is
        # about as near (a card not in the hand, forced onto one that is by both): read
        # back then, as when the decoder itself rejected it and the takes are not very near
        # (off-topic talk the decoder rejects is far from them); far from their takes, a
        # word they never enrolled may have been forced onto it by both ("zero" as "two")
        if nearest <= AGREE_AT:
            if (rejected and nearest > REJECTED_AT) \
                    or min(outside().values(), default=np.inf) < OUT_MARGIN * nearest:
                return replace(heard, text=best, verdict=CONFIRM)
            return replace(heard, text=best, verdict=ACCEPT, vouched=True)
        return replace(heard, verdict=min_verdict(heard.verdict, CONFIRM))
    if card is not None and not rejected or sure:
        # two readings the profile knows, or the decoder heard nothing usable (or a phrase
        # without takes: a rank taken for "quit") while the matcher is sure: read back the
        # matcher's (on FSDD it was right in every such disagreement)
        return replace(heard, text=best, verdict=CONFIRM,
                       alternatives=_others(heard, best, text))
    return heard


def outside_phrases(profile: VoiceProfile, vocabulary: Sequence[str],
                    same: Callable[[str, str], bool] = str.__eq__) -> List[str]:
    """The profile's phrases that cannot be said now: none of ``vocabulary`` is one of them or
    means the same ("ten plus" enrolled, "play the ten plus" in the vocabulary)."""
    keys = {phrase_key(p) for p in vocabulary}
    return [p for p in profile.takes
            if p not in keys and not any(same(p, v) for v in vocabulary)]


def min_verdict(a: str, b: str) -> str:
    """The less trusting of two verdicts."""
    order = (REJECT, CONFIRM, ACCEPT)
    return order[min(order.index(a), order.index(b))]


def _others(heard: Hypothesis, chosen: str, *also: str) -> tuple:
    return tuple(dict.fromkeys(p for p in (*also, *heard.alternatives) if p and p != chosen))


class FusedRecognizer(Recognizer):
    """``grammar`` (any backend) with the matcher of the voice profile of whoever speaks.

    ``profiles`` maps a player's name to their profile ("" for whoever is playing);
    ``whose_turn()`` names the player the game is listening to (set by whoever runs the
    game: at a real table each turn is another person's voice).  ``same`` tells phrases of
    one meaning apart from others (the language's grammar)."""

    def __init__(self, grammar: Recognizer, profiles: Mapping[str, VoiceProfile],
                 same: Callable[[str, str], bool] = str.__eq__) -> None:
        self.grammar = grammar
        self.profiles = dict(profiles)
        self.same = same
        self.whose_turn: Callable[[], str] = lambda: ""
        self.name = f"{grammar.name}+profile"
        self.sample_rate = grammar.sample_rate
        self._phrases: Sequence[str] = ()
        self._outside_cache: Dict[int, List[str]] = {}
        self._pcm = bytearray()
        self.last_distances: Dict[str, float] = {}

    def set_vocabulary(self, phrases: Sequence[str]) -> None:
        self.grammar.set_vocabulary(phrases)
        self._phrases = list(phrases)
        self._outside_cache = {}      # each profile's outside phrases for this vocabulary

    def begin(self) -> None:
        self.grammar.begin()
        self._pcm = bytearray()

    def feed(self, pcm: bytes) -> None:
        self.grammar.feed(pcm)
        self._pcm.extend(pcm)

    def end(self) -> Hypothesis:
        heard = self.grammar.end()
        pcm, self._pcm = bytes(self._pcm), bytearray()
        return self._fused(heard, pcm)

    def peek(self, then: bytes = b"") -> Optional[Hypothesis]:
        """The fused reading so far (the listener asks at a pause), when the decoder has one."""
        heard = self.grammar.peek(then)
        return None if heard is None else self._fused(heard, bytes(self._pcm) + bytes(then))

    def cancel(self) -> None:
        self.grammar.cancel()
        self._pcm = bytearray()

    def _fused(self, heard: Hypothesis, pcm: bytes) -> Hypothesis:
        samples = np.frombuffer(pcm, dtype="<i2")
        profile = self.profiles.get(self.whose_turn()) or self.profiles.get("")
        if not profile or not len(samples):
            self.last_distances = {}
            return heard
        feats = features(samples)
        self.last_distances = profile.match_features(feats, self._phrases)
        return judge(heard, self.last_distances, self.same,
                     lambda: profile.match_features(feats, self._outside(profile)))

    def _outside(self, profile: VoiceProfile) -> List[str]:
        key = id(profile)
        if key not in self._outside_cache:
            self._outside_cache[key] = outside_phrases(profile, self._phrases, self.same)
        return self._outside_cache[key]
