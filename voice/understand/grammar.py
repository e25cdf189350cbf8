"""Understanding: phrase templates (language data) compiled into a table phrase -> intent.

The same compiled table serves both ways in: typed text is normalized and looked up in it,
and the recognizer's vocabulary is the subset of its spoken phrases that make sense now
(the cards in hand, their legal values, the commands). Nothing here knows the rules; the
game's dialog decides whether an intent is legal.

>>> from voice.lang import Language
>>> g = Language.load("en").grammar
>>> g.parse("Play the ten, minus!")
Intent(kind='play', rank='10', value=-10, suit=None, name=None)
>>> g.parse("ace 11")
Intent(kind='play', rank='A', value=11, suit=None, name=None)
>>> g.parse("whose turn")
Intent(kind='command', rank=None, value=None, suit=None, name='turn')
>>> g.parse("what is the weather") is None
True
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

@dataclass(frozen=True)
class Intent:
    """What a phrase means, before the rules are consulted.

    kind: "play" (rank, optional value and suit), "value" (an answer to "plus or minus?"),
    "command" (name: total, turn, hand, quit, yes, no, ...), "rules" (rank: what does it do),
    "move" (a move that is not a card: name, optional suit, e.g. "marry hearts"),
    "suit" (an answer to "which one: hearts or spades?"). A move may carry a number in
    ``value`` ("number_moves": "the total is {number}", from the language's "numbers") or a
    rank and value ("ranked_moves": "no it was a {rank}"), or a card ("carded_moves": "trump
    is the {rank} of {suit}").
    """

    kind: str
    rank: Optional[str] = None
    value: Optional[int] = None
    suit: Optional[str] = None
    name: Optional[str] = None


_PUNCTUATION = re.compile(r"[^\w+\-' ]+")
_INNER_HYPHEN = re.compile(r"(?<=\w)-(?=\w)")  # "ace-high" -> "ace high", keep "10-"


def normalize(text: str) -> str:
    """Lower case, punctuation to spaces (keeping + and - of values), single spaces."""
    text = _PUNCTUATION.sub(" ", text.lower().replace("’", "'"))
    return " ".join(_INNER_HYPHEN.sub(" ", text).split())


def _words(entry: Dict[str, List[str]], spoken_only: bool) -> List[str]:
    return list(entry.get("spoken", [])) + ([] if spoken_only else list(entry.get("typed", [])))


class Grammar:
    """The compiled phrase table of one language."""

    def __init__(self, data: Dict) -> None:
        self.data = data
        # "typed_fold" (data): letters folded before typed text is looked up, both in the
        # table and in what is typed: "dört" and "dort", "ثَلاثَة" and "ثلاثه" are one phrase.
        self.fold = str.maketrans(data.get("typed_fold", {}))
        self.spoken: Dict[str, Intent] = {}
        self.typed: Dict[str, Intent] = {}
        for spoken_only, table in ((True, self.spoken), (False, self.typed)):
            for phrase, intent in self._expand(spoken_only):
                table.setdefault(self.key(phrase), intent)
        for phrase, intent in self.spoken.items():
            self.typed.setdefault(phrase, intent)

    # --- compiling ------------------------------------------------------------------

    def _expand(self, spoken_only: bool) -> Iterable[Tuple[str, Intent]]:
        d = self.data
        templates = lambda key: _words(d.get(key, {}), spoken_only)  # noqa: E731
        for name, entry in d["commands"].items():
            for phrase in _words(entry, spoken_only):
                yield phrase, Intent("command", name=name)
        for name, entry in d.get("moves", {}).items():  # moves that are not a card
            for phrase in _words(entry, spoken_only):
                yield phrase, Intent("move", name=name)
        for name, entry in d.get("number_moves", {}).items():  # "the total is {number}"
            for t in _words(entry, spoken_only):
                for number, number_entry in d.get("numbers", {}).items():
                    for nword in _words(number_entry, spoken_only):
                        yield t.format(number=nword), Intent("move", name=name,
                                                             value=int(number))
        for suit, suit_entry in d.get("suits", {}).items():
            for sword in _words(suit_entry, spoken_only):
                for name, entry in d.get("suited_moves", {}).items():
                    for t in _words(entry, spoken_only):
                        yield t.format(suit=sword), Intent("move", name=name, suit=suit)
                for t in templates("suit_answer_templates"):
                    yield t.format(suit=sword), Intent("suit", suit=suit)
        for rank, entry in d["ranks"].items():
            rank_words = _words(entry, spoken_only)
            for word in rank_words:
                for t in templates("rank_question_templates"):
                    yield t.format(rank=word), Intent("rules", rank=rank)
                cards = [t.format(rank=word) for t in templates("play_templates")]
                for card in cards:
                    yield card, Intent("play", rank=rank)
                for value, value_entry in d["values"].get(rank, {}).items():
                    for vword in _words(value_entry, spoken_only):
                        for t in templates("answer_templates"):
                            yield t.format(value=vword), Intent("value", rank=rank,
                                                                value=int(value))
                        for t in templates("value_templates"):
                            for card in (cards if "{card}" in t else [word]):
                                yield (t.format(card=card, rank=word, value=vword),
                                       Intent("play", rank=rank, value=int(value)))
                for name, entry in d.get("ranked_moves", {}).items():  # "no it was a {rank}"
                    for t in _words(entry, spoken_only):
                        yield t.format(rank=word), Intent("move", name=name, rank=rank)
                        for value, value_entry in d["values"].get(rank, {}).items():
                            for vword in _words(value_entry, spoken_only):
                                yield (t.format(rank=f"{word} {vword}"),
                                       Intent("move", name=name, rank=rank, value=int(value)))
                for suit, suit_entry in d.get("suits", {}).items():
                    for sword in _words(suit_entry, spoken_only):
                        for t in templates("suited_templates"):
                            yield (t.format(rank=word, suit=sword),
                                   Intent("play", rank=rank, suit=suit))
                        for name, entry in d.get("carded_moves", {}).items():  # "trump is
                            for t in _words(entry, spoken_only):           # the nine of hearts"
                                yield (t.format(rank=word, suit=sword),
                                       Intent("move", name=name, rank=rank, suit=suit))

    # --- using ----------------------------------------------------------------------

    def parse(self, text: str) -> Optional[Intent]:
        """The intent of typed or recognized text, or None if it is not a phrase we know."""
        return self.typed.get(self.key(text))

    def key(self, text: str) -> str:
        """The table key of a phrase: folded (the language's ``typed_fold``), normalized."""
        return normalize(text.translate(self.fold))

    def vocabulary(self, allowed) -> List[str]:
        """The spoken phrases whose intent passes ``allowed(intent)``: the recognizer's words."""
        return sorted(p for p, intent in self.spoken.items() if allowed(intent))

    def command_words(self, name: str) -> Sequence[str]:
        return self.data["commands"][name]["spoken"]
