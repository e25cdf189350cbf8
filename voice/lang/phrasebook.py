"""A language's sentence catalog (voice/lang/<code>/phrases*.json) and small formatting helpers.

Sentences are found by dotted keys ("events.play"); the rules' refusals by their stable
code ("refusals.below_zero"), filled in with the refusal's fields turned into words.
"""
from __future__ import annotations

from typing import Any, Dict, Sequence

from engine.cards import rank_of, suit_of


def overlay(base: Dict[str, Any], own: Dict[str, Any]) -> Dict[str, Any]:
    """``base`` with ``own``'s entries put over it, section by section at any depth."""
    merged = dict(base)
    for key, value in own.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = overlay(merged[key], value)
        else:
            merged[key] = value
    return merged


class Phrasebook:
    def __init__(self, data: Dict[str, Any]) -> None:
        self.data = data

    def text(self, key: str, **fields: Any) -> str:
        """The sentence at a dotted key like "events.play", filled in."""
        section, _, name = key.partition(".")
        return self.data[section][name].format(**fields)

    def refusal(self, code: str, **fields: Any) -> str:
        """Why the rules refuse, from the refusal's code and fields (codes, never words):
        ``card`` is named, a ``...suit`` field gives ``{...suit}`` (plural, "hearts") and
        ``{...suit_one}`` ("a heart"), ``rank`` a rank's name.

        >>> from voice.lang import Language
        >>> Language.load("en").phrases.refusal("must_follow_suit", suit="H")
        'you must follow suit: you have a heart'
        """
        words: Dict[str, Any] = {}
        for key, value in fields.items():
            if key == "card":
                words[key] = self.card(value)
            elif key.endswith("suit"):
                words[key] = self.data["suit"][value]
                words[key + "_one"] = self.data["suit_one"][value]
            elif key == "rank":
                words[key] = self.rank(value)
            else:
                words[key] = value
        return self.data["refusals"][code].format(**words)

    def rank(self, rank: str, plural: bool = False) -> str:
        return self.data["rank_plural" if plural else "rank"][rank]

    def card(self, card: str) -> str:
        return self.data["card"].format(rank=self.rank(rank_of(card)),
                                        suit=self.data["suit"][suit_of(card)])

    def join(self, items: Sequence[str]) -> str:
        """'a', 'a and b', 'a, b and c'."""
        items = list(items)
        if len(items) <= 1:
            return "".join(items)
        return self.data["list_and"].format(items=", ".join(items[:-1]), last=items[-1])

    def count(self, n: int, unit: Sequence[str]) -> str:
        """'1 life', '2 lives'; a unit with {n} places the number itself ('목숨 {n}개')."""
        word = unit[0] if n == 1 else unit[1]
        return word.format(n=n) if "{n}" in word else f"{n} {word}"
