"""A recognizer that also knows the player's voice: the grammar decoder (PocketSphinx or
Vosk) and the voice profile's matcher hear each utterance, and the verdict comes from both.

- Both pick the same phrase (or the same card: "ten up" and "ten") and it is near the
  player's own takes: ACCEPT.
- They pick different phrases the profile knows: CONFIRM the matcher's ("Seven? Say yes,
  or say it again"), the likelier (on FSDD the matcher alone was right on every rank).
- The decoder heard nothing usable, or a phrase the profile has no takes of, while the
  matcher is sure of a phrase: CONFIRM the matcher's phrase (a rank the decoder took for
  "quit" is read back instead of being lost).
- Otherwise the decoder's own verdict stands, and agreement far from the takes (a word that
  is not in the hand, forced onto the nearest one by both) is at most a CONFIRM.
Phrases the profile has no takes of are heard by the decoder alone, as without a profile.
The session and the listeners see an ordinary ``Recognizer``.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Dict, Mapping, Optional, Sequence

import numpy as np

from voice.hear.profile import VoiceProfile
from voice.hear.recognizer import ACCEPT, CONFIRM, REJECT, Hypothesis, Recognizer

# Distances are in units of the profile's own spread between takes of one phrase (see
# ``VoiceProfile.scale``).  Chosen on FSDD takes 3-9 (bench/enrollment.py --sweep); the
# figures in the README are takes 10-19.
# Takes 3-9: right moves 98.8%, read back 25.0%, no wrong move at once, 1.0% of the ranks
# not in the hand and of "zero"/"one" played at once (4.3% without a profile); agreement
# accepted from 1.10 asked 27.4%, from 1.14 21.4% but played 2.9% of those words.
AGREE_AT = 1.12       # agreement nearer than this is accepted
SURE_AT = 1.10        # the matcher alone is sure when its phrase is this near ...
SURE_MARGIN = 1.10    # ... and every other phrase is this many times farther


def judge(heard: Hypothesis, distance: Dict[str, float],
          same: Callable[[str, str], bool] = str.__eq__) -> Hypothesis:
    """The fused reading of one utterance: the decoder's ``heard`` and the matcher's
    ``distance`` for each phrase of the vocabulary that the profile knows; ``same(a, b)``:
    do two phrases name the same thing ("play the seven" and "seven", "ten up" and "ten")."""
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
        # decoder made it "ten up"; read back when the decoder itself rejected it); far from
        # them, a word not in the hand may have been forced onto it by both ("zero" heard
        # as "the two")
        if nearest <= AGREE_AT:
            return replace(heard, text=best, verdict=CONFIRM if rejected else ACCEPT)
        return replace(heard, verdict=min_verdict(heard.verdict, CONFIRM))
    if card is not None and not rejected or sure:
        # two readings the profile knows, or the decoder heard nothing usable (or a phrase
        # without takes: a rank taken for "quit") while the matcher is sure: read back the
        # matcher's (on FSDD it was right in every such disagreement)
        return replace(heard, text=best, verdict=CONFIRM,
                       alternatives=_others(heard, best, text))
    return heard


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
        self._pcm = bytearray()
        self.last_distances: Dict[str, float] = {}

    def set_vocabulary(self, phrases: Sequence[str]) -> None:
        self.grammar.set_vocabulary(phrases)
        self._phrases = list(phrases)

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
        self.last_distances = profile.match(samples, self._phrases) \
            if profile and len(samples) else {}
        return judge(heard, self.last_distances, self.same)
