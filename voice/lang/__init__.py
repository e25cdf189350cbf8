"""Languages are data: one folder per language under ``voice/lang/``, loaded once.

``Language.load(tag)`` normalizes the tag once (lower case, ``_`` -> ``-``: "en_US" and
"en-us" are the same), finds the language's folder by its code, its aliases or its base
("pt-br" -> "pt"), and loads everything the program needs in that language:

* ``grammar``: what players say (``grammar.json`` and ``grammar.<game>.json``);
* ``phrases``: what the game says (``phrases.json`` and ``phrases.<game>.json``), over the
  English sentences, so an unfinished catalog never fails mid-game; the language test lists
  every key a language still takes from English;
* from ``language.json``: the TTS voice, the games it covers, the PocketSphinx
  pronunciations when the embedded English acoustic model can hear it with the weights and
  thresholds of its verdict (``sphinx_verdict``, fitted per language by
  ``bench/recognition.py --lang L --calibrate``; a language without its own takes
  English's), and the letter folding the Vosk verdict uses to compare readings.

>>> en = Language.load("EN_us")
>>> en.code, en.tag, en.grammar.parse("ten minus").value
('en', 'en-us', -10)
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

from voice.lang.phrasebook import Phrasebook, overlay
from voice.understand.grammar import Grammar

LANG_DIR = Path(__file__).parent
FALLBACK = "en"


def normalize_tag(tag: str) -> str:
    """'EN_us ' -> 'en-us'."""
    return str(tag).strip().lower().replace("_", "-")


def available() -> Tuple[str, ...]:
    """The language codes that have a folder here."""
    return tuple(sorted(p.name for p in LANG_DIR.iterdir() if (p / "language.json").exists()))


def _read_json(path: Path) -> Dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_language_data(code: str, kind: str, parts: Optional[Sequence[str]] = None
                       ) -> Dict[str, Any]:
    """``<kind>.json`` of a language merged with its per-game parts ``<kind>.<part>.json``:
    every part, or only ``parts`` (a game's own words: compiling them all costs start-up)."""
    folder = LANG_DIR / code
    data: Dict[str, Any] = {}
    extra = sorted(folder.glob(f"{kind}.*.json")) if parts is None else [
        folder / f"{kind}.{part}.json" for part in parts]
    for path in sorted(folder.glob(f"{kind}.json")) + [p for p in extra if p.exists()]:
        for key, value in _read_json(path).items():
            if isinstance(value, dict) and isinstance(data.get(key), dict):
                data[key] = {**data[key], **value}
            else:
                data[key] = value
    return data


def fallback_sphinx_verdict() -> Dict[str, Any]:
    """The embedded recognizer's verdict data of the fallback language (English)."""
    return _read_json(LANG_DIR / FALLBACK / "language.json")["sphinx_verdict"]


def find_code(tag: str) -> str:
    """The folder of a language tag: itself, a language's alias, or its base; ValueError."""
    wanted = normalize_tag(tag)
    codes = available()
    if wanted in codes:
        return wanted
    for code in codes:
        if wanted in _read_json(LANG_DIR / code / "language.json").get("aliases", []):
            return code
    base = wanted.split("-")[0]
    if base in codes:
        return base
    raise ValueError(f"there is no language {tag!r}; choose one of {', '.join(codes)}")


@dataclass(frozen=True)
class Language:
    code: str                  # the folder: "en", "ko"
    tag: str                   # as asked, normalized: "en-gb" (chooses a model, a voice)
    name: str                  # in the language itself: "English", "한국어"
    grammar: Grammar
    phrases: Phrasebook
    games: Tuple[str, ...]     # the game ids this language has words and sentences for
    tts_voice: Optional[str]   # espeak-ng voice; None: the speech engine's default
    sphinx_pronunciations: Optional[Path]  # None: the embedded recognizer cannot hear it
    sound_fold: Mapping[str, str] = field(default_factory=dict)  # letters Vosk may confuse
    silent_letters: str = ""   # letters the Vosk comparison skips
    english_allowed: Tuple[str, ...] = ()  # phrase keys that may stay English, and why
    # spoken moves always read back (real speakers unmeasured), but for those the player's own
    # voice profile vouches for (``Hypothesis.vouched``)
    confirm_every_move: bool = False
    sphinx_verdict: Mapping[str, Any] = field(default_factory=fallback_sphinx_verdict)

    @classmethod
    def load(cls, tag: str = FALLBACK, parts: Optional[Sequence[str]] = None) -> "Language":
        """The language for a tag, with every game's words or only ``parts`` (a game's
        ``GameSpec.words``); ValueError (one sentence) when there is no such language."""
        code = find_code(tag)
        about = _read_json(LANG_DIR / code / "language.json")
        own = load_language_data(code, "phrases", parts)
        if code != FALLBACK:
            own = overlay(load_language_data(FALLBACK, "phrases", parts), own)
        tag = normalize_tag(tag)
        pronunciations = about.get("sphinx_pronunciations")
        return cls(
            code=code, tag=tag if tag.split("-")[0] == code else code,
            name=about["name"], grammar=Grammar(load_language_data(code, "grammar", parts)),
            phrases=Phrasebook(own, code, about.get("suffixes")), games=tuple(about["games"]),
            tts_voice=about.get("tts_voice"),
            sphinx_pronunciations=LANG_DIR / code / pronunciations if pronunciations else None,
            sound_fold=dict(about.get("sound_fold", {})),
            silent_letters=about.get("silent_letters", ""),
            english_allowed=tuple(about.get("english_allowed", {})),
            confirm_every_move=bool(about.get("confirm_every_move", False)),
            sphinx_verdict=about.get("sphinx_verdict") or fallback_sphinx_verdict(),
        )
