"""A language's sentence catalog (voice/lang/<code>/phrases*.json) and small formatting helpers.

Sentences are found by dotted keys ("events.play"); the rules' refusals by their stable
code ("refusals.below_zero"), filled in with the refusal's fields turned into words.
"""
from __future__ import annotations

import re
from typing import Any, Dict, Mapping, Optional, Sequence, Union

from engine.cards import rank_of, suit_of

_SUFFIXED = re.compile(r"\{(\w+)\|(\w+)\}")   # "{player|gen}": a field with a case suffix


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
    def __init__(self, data: Dict[str, Any], code: str = "en",
                 suffixes: Optional[Mapping[str, Any]] = None) -> None:
        self.data = data
        self.code = code          # the CLDR locale of plural forms and number words
        self.suffixes = suffixes  # the language's case suffixes ("{player|gen}"), or None

    def text(self, key: str, **fields: Any) -> str:
        """The sentence at a dotted key like "events.play", filled in; a field written
        ``{player|dat}`` takes the language's suffix of that case (see ``suffixed``)."""
        section, _, name = key.partition(".")
        return self.fill(self.data[section][name], **fields)

    def fill(self, template: str, **fields: Any) -> str:
        def suffix(match: "re.Match[str]") -> str:
            return self.suffixed(fields[match.group(1)], match.group(2)).replace(
                "{", "{{").replace("}", "}}")
        return _SUFFIXED.sub(suffix, template).format(**fields)

    def suffixed(self, word: Any, case: str) -> str:
        """``word`` with the case suffix ``case`` in vowel harmony: Turkish "Ayşe" + gen ->
        "Ayşe'nin", "Mehmet" + dat -> "Mehmet'e", 99 + dat -> "99'a" (a number sounds as
        its words: "doksan dokuz").  All of it is the language's data ("suffixes" in its
        language.json): the suffix of each case, written with archiphonemes (capitals that
        take their letter from the word's last vowel or last sound, a letter in parentheses
        kept only after a vowel), and the tables that resolve them.

        >>> from voice.lang import Language
        >>> Language.load("tr").phrases.suffixed("Oya", "gen")
        "Oya'nın"
        """
        s = self.suffixes
        word = str(word)
        if not s or case not in s["cases"]:
            return word
        sound = word
        digits = re.search(r"\d+$", word)
        if digits:
            from num2words import num2words
            sound = num2words(int(digits.group()), lang=self.code)
        sound = sound.translate(str.maketrans(s.get("lower", {}))).lower()
        letters = [c for c in sound if c.isalpha()] or [s["default_vowel"]]
        last = letters[-1]
        vowel = next((c for c in reversed(letters) if c in s["vowels"]), s["default_vowel"])
        after_vowel = last in s["vowels"]
        out = []
        for part in re.findall(r"\((\w+)\)|(\w)", s["cases"][case]):
            kept, letter = part
            if kept:
                if after_vowel:
                    out.append(kept)
            elif letter in s["by_vowel"]:
                out.append(s["by_vowel"][letter][vowel])
            elif letter in s["by_sound"]:
                table = s["by_sound"][letter]
                out.append(table.get(last, table["otherwise"]))
            else:
                out.append(letter)
        return word + s.get("joiner", "") + "".join(out)

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

    def join(self, items: Sequence[str], key: str = "list_and") -> str:
        """'a', 'a and b', 'a, b and c' (``key``: the joining sentence, e.g. "menu.list_or"
        for 'a, b or c')."""
        items = list(items)
        if len(items) <= 1:
            return "".join(items)
        comma = self.data.get("list_comma", ", ")   # Arabic "، "
        section, _, name = key.rpartition(".")
        template = (self.data[section] if section else self.data)[name]
        return template.format(items=comma.join(items[:-1]), last=items[-1])

    def count(self, n: int, unit: Union[Sequence[str], Mapping[str, str]]) -> str:
        """'1 life', '2 lives'; a unit with {n} places the number itself ('목숨 {n}개').

        ``unit`` is [one, other], or a mapping keyed by CLDR plural category ("zero", "one",
        "two", "few", "many", "other"), chosen by Babel's plural rules for the language:
        Arabic 1 "روح واحدة", 2 "روحان", 3 "3 أرواح", 11 "11 روحًا", 100 "100 روح".
        A category the mapping lacks takes "other"; a mapping's words are used as written
        ({n} where the number goes, none where the words say it: "روح واحدة")."""
        if isinstance(unit, Mapping):
            from babel import Locale
            category = Locale.parse(self.code).plural_form(abs(n))
            return unit.get(category, unit["other"]).format(n=n)
        else:
            word = unit[0] if n == 1 else unit[1]
        return word.format(n=n) if "{n}" in word else f"{n} {word}"
