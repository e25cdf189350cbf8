"""Table mode: the program referees a real deck (talking-cards table), typed and spoken,
checked through the events file; and the rules module's own counts (stock, ranks, rounds)."""
from __future__ import annotations

import json

import pytest

from cli_runner import read_events, talking_cards
from engine import ninety_nine_table as table
from engine.ninety_nine import Options
from speech_clips import espeak_available, wav_files


def brief(log):
    """The events without the turns, as tuples: what happened at the table."""
    out = []
    for e in log:
        t = e["type"]
        if t == "play":
            out.append(("play", e["player"], e["card"], e["value"], e["total"]))
        elif t == "lives":
            out.append(("lives", e["player"], e["lives"], e["reason"]))
        elif t in ("eliminated", "skip", "undo"):
            out.append((t, e["player"]))
        elif t == "rejected":
            out.append(("rejected", e["player"], e["reason"]))
        elif t == "reverse":
            out.append(("reverse", e["direction"]))
        elif t == "undone":
            out.append(("undone", e["player"], e["total"]))
        elif t == "total_set":
            out.append(("total_set", e["total"]))
        elif t == "round_end":
            out.append(("round_end", e["winner"], e["loser"]))
        elif t == "round_start":
            out.append(("round_start", e["round"], e["dealer"], e["first"]))
        elif t == "game_over":
            out.append(("game_over", e["winner"]))
    return out


def test_a_whole_doksan_table_game_typed(tmp_path):
    events = tmp_path / "events.jsonl"
    typed = ["ten minus",            # Ann at 0: refused
             "ten",                  # only plus: 10
             "jack",                 # Bob 20, Cem skipped
             "four",                 # Ann 24, reversed
             "nine", "nine", "nine", "nine",  # Cem, Bob, Ann, Cem: every nine of one deck
             "nine",                 # Bob: a fifth nine refused
             "the total is 30",      # the table agrees on 30
             "three",                # Bob hits 33: Ann and Cem lose one
             "eight",                # Ann passes 33 and is out
             "take it back",         # ... it was announced wrongly
             "ten minus",            # Ann 23
             "no, it was an eight",  # it was an eight after all: out
             "king",                 # Cem 51
             "two"]                  # Bob doubles to 102: out, Cem wins
    result = talking_cards("table", "--game", "doksan", "--players", "Ann,Bob,Cem",
                           "--lives", "2", "--mute", "--events", str(events),
                           stdin="\n".join(typed) + "\n")
    assert result.returncode == 0, result.stderr
    assert brief(read_events(events)) == [
        ("round_start", 1, "Cem", "Ann"),
        ("rejected", "Ann", "below_zero"),
        ("play", "Ann", "10", 10, 10),
        ("play", "Bob", "J", 10, 20), ("skip", "Cem"),
        ("play", "Ann", "4", 4, 24), ("reverse", "counterclockwise"),
        ("play", "Cem", "9", 0, 24), ("play", "Bob", "9", 0, 24),
        ("play", "Ann", "9", 0, 24), ("play", "Cem", "9", 0, 24),
        ("rejected", "Bob", "rank_exhausted"),
        ("total_set", 30),
        ("play", "Bob", "3", 3, 33), ("lives", "Ann", 1, "hit_33"), ("lives", "Cem", 1, "hit_33"),
        ("play", "Ann", "8", 8, 41), ("lives", "Ann", 0, "exceed_33"), ("eliminated", "Ann"),
        ("undone", "Ann", 33),
        ("play", "Ann", "10", -10, 23),
        ("undone", "Ann", 33),
        ("play", "Ann", "8", 8, 41), ("lives", "Ann", 0, "exceed_33"), ("eliminated", "Ann"),
        ("play", "Cem", "K", 10, 51),
        ("play", "Bob", "2", "double", 102), ("lives", "Bob", 1, "exceed_66"),
        ("lives", "Bob", 0, "bust"), ("eliminated", "Bob"),
        ("round_end", None, "Bob"), ("game_over", "Cem"),
    ]
    out = result.stdout
    assert "Round 1: Cem deals three cards each; Ann starts." in out
    assert "Bob hits 33: everyone else loses a life." in out
    assert "The total is now 30." in out
    assert "Taken back: the total is 33 again. Ann, play again." in out
    assert "Game over. Cem wins the game!" in out
    assert "You play" not in out and "You lose" not in out  # everyone is named


def test_a_classic_table_a_fifth_king_refused_rounds_and_undo_by_anyone(tmp_path):
    events = tmp_path / "events.jsonl"
    typed = ["king", "king", "king", "king",  # every king of one deck: 99 each time
             "king",                  # a fifth: refused
             "ten minus",             # Ann: 89
             "undo",                  # said at the table while Bob is to move: Ann's is undone
             "five",                  # Ann busts: a chip, the round ends
             "lives",
             "ace", "eleven",         # round 2, Bob starts (Ann dealt): 11
             "what does a king do",
             "stock"]
    result = talking_cards("table", "--game", "classic", "--players", "Ann,Bob", "--mute",
                           "--events", str(events), stdin="\n".join(typed) + "\n")
    assert result.returncode == 0, result.stderr
    assert brief(read_events(events)) == [
        ("round_start", 1, "Bob", "Ann"),
        ("play", "Ann", "K", "set99", 99), ("play", "Bob", "K", "set99", 99),
        ("play", "Ann", "K", "set99", 99), ("play", "Bob", "K", "set99", 99),
        ("rejected", "Ann", "rank_exhausted"),
        ("play", "Ann", "10", -10, 89),
        ("undo", "Ann"),
        ("play", "Ann", "5", 5, 104), ("lives", "Ann", 4, "bust"),
        ("round_end", None, "Ann"), ("round_start", 2, "Ann", "Bob"),
        ("play", "Bob", "A", 11, 11),
    ]
    out = result.stdout
    assert "the king is used up: 4 have been played" in out
    assert "Round over: collect the cards and shuffle. Ann deals three each; Bob starts." in out
    assert "Ann 4 chips and Bob 5 chips." in out
    assert "45 cards left in the stock." in out  # 52 - 6 dealt - 1 drawn in round 2


def test_names_asked_one_by_one_when_not_given(tmp_path):
    events = tmp_path / "events.jsonl"
    result = talking_cards("table", "--mute", "--events", str(events),
                           stdin="Ayşe\n\nayşe\nBob\n\n\n\n\nseven\n")
    assert result.returncode == 0, result.stderr
    assert "At least 2 players, please" in result.stdout
    assert "Ayşe is already at the table" in result.stdout
    assert "Players: Ayşe and Bob." in result.stdout
    assert brief(read_events(events))[:2] == [("round_start", 1, "Bob", "Ayşe"),
                                              ("play", "Ayşe", "7", 7, 7)]


def test_a_table_game_saves_and_resumes_with_its_undo(tmp_path):
    save = tmp_path / "table.json"
    first = talking_cards("table", "--players", "Ann,Bob", "--mute", "--save", str(save),
                          stdin="seven\nking\n")
    assert first.returncode == 0, first.stderr
    again = talking_cards("table", "--resume", str(save), "--mute",
                          stdin="total\ntake it back\ntotal\n")
    assert again.returncode == 0, again.stderr
    assert "The total is 17." in again.stdout and "The total is 7." in again.stdout


def test_play_keeps_its_games():
    for table_mode in ("doksan-table", "sixty-six-table"):  # table modes are ``table --game``
        result = talking_cards("play", "--game", table_mode, "--mute")
        assert result.returncode == 2 and "invalid choice" in result.stderr


# --- the rules module's counts ---------------------------------------------------------


def test_the_stock_is_counted_and_the_reshuffle_said_when_it_runs_out():
    state = table.new_game(["Ann", "Bob"], Options(lives=99))
    assert state.cards_left == 52 - 6
    seen = []
    for _ in range(46):
        state, events = table.apply(*_harmless(state))
        seen += [e.to_json() for e in events if e.type in ("stock_low", "reshuffle")]
    assert seen[:3] == [{"type": "stock_low", "cards": 3}, {"type": "stock_low", "cards": 2},
                        {"type": "stock_low", "cards": 1}]
    assert {"type": "stock_low", "cards": 0} in seen
    assert state.cards_left == 0
    state, events = table.apply(*_harmless(state))
    assert [e.to_json() for e in events if e.type == "reshuffle"] == [
        {"type": "reshuffle", "cards": 52 - 6}]
    assert state.cards_left == 52 - 6 - 1
    assert sum(state.played) == 1  # the top card stays; the rest is in the new stock


def _harmless(state):
    """The first rank not used up, played at 10 (set first): no penalty, no round end."""
    state = table.apply(state, table.TableSetTotal(10))[0]
    return state, table.legal_actions(state)[0]


def test_rounds_rotate_the_dealer_and_the_first_player():
    state = table.new_game(["Ann", "Bob", "Cem"], Options(lives=9))
    state = table.apply(state, table.TableSetTotal(95))[0]
    state, events = table.apply(state, table.TablePlay("5"))  # Ann busts
    starts = [e.to_json() for e in events if e.type == "round_start"]
    assert starts == [{"type": "round_start", "round": 2, "dealer": "Ann", "first": "Bob"}]
    assert (state.total, state.direction, state.cards_left) == (0, 1, 52 - 9)
    data = state.to_json()
    assert table.State.from_json(data) == state and data["previous"]["total"] == 100 - 5


# --- by voice --------------------------------------------------------------------------


@pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")
def test_a_table_game_by_voice(tmp_path):
    spoken = ["seven", "yes", "king", "yes", "ten minus", "yes", "the total is forty five",
              "yes", "queen", "yes"]
    files = wav_files(tmp_path, spoken)
    events = tmp_path / "events.jsonl"
    result = talking_cards("table", "--players", "Ann,Bob,Cem", "--mute", "--backend",
                           "sphinx", "--events", str(events), "--wav", *files, timeout=300)
    assert result.returncode == 0, result.stderr
    happened = [e for e in brief(read_events(events)) if e[0] != "rejected"]
    assert happened == [("round_start", 1, "Cem", "Ann"), ("play", "Ann", "7", 7, 7),
                        ("play", "Bob", "K", 10, 17), ("play", "Cem", "10", -10, 7),
                        ("total_set", 45), ("play", "Ann", "Q", 10, 55)]


def test_the_rules_can_be_asked_at_a_table():
    result = talking_cards("table", "--game", "doksan", "--players", "Ann,Bob", "--mute",
                           stdin="how does 33 work\nrules\n")
    assert result.returncode == 0, result.stderr
    assert "Hit 33 exactly and everyone else loses a life." in result.stdout


def test_the_table_set_up_typed_names_lives_dealer_and_house_rules(tmp_path):
    """Without --players the set-up asks, in order: the names, the lives, who deals first
    and the house rules; the answers are the game's, as if given on the command line."""
    events, save = tmp_path / "events.jsonl", tmp_path / "table.json"
    typed = ["Ayşe", "ayse",            # the same name again (accents aside): refused
             "Bob", "Cem", "",          # the names, then an empty line
             "lots",                    # lives: not one of the choices, asked again
             "3",
             "bob",                     # the first dealer, by name (any case)
             "2",                       # house rule 2: total may go negative
             "no more",                 # the words of the default, typed
             "ten minus"]               # Cem starts after Bob: 0 - 10 is allowed now
    result = talking_cards("table", "--mute", "--events", str(events), "--save", str(save),
                           stdin="\n".join(typed) + "\n")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:12] == [
        "Who is playing? Type each name in seating order, clockwise, then an empty line.",
        "Ayşe is already at the table: another name, please.",
        "Players: Ayşe, Bob and Cem.",
        "How many lives? Enter for 10.",
        "Sorry, that is not one of the choices.",
        "How many lives? Enter for 10.",
        "Who deals first? Type a name or a seat number, or Enter for Cem.",
        "Any house rules: 1: charge passing 33 on the way to 66 or 2: total may go "
        "negative? Enter for none.",
        "House rule on: total may go negative.",
        "Another house rule: 1: charge passing 33 on the way to 66? Enter for no more.",
        "Doksan Dokuz. Everyone starts with 3 lives. Say help at any time.",
        "Round 1: Bob deals three cards each; Cem starts.",
    ]
    assert brief(read_events(events))[:2] == [("round_start", 1, "Bob", "Cem"),
                                              ("play", "Cem", "10", -10, -10)]
    saved = json.loads(save.read_text())["state"]
    assert saved["options"]["total_may_go_negative"] and saved["lives"] == [3, 3, 3]


def test_options_given_are_not_asked_and_dealer_names_a_seat(tmp_path):
    events = tmp_path / "events.jsonl"
    result = talking_cards("table", "--game", "classic", "--lives", "2", "--dealer", "ann",
                           "--house-rule", "total_may_go_negative", "--mute",
                           "--events", str(events), stdin="Ann\nBob\n\nseven\n")
    assert result.returncode == 0, result.stderr
    assert "How many" not in result.stdout and "Who deals" not in result.stdout
    assert "house rules" not in result.stdout
    assert brief(read_events(events))[:2] == [("round_start", 1, "Ann", "Bob"),
                                              ("play", "Bob", "7", 7, 7)]
    given = talking_cards("table", "--players", "Ann,Bob", "--dealer", "Ann", "--mute",
                          "--events", str(events), stdin="seven\n")
    assert given.returncode == 0, given.stderr
    assert "Round 1: Ann deals three cards each; Bob starts." in given.stdout
    stranger = talking_cards("table", "--players", "Ann,Bob", "--dealer", "Zoe", "--mute")
    assert stranger.returncode != 0 and "--dealer names Zoe" in stranger.stderr




@pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")
def test_the_table_set_up_by_voice(tmp_path):
    """By voice through the real recognizer: a name from the list said and confirmed, one
    spelled with the spelling alphabet, the end of the list, the lives and the dealer by
    name; the speech ends at the house rules, so they keep their default (none)."""
    spoken = ["Oliver", "yes",                       # seat 1: from the list, read back
              "let me spell it", "bravo", "oscar", "that's all", "yes",   # seat 2: "Bo"
              "that's everyone",
              "three",                               # lives
              "oliver"]                              # Oliver deals, so Bo starts
    files = wav_files(tmp_path, spoken)
    events = tmp_path / "events.jsonl"
    result = talking_cards("table", "--mute", "--backend", "sphinx", "--events", str(events),
                           "--wav", *files, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        "Who is playing? Say each name in seating order, clockwise, and that's everyone at "
        "the end.",
        "Player 1: say the name, or let me spell it, or okay for Player 1.",
        "Oliver? Say yes or no."]
    assert "B, O: Bo? Say yes or no." in lines
    assert "Players: Oliver and Bo." in lines
    assert "Doksan Dokuz. Everyone starts with 3 lives. Say help at any time." in lines
    assert brief(read_events(events)) == [("round_start", 1, "Oliver", "Bo")]


def spoken_set_up(tmp_path, code, spoken, *options):
    """The table set-up by voice in ``code``: each phrase an espeak-ng WAV of that language,
    through the real recognizer; the printed lines and the events."""
    files = wav_files(tmp_path, spoken, lang=code)
    events = tmp_path / "events.jsonl"
    result = talking_cards("table", "--mute", "--lang", code, "--backend", "sphinx",
                           "--events", str(events), *options, "--wav", *files, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines(), brief(read_events(events))


@pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")
def test_the_table_set_up_by_voice_in_spanish_spells_by_the_telephone_alphabet(tmp_path):
    """A name from the list, one spelled by Spain's telephone alphabet ("Barcelona, Oviedo"),
    the end of the list, the lives and the dealer by name."""
    lines, events = spoken_set_up(tmp_path, "es", [
        "María", "sí",
        "letra por letra", "Barcelona", "Oviedo", "listo", "sí",      # seat 2: "Bo"
        "listo", "cinco", "sí", "María"])   # a doubted "cinco" is read back
    assert lines[1] == ("Jugador 1: di el nombre, o letra por letra para deletrearlo, "
                        "o siguiente para Jugador 1.")
    assert "B, O: ¿Bo? Di sí o no." in lines
    assert "Jugadores: María y Bo." in lines
    assert "¿5? Di sí o no." in lines     # Spanish reads a doubted answer back
    assert events == [("round_start", 1, "María", "Bo")]


@pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")
def test_the_table_set_up_by_voice_in_arabic_writes_a_spelled_name_in_arabic(tmp_path):
    """A name spelled by the Arabic letters' names (jim, mim, ya, lam) is read back and
    written as one Arabic word: in the read-back, the players, the events and the save file,
    from which a typed game resumes."""
    save = tmp_path / "table.json"
    lines, events = spoken_set_up(tmp_path, "ar", [
        "نور", "نعم",
        "حرفًا حرفًا", "ج", "م", "ي", "ل", "خلاص", "نعم",            # seat 2: "جميل"
        "هذا كل شيء", "ثلاثة", "نعم", "نور", "نعم"],   # doubted answers are read back
        "--save", str(save))
    assert "ج، م، ي، ل: جميل؟ قل نعم أو لا." in lines
    assert "اللاعبون: Nour وجميل." in lines
    assert "جميل، دورك." in lines
    assert events == [("round_start", 1, "Nour", "جميل")]
    again = talking_cards("table", "--resume", str(save), "--mute", "--lang", "ar",
                          stdin="المجموع\n")
    assert again.returncode == 0, again.stderr
    assert "جميل" in again.stdout


def test_every_name_and_set_up_word_can_be_heard_by_the_embedded_recognizer():
    """The names of names.json, the letters and the set-up's words of each language the
    embedded recognizer hears are all in its dictionary (cmudict or the language's own)."""
    import os
    import pocketsphinx
    from voice.cli.table_setup import letters_of, names_of, setup_words
    from voice.lang import Language
    cmudict = os.path.join(pocketsphinx.get_model_path(), "en-us", "cmudict-en-us.dict")
    known = {line.split(None, 1)[0].split("(")[0] for line in open(cmudict, encoding="utf-8")}
    for code in ("en", "tr", "es", "ar"):
        language = Language.load(code, parts=("table",))
        own = {line.split(None, 1)[0].split("(")[0]
               for line in language.sphinx_pronunciations.read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.startswith(";")}
        phrases = [s for name in names_of(language) for s in name.spoken]
        phrases += [w for words in setup_words(language).values() for w in words]
        phrases += [w for _, spoken in letters_of(language) for w in spoken]
        assert len(names_of(language)) >= 150, code
        words = {w for phrase in phrases for w in phrase.split()}
        assert sorted(words - known - own) == [], code
