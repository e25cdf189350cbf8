"""The session loop with a live keyboard: questions between bot moves, taking a move back."""
from __future__ import annotations

import io
import json

from engine import ninety_nine as nn
from engine.ninety_nine_bots import BOTS
from voice.lang import Language
from voice.hear.keyboard import KeyboardListener
from voice.games.ninety_nine import NinetyNineTalk
from voice.dialog.record import Recorder, Seat
from voice.dialog.session import Session
from voice.speak.speaker import Speaker


def live_session(typed: str, tmp_path):
    state = nn.new_game(["Ann", "Strong 2"], seed=3,
                        deck=["7S", "10H", "AD", "5C", "5D", "5H", "9S", "9H"])
    lines = []
    (tmp_path / "typed.txt").write_text(typed)
    listener = KeyboardListener(stream=open(tmp_path / "typed.txt"), out=io.StringIO())
    listener.live = True  # as at a terminal: the loop listens between bot moves
    events = open(tmp_path / "events.jsonl", "w")
    record = Recorder("doksan", [Seat("Ann"), Seat("Strong 2", "strong")], 0, events)
    session = Session(NinetyNineTalk(Language.load("en")), nn, state, {1: BOTS["strong"]},
                      listener, Speaker(muted=True, on_text=lines.append), record, pace=0.01)
    return session, lines


def test_a_player_takes_a_move_back_before_the_bot_answers(tmp_path):
    session, lines = live_session("seven\nundo\nace eleven\n", tmp_path)
    session.run(nn.opening_events(session.state))
    assert "Ann takes the move back." in lines
    log = [json.loads(x) for x in (tmp_path / "events.jsonl").read_text().splitlines()]
    kinds = [e["type"] for e in log]
    assert kinds.index("undo") > kinds.index("play")
    plays = [(e["player"], e["card"]) for e in log if e["type"] == "play"]
    assert plays[:2] == [("Ann", "7S"), ("Ann", "AD")]  # the seven was taken back
    assert session.state.hands[0].count("7S") == 1


def test_undo_is_refused_when_nothing_can_be_taken_back(tmp_path):
    session, lines = live_session("undo\n", tmp_path)
    session.run(nn.opening_events(session.state))
    assert lines[-1] == "There is no move of yours to take back."
    assert session.state.total == 0


def test_pause_holds_the_bots_until_the_player_speaks_again(tmp_path):
    session, lines = live_session("seven\npause\ngo on\n", tmp_path)
    session.run(nn.opening_events(session.state))
    paused_at = lines.index("Paused. Say anything to go on.")
    bot_moves = [i for i, line in enumerate(lines) if line.startswith("Strong 2: ")]
    assert bot_moves and bot_moves[0] > paused_at  # the bot moved only after "go on"
    assert not session.paused


def test_a_turns_vocabulary_asks_the_rules_once(tmp_path, monkeypatch):
    """The turn's menu is computed once from legal_actions (it was 340 calls per vocabulary)."""
    session, _ = live_session("", tmp_path)
    calls = []
    real = nn.legal_actions
    monkeypatch.setattr(nn, "legal_actions", lambda state: calls.append(1) or real(state))
    vocabulary = session.grammar.vocabulary(lambda intent: session.allowed(intent, 0))
    assert "seven" in vocabulary and "ten plus" in vocabulary and "total" in vocabulary
    assert "ten minus" not in vocabulary  # the total is 0
    assert "ten" in vocabulary and "jack" not in vocabulary
    session.menu(0).resolve(session.grammar.parse("ten"))
    assert len(calls) == 1


def test_repeat_replays_everything_since_my_move_and_what_happened_the_last_lines(tmp_path):
    """Asked while the bot is about to move: "repeat" gives what was said since Ann's move,
    "what happened" the last announcements from the opening on, "my lives" her own count."""
    session, lines = live_session("seven\nrepeat\nwhat happened\nmy lives\n", tmp_path)
    session.run(nn.opening_events(session.state))
    opening = lines[:3]
    moved = lines.index("You play seven of spades. Total 7.")
    assert lines[moved + 1] == "You play seven of spades. Total 7."          # repeat
    assert lines[moved + 2:moved + 6] == opening + ["You play seven of spades. Total 7."]
    assert lines[moved + 6] == "Ann, you have 10 lives."
    assert any(line.startswith("Strong 2: ") for line in lines[moved + 7:])


def test_shorter_and_more_detail_change_how_bots_are_announced(tmp_path):
    session, lines = live_session("more detail\nseven\n", tmp_path)
    session.run(nn.opening_events(session.state))
    assert "More detail from now on." in lines
    assert any(line.startswith("Strong 2 plays ") for line in lines)
    assert "Strong 2's turn." in lines


class Player:
    """A person at the keyboard: plays the first card the turn allows, and answers the
    question put to them once they are out."""

    typed_only, live = True, False

    def __init__(self, grammar, answer: str) -> None:
        self.grammar, self.answer, self.asked = grammar, answer, 0

    def listen(self, vocabulary, prompt, timeout=None):
        from voice.hear.keyboard import Heard
        if "finish" in vocabulary:
            self.asked += 1
            return Heard(self.answer)
        cards = [p for p in vocabulary if (i := self.grammar.parse(p)).kind == "play"
                 and (i.value is not None) == (i.rank in ("A", "10"))]
        return Heard(cards[0]) if cards and self.asked == 0 else None


def out_of_the_game(answer: str):
    language = Language.load("en")
    seats = [Seat("Ann"), Seat("Strong 2", "strong"), Seat("Strong 3", "strong"),
             Seat("Strong 4", "strong")]
    state = nn.new_game([s.name for s in seats], nn.Options(lives=2), seed=2)
    lines = []
    player = Player(language.grammar, answer)
    session = Session(NinetyNineTalk(language), nn, state, {i: BOTS["strong"] for i in (1, 2, 3)},
                      player, Speaker(muted=True, on_text=lines.append),
                      Recorder("doksan", seats, 4))
    session.run(nn.opening_events(state))
    return session, lines, player


def test_once_you_are_out_finish_plays_the_rest_unannounced_to_the_result():
    session, lines, player = out_of_the_game("finish")
    assert player.asked == 1
    said = lines.index("Finishing the game without announcements.")
    assert lines[said - 1].startswith("You are out of the game.")
    rest = lines[said + 1:]
    assert rest and rest[-1].startswith("Game over.") and len(rest) < 8
    assert nn.is_over(session.state)


def test_once_you_are_out_watch_follows_the_rest_and_new_game_deals_again():
    session, lines, _ = out_of_the_game("watch")
    watched = lines[lines.index("Watching the rest of the game."):]
    assert sum(line.startswith("Strong ") for line in watched) > 3 and nn.is_over(session.state)
    session, lines, _ = out_of_the_game("new game")
    assert "A new game." in lines and session.restart and not nn.is_over(session.state)
