"""How Ninety-Nine is spoken: intents to plays, events to sentences, questions to answers.

The dialog follows the three kinds of wrong: not a move at all (the session says so),
illegal now ("You have no seven"), and ambiguous (a ten or an ace without a value: ask
"Ten: plus or minus?" unless only one value is legal, then say which was used).
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from engine import ninety_nine as nn
from engine.cards import rank_of
from voice.games.spec import EXPLAINED, Outcome, TurnMenu, checked
from voice.lang import Language
from voice.understand.grammar import Intent

COMMANDS = ("total", "turn", "direction", "hand", "lives", "my_lives", "help") + tuple(EXPLAINED)


class NinetyNineTalk:
    commands = COMMANDS
    typed_aliases: dict = {}

    def __init__(self, language: Language, strict_memory: bool = False,
                 verbose: bool = False) -> None:
        self.language = language
        self.grammar = language.grammar
        self.p = language.phrases
        self.verbose = verbose  # every "X's turn", and "X plays …" in full

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

        return TurnMenu(lambda intent: self.card_allowed(intent, values, pending), lambda intent: self._resolve(intent, state, seat, pending,
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
        value, notes, question = self.settle_value(
            intent, [a.value for a in legal if a.card == cards[0]])
        if question is not None:
            return question
        action = nn.Play(cards[0], value)
        outcome = checked(nn, self.language, state, action, legal)
        outcome.notes[:0] = notes
        cost = self._cost(state, action)
        if outcome.action is not None and cost > min(self._cost(state, a) for a in legal):
            outcome.caution = self.p.text(
                "dialog.costly", phrase=self.phrase(Intent("play", rank=intent.rank, value=value)),
                lost=self.lives_words(state, cost))
        return outcome

    def card_allowed(self, intent: Intent, values, pending: Optional[Intent]) -> bool:
        """A question, a card's rules, a rank in ``values`` (rank -> legal values) said
        with a legal value or none, or a value alone answering "Ten: plus or minus?"."""
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

    def settle_value(self, intent: Intent, legal_values: Sequence[Optional[int]]
                     ) -> Tuple[Optional[int], List[str], Optional[Outcome]]:
        """(value, notes, question) for a rank said with or without its value: an ace or a
        ten without one asks "Ten: plus or minus?" when two are legal, and says which when
        only one is ("Ten counts plus 10: minus would take the total below zero")."""
        if intent.value is not None or not nn.value_choices(intent.rank):
            return intent.value, [], None
        if len(legal_values) > 1:
            return None, [], Outcome(question=self.p.text(f"dialog.ask_value.{intent.rank}"),
                                     pending=intent)
        if not legal_values:
            return None, [], None
        note = self.p.text(f"dialog.only_value.{intent.rank}",
                           value=self.value_words(legal_values[0]))
        return legal_values[0], [note], None

    @staticmethod
    def _cost(state: nn.State, action: nn.Play) -> int:
        """The lives a play costs the player who makes it."""
        after, _ = nn.card_effect(state.options.variant, rank_of(action.card), state.total,
                                  action.value)
        costs, _ = nn.penalties(state.options, state.total, after)
        return sum(-c.delta for c in costs if c.who == "player")

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
        """Sentences for what happened; ``state`` is the state after the events.

        The one person at the table is "you" ("You play the queen. Total 30."); with several
        people sharing the device everyone is named. Concise (the default) leaves out the
        bots' "X's turn" and says a bot's move as "Strong 2: jack of clubs. Total 20."."""
        out: List[str] = []
        you = state.players[humans[0]] if len(humans) == 1 else None
        player = None
        hits = {e.reason for e in events if e.type == "lives" and e.reason.startswith("hit_")}
        said_hits = set()
        for e in events:
            t = e.type
            if t == "play":
                player = e.player
                out.append(self._play_line(e, you))
            elif t == "lives":
                if e.reason in hits:
                    if e.reason not in said_hits:
                        said_hits.add(e.reason)
                        out.append(self.p.text(f"events.{e.reason}_all", player=player))
                    if e.player == you:  # the listener's own count, after "everyone else"
                        out.append(self.p.text("events.you_have",
                                               lives=self.lives_words(state, e.lives)))
                else:
                    key = f"events.lives{'_you' if e.player == you else ''}.{e.reason}"
                    out.append(self.p.text(key, player=e.player, by=player,
                                           lost=self.lives_words(state, -e.delta),
                                           lives=self.lives_words(state, e.lives)))
                out += self._last_chance(e, state, you)
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
                if e.player in {state.players[s] for s in humans}:
                    out.append(self.p.text("events.turn_you", player=e.player))
                elif self.verbose:
                    out.append(self.p.text("events.turn", player=e.player))
            elif t == "game_over":
                out.append(self.p.text("events.game_over", winner=e.winner))
        return out

    def _play_line(self, e, you: Optional[str]) -> str:
        """"You play …" / "Strong 2: …" / (verbose) "Strong 2 plays …"; the value when the
        player chose one or the card does something other than add (a reverse is said once,
        by its own event, and a four that reverses nothing just adds nothing)."""
        card = self.p.card(e.card)
        with_value = rank_of(e.card) in ("A", "10") or e.value in ("double", "halve", "set99")
        style = "you" if e.player == you else "long" if self.verbose else "short"
        key = f"events.play_{style}" + ("" if with_value else "_plain")
        return self.p.text(key, player=e.player, card=card, total=e.total,
                           value=self.value_words(e.value) if with_value else "")

    def _last_chance(self, e, state: nn.State, you: Optional[str]) -> List[str]:
        """"Bob is on the last life" / "You are on the board: one more loss and you are out"."""
        if not state.active[state.players.index(e.player)]:
            return []
        if state.options.variant == "classic" and e.lives == 0:
            kind = "on_the_board"
        elif state.options.variant == "doksan" and e.lives == 1:
            kind = "last_life"
        else:
            return []
        return [self.p.text(f"events.{kind}{'_you' if e.player == you else ''}", player=e.player)]

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
        if command == "my_lives":
            name = state.players[seat]
            if not state.active[seat]:
                return p.text("answers.my_lives_out", player=name)
            return p.text("answers.my_lives", player=name,
                          lives=self.lives_words(state, state.lives[seat]))
        if command == "help":
            return p.text("answers.help")
        if command in EXPLAINED:  # "rules", "how does 33 work", "how do I score"
            return p.data["explain"][state.options.variant][EXPLAINED[command]]
        raise KeyError(command)

    def rules(self, rank: str, state: nn.State) -> str:
        return self.p.data["rules"][state.options.variant][rank]

    def where_we_are(self, state: nn.State, seat: int) -> List[str]:
        return [self.answer("total", state, seat)]

    def is_out(self, state: nn.State, seat: int) -> bool:
        return not state.active[seat] and not nn.is_over(state)

    def cues(self, events: Sequence) -> List[str]:
        """The most urgent earcon first: someone is out, else someone lost a life."""
        kinds = {e.type for e in events}
        return ["eliminated"] if "eliminated" in kinds else ["penalty"] if "lives" in kinds else []
