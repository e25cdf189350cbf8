"""How a real Sixty-Six table is refereed by voice: ``SixtySixTalk``'s words, no hands.

Both players are named (nobody is "you"). The dealer says the card turned up for trump
("nine of hearts", "trump is the nine of hearts"); then the player whose turn it is says the
card they put down ("queen of hearts"; "the ace" when only one ace can still be played, else
"which ace?"). "Marriage in hearts" asks which card is led, the king or the queen. Exchange,
close, "sixty six" or "stop", "play on" are Sixty-Six's own words. "Take it back" (also after
a resume) and the session's "undo" right after a move take the last move back.

Card points are the players' to count: they are told at the end of each hand, and, with
``--assist`` (the talk's ``strict_memory`` off), on request and after every trick.
"""
from __future__ import annotations

from dataclasses import replace
from typing import List, Optional, Sequence

from engine import sixty_six as ss
from engine import sixty_six_table as table
from engine.cards import rank_of, suit_of
from voice.games.sixty_six import SixtySixTalk
from voice.games.spec import EXPLAINED, Outcome, TurnMenu, checked, unique
from voice.understand.grammar import Intent

COMMANDS = ("hand", "trump", "table", "points", "tricks", "stock", "score", "last_trick",
            "turn", "help") + tuple(EXPLAINED)
MOVES = {"exchange": ss.Exchange(), "close": ss.Close(), "claim": ss.Claim(),
         "play_on": ss.PlayOn(), "take_back": table.TableUndo()}
OWN_EVENTS = ("hand_start", "deal", "trick", "stock_left", "taken_back")


class SixtySixTableTalk(SixtySixTalk):
    commands = COMMANDS

    @property
    def assist(self) -> bool:
        """Points told on request and after each trick (``--assist``)."""
        return not self.strict_memory

    def t(self, key: str, **fields) -> str:
        return self.p.text("sixty_six_table." + key, **fields)

    def speaks(self, intent: Intent) -> bool:
        return super().speaks(intent) or (intent.kind == "move" and intent.name in MOVES)

    # --- what can be said now -------------------------------------------------------

    def turn(self, state: table.State, seat: int, pending: Optional[Intent]) -> TurnMenu:
        legal = table.legal_actions(state) if state.turn == seat else []
        kinds = {a.type for a in legal}
        marriages = [a.card for a in legal if a.type == "marriage"]

        def suits_for(intent: Intent) -> List[str]:
            """The suits that would complete an ambiguous card or marriage."""
            if intent.kind == "move":
                return unique(suit_of(c) for c in marriages)
            kind = "table_trump" if state.dealing else "play"
            return unique(suit_of(a.card) for a in legal
                          if a.type == kind and rank_of(a.card) == intent.rank)

        def marriage_card(intent: Intent) -> bool:
            """"Queen" or "queen of hearts" after "marriage in hearts"."""
            return (pending is not None and pending.name == "marriage" and pending.suit
                    is not None and intent.rank in ("K", "Q")
                    and intent.suit in (None, pending.suit))

        def allowed(intent: Intent) -> bool:
            if intent.kind == "command":
                return intent.name in self.commands
            if intent.kind == "rules":
                return intent.rank in ss.RANKS
            if intent.kind == "play":
                if intent.value is not None or intent.rank not in ss.RANKS:
                    return False
                return marriage_card(intent) or intent.suit is not None or bool(
                    suits_for(intent))
            if intent.kind == "suit":
                return pending is not None and intent.suit in suits_for(pending)
            if intent.kind == "move":
                if intent.name == "trump_card":
                    return state.dealing and intent.rank in ss.RANKS
                if intent.name == "marriage":
                    return bool(marriages) and (intent.suit is None
                                                or intent.suit in suits_for(intent))
                if intent.name == "take_back":
                    return state.previous is not None
                return intent.name in kinds
            return False

        def resolve(intent: Intent) -> Outcome:
            if intent.kind == "suit":
                if pending is None:
                    return Outcome(refusal=self.s("unexpected_suit"), reason="unexpected_answer")
                intent = replace(pending, suit=intent.suit)
            if intent.kind == "play" and marriage_card(intent):
                return checked(table, self.language, state,
                               ss.Marriage(intent.rank + pending.suit), legal)
            if intent.kind == "move" and intent.name == "trump_card":
                if not state.dealing:  # "trump is ..." is never a play: refused, said why
                    return checked(table, self.language, state,
                                   table.TableTrump(intent.rank + intent.suit), legal)
                intent = Intent("play", rank=intent.rank, suit=intent.suit)
            if intent.kind == "play" and intent.rank in ss.RANKS and intent.value is None:
                return self._card(intent, state, suits_for(intent), legal)
            if intent.kind == "move" and intent.name == "marriage":
                return self._marriage(intent, suits_for(intent), state, legal)
            if intent.kind == "move" and intent.name in MOVES:
                return self._cautious(checked(table, self.language, state, MOVES[intent.name],
                                              legal), intent.name, state, state.turn)
            return Outcome(refusal=self.p.text("dialog.sorry"), reason="not_a_move")

        return TurnMenu(allowed, resolve)

    def _card(self, intent: Intent, state: table.State, suits: List[str], legal) -> Outcome:
        """A card said, with or without its suit: the trump card at the deal, else a play."""
        make = table.TableTrump if state.dealing else ss.Play
        if intent.suit is not None:
            return checked(table, self.language, state, make(intent.rank + intent.suit), legal)
        if len(suits) > 1:
            return Outcome(question=self.s("which_card", rank=self.p.rank(intent.rank),
                                           suits=self.suits_words(suits, "or")),
                           pending=intent)
        if not suits:
            return Outcome(refusal=self.t("no_rank", rank=self.p.rank(intent.rank)),
                           reason="rank_impossible")
        return checked(table, self.language, state, make(intent.rank + suits[0]), legal)

    def _marriage(self, intent: Intent, suits: List[str], state: table.State,
                  legal) -> Outcome:
        if intent.suit is None and len(suits) == 1:
            intent = replace(intent, suit=suits[0])
        if intent.suit is None:
            if not suits:  # not leading, or the stock is not open: the rules say which
                return checked(table, self.language, state, ss.Marriage("Q" + ss.SUITS[0]),
                               legal)
            return Outcome(question=self.s("which_marriage", suits=self.suits_words(suits, "or")),
                           pending=intent)
        if intent.suit not in suits:
            return checked(table, self.language, state, ss.Marriage("Q" + intent.suit), legal)
        return Outcome(question=self.t("which_marriage_card",
                                       suit=self.p.data["suit"][intent.suit]), pending=intent)

    def _cautious(self, outcome: Outcome, move: str, state, seat: int) -> Outcome:
        """A claim or a close is asked first by voice; with the points secret, the
        question does not tell them (and a typed claim is never asked)."""
        if self.assist:
            return super()._cautious(outcome, move, state, seat)
        if outcome.action is not None and move in ("claim", "close"):
            outcome.caution = self.t(f"caution_{move}", player=state.players[seat])
        return outcome

    def phrase(self, intent: Intent) -> str:
        """Read back for a confirmation: "Trump is the nine of hearts?", "Take it back?"."""
        if intent.kind == "move" and intent.name == "take_back":
            return self.t("confirm_take_back")
        if intent.kind == "move" and intent.name == "trump_card":
            return self.t("confirm_trump", card=self.p.card(intent.rank + intent.suit))
        return super().phrase(intent)

    # --- events to sentences ----------------------------------------------------------

    def announce(self, events: Sequence, state: table.State, humans: Sequence[int]) -> List[str]:
        """Sixty-Six's sentences, with the table's own for the deal, the tricks and draws
        (no points unless --assist), and whose move it is."""
        out: List[str] = []
        for e in events:
            if e.type in OWN_EVENTS:
                out += self._own(e, state, events)
            else:  # no seat is "you", and no turn line after each event
                out += super().announce([e], state, ())
        if events and not table.is_over(state) and not state.dealing:
            player = state.players[state.turn]
            if state.claim_window:
                out.append(self.t("claim_window", player=player))
            elif not any(e.type == "taken_back" for e in events):
                out.append(self.p.text("events.turn_you", player=player))
        return out

    def _own(self, e, state: table.State, events: Sequence) -> List[str]:
        if e.type == "hand_start":
            return [self.t("hand_start", hand=e.hand, dealer=e.dealer, leader=e.leader)]
        if e.type == "deal":
            return [self.t("deal", suit=self.p.data["suit"][suit_of(e.trump_card)],
                           card=self.p.card(e.trump_card))]
        if e.type == "trick":
            if self.assist:
                return super().announce([e], state, ()) + [self.points_line(state)]
            return [self.t("trick", winner=e.winner)]
        if e.type == "stock_left":
            draws = [x.player for x in events if x.type == "draw"]
            if e.cards == 0:  # the face-up card's own sentence says the stock is used up
                return []
            return [self.t("draws", winner=draws[0], other=draws[1], cards=e.cards)]
        if e.type == "taken_back":
            return [self.t("taken_back", player=e.player)]
        return []

    def points_line(self, state: table.State) -> str:
        items = []
        for seat, name in enumerate(state.players):
            points = self.units(ss.card_points(state, seat), "points_unit")
            later = sum(ss.marriage_points(s, state.trump_suit) for s in state.marriages[seat])
            if later and not state.won[seat]:
                items.append(self.t("points_later", player=name, points=points,
                                    marriage=self.units(later, "points_unit")))
            else:
                items.append(self.t("points_item", player=name, points=points))
        return self.t("points", items=self.p.join(items))

    def secret(self, events: Sequence, state, humans: Sequence[int]) -> List[str]:
        return []  # the cards are in the players' hands: the referee knows no secret

    def deal_notice(self, state, humans: Sequence[int]) -> List[str]:
        return []

    # --- questions ------------------------------------------------------------------

    def answer(self, command: str, state: table.State, seat: int) -> str:
        if state.dealing and command in ("trump", "table", "stock"):
            return self.t("dealing", dealer=state.players[state.dealer])
        if command in ("points", "tricks"):
            if not self.assist:
                return self.t("secret")
            if command == "points":
                return self.points_line(state)
            return self.t("tricks", items=self.p.join(
                [self.t("points_item", player=name,
                        points=self.units(ss.tricks_won(state, i), "trick_unit"))
                 for i, name in enumerate(state.players)]))
        if command == "trump" and state.stock:
            key = "trump" if table.stock_open(state) else "trump_closed"
            return self.s(key, suit=self.p.data["suit"][state.trump_suit],
                          card=self.p.card(state.trump_card))
        if command == "stock":
            cards = self.units(state.stock, "card_unit")
            if not state.stock:
                return self.s("stock_gone")
            if state.closed_by is not None:
                return self.s("stock_closed", player=state.players[state.closed_by],
                              cards=cards)
            return self.t("stock", cards=cards, card=self.p.card(state.trump_card))
        if command == "last_trick":
            return self._last_trick(state)  # seen by everyone: told even with the points secret
        if command == "help":
            return self.t("help")
        if command == "hand":  # "my cards": the referee never sees them
            return self.t("no_hands")
        if state.dealing and command != "table":  # no trump yet: Sixty-Six's answers name it
            return self.p.data["explain"]["sixty-six"][EXPLAINED[command]] \
                if command in EXPLAINED else self.s("score", target=state.options.target,
                                                     items=self.score_items(state.players,
                                                                            state.score)) \
                if command == "score" else self.p.text("answers.turn",
                                                       player=state.players[state.turn])
        return super().answer(command, state, seat)

    def where_we_are(self, state: table.State, seat: int) -> List[str]:
        if state.dealing:
            return [self.t("dealing", dealer=state.players[state.dealer]),
                    self.answer("score", state, seat)]
        return [self.answer("trump", state, seat), self.answer("score", state, seat)]
