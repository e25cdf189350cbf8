"""How Ninety-Nine is spoken: intents to plays, events to sentences, questions to answers.

The dialog follows the three kinds of wrong: not a move at all (the session says so),
illegal now ("You have no seven"), and ambiguous (a ten or an ace without a value: ask
"Ten: plus or minus?" unless only one value is legal, then say which was used).
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from engine import ninety_nine as nn
from engine.cards import rank_of
from voice.games.spec import Outcome, TurnMenu, checked
from voice.lang import Language
from voice.understand.grammar import Intent

COMMANDS = ("total", "turn", "direction", "hand", "lives", "help")


class NinetyNineTalk:
    commands = COMMANDS
    typed_aliases: dict = {}

    def __init__(self, language: Language, strict_memory: bool = False) -> None:
        self.language = language
        self.grammar = language.grammar
        self.p = language.phrases

    # --- what can be said now, and what it means ------------------------------------

    def speaks(self, intent: Intent) -> bool:
        """Is this a phrase of the game at all (in some turn)? A card by rank, any value."""
        return intent.kind == "play" and intent.suit is None

    def turn(self, state: nn.State, seat: int, pending: Optional[Intent]) -> TurnMenu:
        """The turn's menu, from one ``legal_actions`` call: every card in hand with each
        legal value; a value alone only as the answer to "Ten: plus or minus?"."""
        legal = nn.legal_actions(state) if state.turn == seat else []
        values = {}   # rank -> legal values (None for a card without a choice)
        for action in legal:
            values.setdefault(rank_of(action.card), []).append(action.value)

        def allowed(intent: Intent) -> bool:
            if intent.kind == "command":
                return intent.name in self.commands
            if intent.kind == "rules":
                return True
            if intent.kind == "value":
                return (pending is not None and pending.rank == intent.rank
                        and intent.value in values.get(intent.rank, ()))
            if intent.kind == "play" and intent.suit is None:
                if intent.value is None:
                    return intent.rank in values
                return intent.value in values.get(intent.rank, ())
            return False

        return TurnMenu(allowed, lambda intent: self._resolve(intent, state, seat, pending,
                                                               legal))

    def _resolve(self, intent: Intent, state: nn.State, seat: int, pending: Optional[Intent],
                 legal: Sequence[nn.Play]) -> Outcome:
        if intent.kind not in ("play", "value"):  # another game's move ("marry hearts")
            return Outcome(refusal=self.p.text("dialog.sorry"), reason="not_understood")
        if intent.kind == "value":
            if pending is None or pending.rank != intent.rank:
                return Outcome(refusal=self.p.text("dialog.sorry"), reason="unexpected_value")
            intent = Intent("play", rank=intent.rank, value=intent.value)
        hand = state.hands[seat]
        cards = [c for c in hand if rank_of(c) == intent.rank]
        if not cards:
            return Outcome(refusal=self.p.text("dialog.not_in_hand",
                                               rank=self.p.rank(intent.rank),
                                               cards=self.hand_words(hand)),
                           reason="not_in_hand")
        choices = nn.value_choices(intent.rank)
        if not choices and intent.value is not None:
            word = self.p.rank(intent.rank)
            return Outcome(refusal=self.p.text("dialog.no_value", rank=word), reason="no_value")
        notes: List[str] = []
        value = intent.value
        if choices and value is None:
            legal_values = [a.value for a in legal if a.card == cards[0]]
            if len(legal_values) > 1:
                return Outcome(question=self.p.text(f"dialog.ask_value.{intent.rank}"),
                               pending=intent)
            if legal_values:
                value = legal_values[0]
                notes.append(self.p.text(f"dialog.only_value.{intent.rank}",
                                         value=self.value_words(value)))
        outcome = checked(nn, self.language, state, nn.Play(cards[0], value), legal)
        outcome.notes[:0] = notes
        return outcome

    def phrase(self, intent: Intent) -> str:
        """How to read an intent back for a confirmation: "Ten minus?"."""
        if intent.kind == "play" or intent.kind == "value":
            words = self.p.rank(intent.rank)
            if intent.value is not None:
                words += ", " + self.value_words(intent.value)
            return words[0].upper() + words[1:]
        if intent.kind == "rules":
            return self.p.text("dialog.rules_question", rank=self.p.rank(intent.rank))
        return self.grammar.command_words(intent.name)[0].capitalize()

    # --- words ------------------------------------------------------------------------

    def value_words(self, value) -> str:
        v = self.p.data["value"]
        if isinstance(value, str):
            return v[value]
        if value == 0:
            return v["zero"]
        return (v["plus"] if value > 0 else v["minus"]).format(n=abs(value))

    def hand_words(self, hand: Sequence[str]) -> str:
        return self.p.join([self.p.rank(rank_of(c)) for c in hand])

    def lives_words(self, state: nn.State, n: int) -> str:
        return self.p.count(n, self.p.data["lives_unit"][state.options.variant])

    # --- events to sentences ----------------------------------------------------------

    def announce(self, events: Sequence, state: nn.State, humans: Sequence[int]) -> List[str]:
        """Sentences for what happened; ``state`` is the state after the events."""
        out: List[str] = []
        human_names = {state.players[s] for s in humans}
        player = None
        hits = {e.reason for e in events if e.type == "lives" and e.reason.startswith("hit_")}
        said_hits = set()
        for e in events:
            t = e.type
            if t == "play":
                player = e.player
                card = self.p.card(e.card)
                if rank_of(e.card) in ("A", "10") or isinstance(e.value, str):
                    out.append(self.p.text("events.play", player=e.player, card=card,
                                          value=self.value_words(e.value), total=e.total))
                else:
                    out.append(self.p.text("events.play_plain", player=e.player, card=card,
                                          total=e.total))
            elif t == "lives":
                if e.reason in hits:
                    if e.reason not in said_hits:
                        said_hits.add(e.reason)
                        out.append(self.p.text(f"events.{e.reason}_all", player=player))
                    continue
                lost = self.lives_words(state, -e.delta)
                out.append(self.p.text(f"events.lives.{e.reason}", player=e.player, by=player,
                                      lost=lost, lives=self.lives_words(state, e.lives)))
            elif t == "eliminated":
                key = "events.eliminated.cannot_pay" if e.reason == "cannot_pay" else "events.eliminated"
                out.append(self.p.text(key, player=e.player))
            elif t == "skip":
                if e.player != player and len([a for a in state.active if a]) == 2:
                    out.append(self.p.text("events.skip_again", player=e.player, next=player))
                else:
                    out.append(self.p.text("events.skip", player=e.player))
            elif t == "reverse":
                out.append(self.p.text("events.reverse",
                                      direction=self.p.data["direction"][e.direction]))
            elif t == "reshuffle":
                out.append(self.p.text("events.reshuffle"))
            elif t == "round_end":
                if e.winner and "hit_99" not in hits:
                    out.append(self.p.text("events.round_end_win", winner=e.winner))
                elif e.loser:
                    out.append(self.p.text("events.round_end_lose", loser=e.loser))
            elif t == "round_start":
                out.append(self.p.text("events.round_start", round=e.round, dealer=e.dealer,
                                       first=e.first))
            elif t == "turn":
                key = "events.turn_you" if e.player in human_names else "events.turn"
                out.append(self.p.text(key, player=e.player))
            elif t == "game_over":
                out.append(self.p.text("events.game_over", winner=e.winner))
        return out

    def secret(self, events: Sequence, state: nn.State, humans: Sequence[int]) -> List[str]:
        """What only the player may hear: the card a lone player drew, their new hand."""
        human_names = {state.players[s] for s in humans}
        out = [self.p.text("events.draw_you", card=self.p.card(e.card)) for e in events
               if e.type == "draw" and e.player in human_names and len(human_names) == 1]
        if any(e.type == "round_start" for e in events):
            out += self.deal_notice(state, humans)
        return out

    def deal_notice(self, state: nn.State, humans: Sequence[int]) -> List[str]:
        """At a new round a lone player hears their cards; several people sharing one speaker
        ask "my cards" on their turn instead, so the others do not hear them."""
        if len(humans) != 1 or not state.active[humans[0]]:
            return []
        return [self.answer("hand", state, humans[0])]

    # --- questions ------------------------------------------------------------------

    def answer(self, command: str, state: nn.State, seat: int) -> str:
        p = self.p
        if command == "total":
            return p.text("answers.total", total=state.total)
        if command == "turn":
            return p.text("answers.turn", player=state.players[state.turn])
        if command == "direction":
            name = "clockwise" if state.direction == 1 else "counterclockwise"
            return p.text("answers.direction", direction=p.data["direction"][name])
        if command == "hand":
            hand = state.hands[seat]
            if not hand:
                return p.text("answers.hand_empty", player=state.players[seat])
            return p.text("answers.hand", player=state.players[seat],
                         cards=p.join([p.card(c) for c in hand]))
        if command == "lives":
            items = [p.text("answers.lives_item", player=name, lives=self.lives_words(state, n))
                     if state.active[i] else p.text("answers.lives_out", player=name)
                     for i, (name, n) in enumerate(zip(state.players, state.lives))]
            return p.text("answers.lives", items=p.join(items))
        if command == "help":
            return p.text("answers.help")
        raise KeyError(command)

    def rules(self, rank: str, state: nn.State) -> str:
        return self.p.data["rules"][state.options.variant][rank]

    def where_we_are(self, state: nn.State, seat: int) -> List[str]:
        return [self.answer("total", state, seat)]

    def cues(self, events: Sequence) -> List[str]:
        """The most urgent earcon first: someone is out, else someone lost a life."""
        kinds = {e.type for e in events}
        return ["eliminated"] if "eliminated" in kinds else ["penalty"] if "lives" in kinds else []
