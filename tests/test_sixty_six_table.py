"""Sixty-Six table mode: the program referees a real deck (talking-cards table --game
sixty-six), typed and spoken, checked through the events file; and the referee's own rules.

The whole matches are real ones: a virtual Sixty-Six match (``engine.sixty_six``, random
legal moves from a seed) is said card by card to the referee, which must accept every move
(a real game is never provably impossible) and score every hand and the match exactly as the
virtual game did.
"""
from __future__ import annotations

import json
import random

import pytest

from cli_runner import read_events, talking_cards
from engine import sixty_six as ss
from engine import sixty_six_table as table
from engine.api import IllegalAction
from speech_clips import espeak_available, wav_files

PLAYERS = "Ayşe,Bob"
COMPARED = ("deal", "play", "trick", "marriage", "exchange", "close", "claim", "play_on",
            "hand_end", "game_over")


def virtual_match(seed: int, options: ss.Options = ss.Options()):
    """A random but legal virtual match: (its actions with the trump card said at each deal,
    its events). A player claims as soon as they count 66 (or, rarely, too early)."""
    rng = random.Random(seed)
    state = ss.new_game(["Ayşe", "Bob"], options, seed=seed)
    moves = [table.TableTrump(state.trump_card)]
    events = list(ss.opening_events(state))
    while not ss.is_over(state):
        legal = ss.legal_actions(state)
        points = ss.card_points(state, state.turn)
        if points >= ss.WINNING_POINTS or rng.random() < 0.01:
            action = legal[-1]  # the claim
        else:
            action = rng.choice(legal[:-1])
        state, happened = ss.apply(state, action)
        moves.append(action)
        events += happened
        deal = next((e for e in happened if e.type == "deal"), None)
        if deal is not None:
            moves.append(table.TableTrump(deal.trump_card))
    return moves, [e.to_json() for e in events]


def typed(action) -> list:
    """What the table types for a move: "9h", "marriage in hearts" then "queen", ..."""
    card = getattr(action, "card", None)
    if action.type == "table_trump":
        return [f"trump {card.lower()}"]
    if action.type == "play":
        return [card.lower()]
    if action.type == "marriage":
        return [f"marriage in {dict(S='spades', H='hearts', D='diamonds', C='clubs')[card[-1]]}",
                "king" if card[0] == "K" else "queen"]
    return {"exchange": ["exchange"], "close": ["close"], "claim": ["sixty six"],
            "play_on": ["play on"]}[action.type]


def compared(log):
    return [e for e in log if e["type"] in COMPARED]


# --- whole matches through the real command line ---------------------------------------


@pytest.mark.parametrize("seed", [15, 42])  # marriages, an exchange, closes, claims right
def test_a_whole_match_typed_is_refereed_and_scored_as_the_virtual_game(tmp_path, seed):
    moves, expected = virtual_match(seed)
    events = tmp_path / "events.jsonl"
    lines = [line for move in moves for line in typed(move)]
    result = talking_cards("table", "--game", "sixty-six", "--players", PLAYERS, "--mute",
                           "--events", str(events), stdin="\n".join(lines) + "\n")
    assert result.returncode == 0, result.stderr
    log = read_events(events)
    assert [e for e in log if e["type"] == "rejected"] == []
    assert compared(log) == compared(expected)
    assert log[-1]["type"] == "game_over"
    hands = [e for e in log if e["type"] == "hand_start"]
    assert hands[0] == {"type": "hand_start", "hand": 1, "dealer": "Bob", "leader": "Ayşe"}
    assert [h["dealer"] for h in hands[1:3]] == ["Ayşe", "Bob"]  # the deal alternates
    out = result.stdout
    assert "Hand 1: Bob deals six cards each and turns up the trump card; Ayşe leads." in out
    assert "10 cards left in the stock." in out
    assert "Card points:" not in out  # secret without --assist
    assert f"{log[-1]['winner']} wins the match!" in out


def test_a_whole_match_with_the_house_rules(tmp_path):
    options = ss.Options(must_win_trick=True, no_last_trick_bonus_after_close=True)
    moves, expected = virtual_match(12, options)
    events = tmp_path / "events.jsonl"
    lines = [line for move in moves for line in typed(move)]
    result = talking_cards("table", "--game", "sixty-six", "--players", PLAYERS, "--mute",
                           "--house-rule", "must_win_trick", "--house-rule",
                           "no_last_trick_bonus_after_close", "--events", str(events),
                           stdin="\n".join(lines) + "\n")
    assert result.returncode == 0, result.stderr
    log = read_events(events)
    assert [e for e in log if e["type"] == "rejected"] == []
    assert compared(log) == compared(expected)


# --- one hand said by hand: refusals, marriage, claim, undo, assist --------------------

# Trump hearts (the nine turned up). Ayşe takes every trick, marries in diamonds and claims.
HAND = ["nine of hearts",
        "as", "9s",        # Ayşe 11
        "10s", "js",       # 23
        "ac", "9c",        # 34
        "marriage in diamonds", "queen", "9d",   # 20 credited, + 3: 57
        "10c", "jc",       # 69
        "sixty six"]


def test_a_hand_with_a_marriage_and_a_claim(tmp_path):
    events = tmp_path / "events.jsonl"
    result = talking_cards("table", "--game", "sixty-six", "--players", PLAYERS, "--mute",
                           "--events", str(events), stdin="\n".join(HAND + ["points"]) + "\n")
    assert result.returncode == 0, result.stderr
    log = read_events(events)
    assert {"type": "marriage", "player": "Ayşe", "suit": "D", "points": 20,
            "credited": True} in log
    assert [e for e in log if e["type"] in ("claim", "hand_end")] == [
        {"type": "claim", "player": "Ayşe", "points": 69, "success": True},
        {"type": "hand_end", "winner": "Ayşe", "game_points": 3,
         "score": {"Ayşe": 3, "Bob": 0}, "reason": "claim",
         "points": {"Ayşe": 69, "Bob": 0}, "last_trick_bonus": None}]
    assert log[-1] == {"type": "hand_start", "hand": 2, "dealer": "Ayşe", "leader": "Bob"}
    out = result.stdout
    assert "The marriage in diamonds: which card is led, the king or the queen?" in out
    assert "Ayşe claims sixty-six with 69 points: correct." in out
    assert "Card points are yours to count" in out  # "points" without --assist
    assert "Card points: Ayşe" not in out


def test_a_marriage_into_66_opens_the_claim_window(tmp_path):
    events = tmp_path / "events.jsonl"
    said = HAND[:7] + ["marriage in hearts", "king", "nine of diamonds", "play on", "9d"]
    result = talking_cards("table", "--game", "sixty-six", "--players", PLAYERS, "--mute",
                           "--events", str(events), stdin="\n".join(said) + "\n")
    assert result.returncode == 0, result.stderr
    log = [e for e in read_events(events) if e["type"] in ("marriage", "play", "play_on",
                                                            "rejected", "trick")][9:]
    assert log == [
        {"type": "marriage", "player": "Ayşe", "suit": "H", "points": 40, "credited": True},
        {"type": "play", "player": "Ayşe", "card": "KH"},
        {"type": "rejected", "player": "Ayşe", "input": "nine of diamonds",
         "reason": "claim_window"},
        {"type": "play_on", "player": "Ayşe"},
        {"type": "play", "player": "Bob", "card": "9D"},
        {"type": "trick", "winner": "Ayşe", "cards": ["KH", "9D"], "points": 4}]
    assert "Ayşe declared a marriage: say sixty six to claim now, or play on." in result.stdout


def test_assist_tells_the_points_after_each_trick_and_on_request(tmp_path):
    result = talking_cards("table", "--game", "sixty-six", "--players", PLAYERS, "--mute",
                           "--assist", stdin="\n".join(HAND[:5] + ["points", "tricks"]) + "\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Ayşe takes the trick, ace of spades and nine of spades: 11 points for Ayşe." in out
    assert "Card points: Ayşe 11 points and Bob 0 points." in out
    assert "Card points: Ayşe 23 points and Bob 0 points." in out
    assert "Tricks: Ayşe 2 tricks and Bob 0 tricks." in out


def test_refusals_change_nothing(tmp_path):
    plain, checked_save = tmp_path / "plain.json", tmp_path / "refused.json"
    events = tmp_path / "events.jsonl"
    wrong = {0: ["close"],                                # the dealer says the trump first
             1: ["9h", "seven of clubs", "nine"],     # face up; no sevens; which nine?
             4: ["as", "trump is the ace of clubs", "close"],  # played; trump said; following
             6: ["marriage in clubs"]}                # Bob follows: no marriage
    lines = []
    for i, line in enumerate(HAND[:7]):
        lines += wrong.get(i, []) + [line]
    first = talking_cards("table", "--game", "sixty-six", "--players", PLAYERS, "--mute",
                          "--save", str(plain), stdin="\n".join(HAND[:7]) + "\n")
    second = talking_cards("table", "--game", "sixty-six", "--players", PLAYERS, "--mute",
                           "--save", str(checked_save), "--events", str(events),
                           stdin="\n".join(lines) + "\n")
    assert first.returncode == 0 and second.returncode == 0, second.stderr
    assert json.loads(plain.read_text())["state"] == json.loads(checked_save.read_text())["state"]
    rejected = [(e["player"], e["reason"]) for e in read_events(events) if e["type"] == "rejected"]
    assert rejected == [("Bob", "trump_first"), ("Ayşe", "card_face_up"),
                        ("Ayşe", "not_a_move"), ("Bob", "card_played"), ("Bob", "trump_known"),
                        ("Bob", "close_not_leading"), ("Bob", "marriage_not_leading")]
    out = second.stdout
    assert "You cannot do that: the nine of hearts lies face up under the stock." in out
    assert "You cannot do that: the ace of spades has already been played." in out
    assert "Which nine:" in out


def test_undo_and_take_it_back_after_a_resume(tmp_path):
    save, events = tmp_path / "game.json", tmp_path / "events.jsonl"
    first = talking_cards("table", "--game", "sixty-six", "--players", PLAYERS, "--mute",
                          "--save", str(save), "--events", str(events),
                          stdin="\n".join(HAND[:3] + ["undo", "js", "table"]) + "\n")
    assert first.returncode == 0, first.stderr
    log = read_events(events)
    assert [(e["type"], e.get("card") or e.get("player")) for e in log
            if e["type"] in ("play", "undo")] == [("play", "AS"), ("play", "9S"),
                                                  ("undo", "Bob"), ("play", "JS")]
    again = talking_cards("table", "--resume", str(save), "--mute", "--events", str(events),
                          stdin="stock\ntake it back\nstock\n9s\nwhat is the score\n")
    assert again.returncode == 0, again.stderr
    out = again.stdout
    assert "Trump is hearts; the nine of hearts lies face up under the stock." in out
    assert "10 cards left in the stock, the face-up nine of hearts included." in out
    assert "Taken back. Bob, again." in out
    assert "12 cards left in the stock, the face-up nine of hearts included." in out
    tail = read_events(events)[len(log):]
    assert [e["type"] for e in tail][:2] == ["taken_back", "play"]


def test_sixty_six_is_a_table_choice_with_its_help():
    result = talking_cards("table", "--game", "sixty-six", "--players", "Ann,Bob,Cem", "--mute")
    assert result.returncode == 2 and "exactly two players" in result.stderr
    result = talking_cards("table", "--game", "sixty-six", "--players", PLAYERS, "--mute",
                           stdin="help\nrules\nmy cards\n")
    assert result.returncode == 0, result.stderr
    assert "The dealer says the trump card" in result.stdout
    assert "The cards are in your hands: I see only what is played and shown." in result.stdout


# --- by voice ----------------------------------------------------------------------------


@pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")
def test_a_spoken_hand(tmp_path):
    spoken = ["trump is the nine of hearts", "ace of spades", "nine of spades",
              "ten of spades", "jack of spades", "ace of clubs", "nine of clubs",
              "marriage in diamonds", "queen", "nine of diamonds", "ten of clubs",
              "jack of clubs", "sixty six"]
    files = wav_files(tmp_path, [p for phrase in spoken for p in (phrase, "yes")])
    events = tmp_path / "events.jsonl"
    result = talking_cards("table", "--game", "sixty-six", "--players", PLAYERS, "--mute",
                           "--backend", "sphinx", "--events", str(events), "--wav", *files,
                           timeout=300)
    assert result.returncode == 0, result.stderr
    log = read_events(events)
    assert [e["card"] for e in log if e["type"] == "play"] == [
        "AS", "9S", "10S", "JS", "AC", "9C", "QD", "9D", "10C", "JC"]
    assert [e for e in log if e["type"] == "hand_end"][0]["game_points"] == 3


# --- the referee's rules ---------------------------------------------------------------


def replay(moves, options=ss.Options()):
    state = table.new_game(["Ayşe", "Bob"], options)
    log = list(table.opening_events(state))
    for move in moves:
        state, events = table.apply(state, move)
        log += events
    return state, log


@pytest.mark.parametrize("seed", range(20))
def test_every_real_match_is_accepted_and_scored_alike(seed):
    options = ss.Options(must_win_trick=seed % 2 == 1)
    moves, expected = virtual_match(seed, options)
    state, log = replay(moves, options)
    assert compared([e.to_json() for e in log]) == compared(expected)
    assert table.is_over(state) and table.State.from_json(state.to_json()) == state


def test_what_legal_actions_leaves_out_is_refused_with_a_code():
    state, _ = replay([table.TableTrump("9H"), ss.Play("AS")])
    legal = table.legal_actions(state)
    assert ss.Play("AS") not in legal and ss.Play("9H") not in legal and ss.Play("KS") in legal
    assert legal[-1] == ss.Claim() and ss.Close() not in legal  # Bob follows: no close
    with pytest.raises(IllegalAction) as refusal:
        table.check(state, ss.Play("AS"))
    assert (refusal.value.code, refusal.value.fields) == ("card_played", {"card": "AS"})


def test_a_refused_move_leaves_the_state_as_it_was():
    state, _ = replay([table.TableTrump("9H"), ss.Play("AS")])
    before = state.to_json()
    for action in (ss.Play("AS"), ss.Play("9H"), ss.Exchange(), ss.Close(), ss.PlayOn()):
        with pytest.raises(IllegalAction):
            table.apply(state, action)
    assert state.to_json() == before


def test_following_suit_is_refused_only_when_the_cards_seen_prove_it():
    # Trump hearts. Ayşe marries in clubs (the king shown stays in her hand) and closes.
    state, _ = replay([table.TableTrump("9H"), ss.Play("AS"), ss.Play("10S"),  # Ayşe 21
                       ss.Marriage("QC"), ss.Play("9C"),                        # Ayşe 44
                       ss.Close(), ss.Play("9D"), ss.Play("AD"),                # Bob wins
                       ss.Play("JC")])                                          # Bob leads
    assert state.known[0] == ("KC",)
    with pytest.raises(IllegalAction) as refusal:
        table.check(state, ss.Play("KS"))    # Ayşe holds the king of clubs: seen
    assert (refusal.value.code, refusal.value.fields) == ("must_follow_suit", {"suit": "C"})
    state, _ = table.apply(state, ss.Play("KC"))
    state, _ = table.apply(state, ss.Play("10D"))
    state, _ = table.apply(state, ss.Play("JS"))  # nobody can prove Bob has a diamond
    assert {"KD", "QD", "JD", "AH", "10H"} <= set(state.barred[1])  # ... but now he has none
    state, _ = table.apply(state, ss.Play("QS"))
    with pytest.raises(IllegalAction) as refusal:
        table.check(state, ss.Play("KD"))
    assert refusal.value.code == "card_barred"


def test_the_exchange_and_the_last_draw_show_cards():
    state, log = replay([table.TableTrump("AH"), ss.Play("AS"), ss.Play("10S"),
                         ss.Exchange()])
    assert state.trump_card == "9H" and state.known[0] == ("AH",)
    assert log[-1].to_json() == {"type": "exchange", "player": "Ayşe", "card": "AH"}
    with pytest.raises(IllegalAction) as refusal:
        table.check(state, ss.Exchange())
    assert refusal.value.code == "exchange_no_nine"
    state, _ = table.apply(state, ss.Play("KS"))
    with pytest.raises(IllegalAction) as refusal:
        table.check(state, ss.Play("AH"))               # Bob cannot hold Ayşe's shown ace
    assert refusal.value.code == "card_held"
