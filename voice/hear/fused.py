"""A recognizer that also knows the player's voice: the grammar decoder (PocketSphinx or
Vosk) and the voice profile's matcher hear each utterance, and the verdict comes from both.

- Both pick the same phrase and it is near the player's own takes: ACCEPT.
- They pick different phrases: CONFIRM the more likely one ("Seven? Say yes, or say it
  again"): the matcher's when it is sure (near its takes and clearly nearer than any other
  phrase), else the decoder's.
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
from typing import Callable, Dict, Mapping, Sequence

import numpy as np

from voice.hear.profile import VoiceProfile
from voice.hear.recognizer import ACCEPT, CONFIRM, REJECT, Hypothesis, Recognizer

# Distances are in units of the profile's own spread between takes of one phrase (see
# ``VoiceProfile.scale``).  Chosen on FSDD takes 3-9 (bench/enrollment.py --sweep); the
# figures in the README are takes 10-19.
AGREE_AT = 1.35       # agreement nearer than this is accepted
SURE_AT = 1.10        # the matcher alone is sure when its phrase is this near ...
SURE_MARGIN = 1.25    # ... and every other phrase is this many times farther


def judge(heard: Hypothesis, distance: Dict[str, float],
          same: Callable[[str, str], bool] = str.__eq__) -> Hypothesis:
    """The fused reading of one utterance: the decoder's ``heard`` and the matcher's
    ``distance`` for each phrase of the vocabulary that the profile knows; ``same(a, b)``:
    do two phrases mean the same ("play the seven", "seven")."""
    if not distance:
        return heard
    ranked = sorted(distance, key=distance.__getitem__)
    best = ranked[0]
    nearest = distance[best]
    runner_up = distance[ranked[1]] if len(ranked) > 1 else np.inf
    sure = nearest <= SURE_AT and runner_up >= SURE_MARGIN * nearest
    text = heard.text if heard.verdict != REJECT else ""
    if text in distance:
        if text == best:
            verdict = ACCEPT if nearest <= AGREE_AT else min_verdict(heard.verdict, CONFIRM)
            return replace(heard, verdict=verdict)
        chosen = best if sure else text
        return replace(heard, text=chosen, verdict=CONFIRM,
                       alternatives=_others(heard, chosen, text, best))
    if sure and not (text and same(text, best)):
        return replace(heard, text=best, verdict=CONFIRM,
                       alternatives=_others(heard, best, heard.text))
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
        pcm = np.frombuffer(bytes(self._pcm), dtype="<i2")
        self._pcm = bytearray()
        profile = self.profiles.get(self.whose_turn()) or self.profiles.get("")
        self.last_distances = profile.match(pcm, self._phrases) if profile and len(pcm) else {}
        return judge(heard, self.last_distances, self.same)
