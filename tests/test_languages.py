"""Languages are data: every language has every sentence English has for the games it
offers, tags are normalized once, and a non-English game says no English word."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine import ninety_nine as nn
from engine.ninety_nine_bots import make_bot
from voice.games import GAMES
from voice.lang import LANG_DIR, Language, available, load_language_data

PLURAL_FORMS = {"zero", "one", "two", "few", "many", "other"}  # a unit by CLDR category: one entry


def keys(data, prefix=""):
    """Dotted keys of a phrase catalog, notes (``_about``) left out."""
    out = set()
    for key, value in data.items():
        if key.startswith("_"):
            continue
        if isinstance(value, dict) and not set(value) <= PLURAL_FORMS:
            out |= keys(value, f"{prefix}{key}.")
        else:
            out.add(prefix + key)
    return out


def own_phrases(code: str, games) -> set:
    """The keys a language's own files hold (no English underneath)."""
    folder = LANG_DIR / code
    found = set()
    parts = {part for g in games for part in GAMES[g].words}  # a game's files of its own
    for path in [folder / "phrases.json"] + [folder / f"phrases.{part}.json" for part in parts]:
        if path.exists():
            found |= keys(json.loads(path.read_text(encoding="utf-8")))
    return found


@pytest.mark.parametrize("code", [c for c in available() if c != "en"])
def test_every_language_has_every_english_sentence_of_its_games(code):
    language = Language.load(code)
    english = own_phrases("en", language.games)
    missing = sorted(english - own_phrases(code, language.games) - set(language.english_allowed))
    assert missing == [], f"{code} lacks {missing}"


# the grammar sections whose entries are named: a language has every name English has
NAMED_SECTIONS = ("commands", "moves", "suited_moves", "number_moves", "ranked_moves",
                  "carded_moves")


def named_phrases(code: str, parts) -> dict:
    """(section, name) -> that entry's phrases, spoken and typed, in a game's grammar files."""
    data = load_language_data(code, "grammar", parts)
    return {(section, name): entry.get("spoken", []) + entry.get("typed", [])
            for section in NAMED_SECTIONS for name, entry in data.get(section, {}).items()}


@pytest.mark.parametrize("code", [c for c in available() if c != "en"])
def test_every_language_has_every_english_phrase_kind_of_its_games(code):
    """Each game a language offers has its own files where English has them (phrases and
    grammar: Sixty-Six's table mode, grammar.sixty_six_table.json with the trump card said at
    the deal), and words for every move, question and correction English has (a language may
    leave some typed only: every spoken word costs accuracy)."""
    language = Language.load(code)
    for game in language.games:
        parts = GAMES[game].words
        for kind in ("phrases", "grammar"):
            files = [f"{kind}.{part}.json" for part in parts
                     if (LANG_DIR / "en" / f"{kind}.{part}.json").exists()]
            assert [f for f in files if not (LANG_DIR / code / f).exists()] == [], game
        english, own = named_phrases("en", parts), named_phrases(code, parts)
        assert sorted(set(english) - set(own)) == [], game
        assert [key for key, words in own.items() if key in english and not words] == [], game


def test_a_table_mode_without_words_is_refused_in_one_sentence():
    """Korean has no Sixty-Six: its table mode is refused before anything is said."""
    from cli_runner import talking_cards
    assert "sixty-six-table" not in Language.load("ko").games
    assert all("sixty-six-table" in Language.load(c).games for c in ("en", "tr", "es", "ar"))
    result = talking_cards("table", "--game", "sixty-six", "--lang", "ko", "--players",
                           "Ann,Bob", "--mute", stdin="")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip() == ("There are no 한국어 words for Sixty-Six (Altmışaltı), "
                                      "table mode yet; play it with --lang en.")


@pytest.mark.parametrize("code", available())
def test_every_language_names_only_registered_games(code):
    assert set(Language.load(code).games) <= set(GAMES)


def test_language_tags_are_normalized_once():
    assert Language.load("en-us").code == Language.load("EN_US").code == "en"
    assert Language.load("en_GB").tag == "en-gb"
    assert Language.load("ko-KR").code == "ko"
    with pytest.raises(ValueError, match="there is no language 'xx'"):
        Language.load("xx")


def test_refusals_are_phrased_from_codes_in_each_language():
    en, ko = Language.load("en").phrases, Language.load("ko").phrases
    assert en.refusal("below_zero", total=5) == \
        "the total is 5: minus ten would take it below zero"
    assert en.refusal("must_trump", led_suit="D", trump_suit="H") == \
        "you have no diamonds, so you must play a trump: you have a heart"
    assert "5" in ko.refusal("below_zero", total=5) and "total" not in ko.refusal(
        "below_zero", total=5)


ENGLISH_WORDS = re.compile(r"\b(the|you|your|turn|plays|total|lives?|cards?|of|and|is|"
                           r"round|deals|wins?|loses?|game|say|minus|plus)\b", re.I)


OWN_WORDS = {"es": {"total"}}   # English spellings that are the language's own words too
FIRST_PLAYER = {"ko": "민수", "tr": "Ayşe", "es": "Lucía", "ar": "ليلى"}


@pytest.mark.parametrize("code", sorted(FIRST_PLAYER))
def test_a_game_says_no_english_word(code):
    """A whole bot game of Doksan Dokuz announced in the language, every sentence checked."""
    language = Language.load(code)
    talk = GAMES["doksan"].talk(language)
    state = nn.new_game([FIRST_PLAYER[code], "Strong 2", "Strong 3"], seed=11)
    bots = {i: make_bot("strong", i) for i in range(3)}
    said = talk.announce(nn.opening_events(state), state, [0])
    while not nn.is_over(state):
        seat = nn.current_player(state)
        state, events = nn.apply(state, bots[seat].choose(nn.view(state, seat)))
        said += talk.announce(events, state, [0])
    said += [talk.answer(c, state, 0) for c in talk.commands] + [talk.rules("A", state)]
    english = [line for line in said
               if {w.lower() for w in ENGLISH_WORDS.findall(line.replace("Strong", ""))}
               - OWN_WORDS.get(code, set())]
    assert english == []


def test_language_data_files_are_valid_json_with_notes():
    for path in Path(LANG_DIR).glob("*/*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(data, dict), path
    assert load_language_data("en", "grammar")["commands"]["total"]["spoken"]
