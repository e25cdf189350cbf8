"""How a real Ninety-Nine table is refereed by voice: ``NinetyNineTalk``'s words, no hands.

Every person at the table is named (nobody is "you"); the player whose turn it is says the
card they put down ("seven", "ten minus", "ace eleven", "king"): any rank not used up is
allowed, and a refusal is only what the rules forbid (a fifth king with one deck, ten minus
below zero). Corrections are moves: "take it back", "no, it was an eight", "the total is 45".
The session's "undo", said by anyone at the table right after a play, takes it back too.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from engine import ninety_nine_table as table
from engine.ninety_nine import value_choices
from voice.games.ninety_nine import NinetyNineTalk
from voice.games.spec import EXPLAINED, Outcome, TurnMenu, checked
from voice.understand.grammar import Intent

COMMANDS = ("total", "turn", "direction", "lives", "my_lives", "stock", "help") + tuple(EXPLAINED)
MOVES = ("take_back", "correct", "set_total")
OWN_EVENTS = ("round_start", "reshuffle", "stock_low", "undone", "total_set")


class NinetyNineTableTalk(NinetyNineTalk):
    commands = COMMANDS

    def speaks(self, intent: Intent) -> bool:
        return super().speaks(intent) or (intent.kind == "move" and intent.name in MOVES)

    # --- what can be said now -------------------------------------------------------

    def turn(self, state: table.State, seat: int, pending: Optional[Intent]) -> TurnMenu:
        legal = table.legal_actions(state) if state.turn == seat else []
        values = {}
        for action in legal:
            values.setdefault(action.rank, []).append(action.value)
        can_take_back = state.previous is not None

        def allowed(intent: Intent) -> bool:
            if intent.kind == "value" and pending is not None and pending.kind == "move":
                return pending.rank == intent.rank  # "no, it was a ten": plus or minus?
            if intent.kind == "move":
                if intent.name == "set_total":
                    return intent.value is not None and intent.value <= 98
                return intent.name in ("take_back", "correct") and can_take_back
            return self.card_allowed(intent, values, pending)

        return TurnMenu(allowed, lambda intent: self._resolve_table(intent, state, pending,
                                                                     legal))

    def _resolve_table(self, intent: Intent, state: table.State, pending: Optional[Intent],
                       legal: Sequence[table.TablePlay]) -> Outcome:
        p = self.p
        if intent.kind == "value":
            if pending is None or pending.rank != intent.rank:
                return Outcome(refusal=p.text("dialog.sorry"), reason="unexpected_value")
            intent = Intent(pending.kind, rank=intent.rank, value=intent.value,
                            name=pending.name)
        if intent.kind == "move" and intent.name == "take_back":
            return checked(table, self.language, state, table.TableUndo(), [])
        if intent.kind == "move" and intent.name == "set_total":
            return checked(table, self.language, state, table.TableSetTotal(intent.value), [])
        if intent.kind == "move" and intent.name == "correct":
            if state.previous is None:
                return checked(table, self.language, state, table.TableUndo(), [])
            return self._card(intent, state.previous, table.legal_actions(state.previous),
                              table.TableCorrect, state)
        if intent.kind != "play" or intent.suit is not None:  # another game's move
            return Outcome(refusal=p.text("dialog.sorry"), reason="not_understood")
        return self._card(intent, state, legal, table.TablePlay, state)

    def _card(self, intent: Intent, position: table.State, legal, make, state) -> Outcome:
        """A rank said, with or without a value: ask the value if two are legal in
        ``position``, name it if only one is; then the rules decide."""
        choices = value_choices(intent.rank)
        if not choices and intent.value is not None:
            return Outcome(refusal=self.p.text("dialog.no_value", rank=self.p.rank(intent.rank)),
                           reason="no_value")
        value, notes, question = self.settle_value(
            intent, [a.value for a in legal if a.rank == intent.rank])
        if question is not None:
            return question
        action = make(intent.rank, value)
        outcome = checked(table, self.language, state, action,
                          legal if make is table.TablePlay else [])
        outcome.notes[:0] = notes
        return outcome

    def phrase(self, intent: Intent) -> str:
        """Read back for a confirmation: "Set the total to 45?", "No, it was eight?"."""
        if intent.kind == "move" and intent.name == "set_total":
            return self.p.text("table.confirm_total", total=intent.value)
        if intent.kind == "move" and intent.name == "correct":
            return self.p.text("table.confirm_correct",
                               card=super().phrase(Intent("play", rank=intent.rank,
                                                          value=intent.value)).lower())
        if intent.kind == "move" and intent.name == "take_back":
            return self.p.text("table.confirm_take_back")
        return super().phrase(intent)

    # --- events to sentences ----------------------------------------------------------

    def announce(self, events: Sequence, state: table.State, humans: Sequence[int]) -> List[str]:
        """Everyone is named; the rest of the words are Ninety-Nine's own."""
        everyone = list(range(len(state.players)))
        out: List[str] = []
        run: List = []
        for e in events:
            if e.type in OWN_EVENTS:
                out += super().announce(run, state, everyone)
                run = []
                out += self._own(e, state, events)
            else:
                run.append(e)
        return out + super().announce(run, state, everyone)

    def _own(self, e, state: table.State, events: Sequence) -> List[str]:
        p = self.p
        if e.type == "round_start":
            key = "table.round_start" if e.round == 1 else "table.round_over"
            return [p.text(key, round=e.round, dealer=e.dealer, first=e.first)]
        if e.type == "reshuffle":
            player = next((x.player for x in events if x.type == "play"), "")
            return [p.text("table.reshuffle", cards=e.cards, player=player)]
        if e.type == "stock_low":
            if e.cards == 0:
                return [p.text("table.stock_low_none")]
            if e.cards == 1:
                return [p.text("table.stock_low_one")]
            return [p.text("table.stock_low", cards=e.cards)]
        if e.type == "undone":  # followed by the right card ("no, it was an eight") or not
            key = "table.corrected" if any(x.type == "play" for x in events) else "table.undone"
            return [p.text(key, player=e.player, total=e.total)]
        if e.type == "total_set":
            return [p.text("table.total_set", total=e.total)]
        return []

    def _play_line(self, e, you: Optional[str]) -> str:
        """"Ann: seven. Total 7." / "Ann: ten, minus 10. Total 23." (the card is a rank)."""
        with_value = e.card in ("A", "10") or e.value in ("double", "halve", "set99")
        style = "long" if self.verbose else "short"
        key = f"events.play_{style}" + ("" if with_value else "_plain")
        return self.p.text(key, player=e.player, card=self.p.rank(e.card), total=e.total,
                           value=self.value_words(e.value) if with_value else "")

    def secret(self, events: Sequence, state, humans: Sequence[int]) -> List[str]:
        return []  # the cards are in the players' hands: the referee knows no secret

    def deal_notice(self, state, humans: Sequence[int]) -> List[str]:
        return []

    # --- questions ------------------------------------------------------------------

    def answer(self, command: str, state: table.State, seat: int) -> str:
        if command == "stock":
            if state.cards_left <= 1:
                return self.p.text("table.stock_low_one" if state.cards_left else
                                   "table.stock_low_none")
            return self.p.text("table.answer_stock", cards=state.cards_left)
        if command == "help":
            return self.p.text("table.help")
        return super().answer(command, state, seat)

    def where_we_are(self, state: table.State, seat: int) -> List[str]:
        return [self.answer("total", state, seat), self.answer("lives", state, seat)]
