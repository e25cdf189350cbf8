"""A language's sentence catalog (voice/lang/<code>/phrases.json) and small formatting helpers.

Every language starts from the English sentences and overlays its own, so a translation that
is not finished yet says the missing sentences in English instead of failing mid-game.
"""
from __future__ import annotations

from typing import Any, Dict, Sequence

from engine.cards import rank_of, suit_of

from .understanding import LANG_DIR, load_language_data


FALLBACK = "en"


def _overlay(base: Dict[str, Any], own: Dict[str, Any]) -> Dict[str, Any]:
    """``base`` with ``own``'s entries put over it, section by section at any depth."""
    merged = dict(base)
    for key, value in own.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _overlay(merged[key], value)
        else:
            merged[key] = value
    return merged


class Phrasebook:
    def __init__(self, data: Dict[str, Any], lang: str = "en") -> None:
        self.data = data
        self.lang = lang

    @classmethod
    def load(cls, lang: str = "en") -> "Phrasebook":
        try:
            own = load_language_data(lang, "phrases")
        except ValueError:
            if not (LANG_DIR / lang).is_dir():
                raise  # not a language at all
            own = {}  # a language with words but no sentences yet
        if lang == FALLBACK:
            return cls(own, lang)
        return cls(_overlay(load_language_data(FALLBACK, "phrases"), own), lang)

    def say(self, key: str, **fields: Any) -> str:
        """The sentence at a dotted key like "events.play", filled in."""
        section, _, name = key.partition(".")
        return self.data[section][name].format(**fields)

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
