"""A language's sentence catalog (voice/lang/<code>/phrases.json) and small formatting helpers."""
from __future__ import annotations

from typing import Any, Dict, Sequence

from engine.cards import rank_of, suit_of

from .understanding import load_language_data


class Phrasebook:
    def __init__(self, data: Dict[str, Any], lang: str = "en") -> None:
        self.data = data
        self.lang = lang

    @classmethod
    def load(cls, lang: str = "en") -> "Phrasebook":
        return cls(load_language_data(lang, "phrases"), lang)

    def say(self, key: str, **fields: Any) -> str:
        """The sentence at a dotted key like "events.play", filled in."""
        section, _, name = key.partition(".")
        return self.data[section][name].format(**fields)

    def has(self, key: str) -> bool:
        section, _, name = key.partition(".")
        return name in self.data.get(section, {})

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
        return f"{n} {unit[0] if n == 1 else unit[1]}"
