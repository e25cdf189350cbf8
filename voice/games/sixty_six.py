"""How Sixty-Six is spoken: intents to moves, events to sentences, questions to answers.

Moves that are not a card ("marry hearts", "exchange", "close", "sixty six") come from the
grammar as ``Intent("move", name, suit)`` and go to ``resolve`` like a card; "hearts" is
``Intent("suit")``, the answer to "Which ace: hearts or spades?".

Dialog decisions:
- "the ace" plays the one ace that may be played now, else asks which.
- "marry hearts" leads the queen and shows the king: the queen is beaten by exactly the
  cards that beat the king (the king is in hand), risks fewer points and keeps the king.
  To lead the king of a marriage without declaring it, say "king of hearts".
- "marriage" alone declares the only possible marriage, else asks which suit.
- With ``strict_memory`` the player's own points and tricks are not told (a real table).
"""
from __future__ import annotations

from dataclasses import replace
from typing import List, Optional, Sequence

from engine import sixty_six as ss
from engine.cards import rank_of, suit_of
from voice.games.spec import EXPLAINED, Outcome, TurnMenu, checked, unique
from voice.lang import Language
from voice.understand.grammar import Intent

COMMANDS = ("hand", "trump", "table", "points", "tricks", "stock", "score", "last_trick",
            "turn", "help") + tuple(EXPLAINED)
ALIASES = {"total": "score"}        # typed "score" and "t" are the shared "total" command
HIGH_TO_LOW = tuple(reversed(ss.RANKS))
MOVES = {"exchange": ss.Exchange(), "close": ss.Close(), "claim": ss.Claim(),
         "play_on": ss.PlayOn()}


class SixtySixTalk:
    commands = COMMANDS
    typed_aliases = ALIASES

    def __init__(self, language: Language, strict_memory: bool = False,
                 verbose: bool = False) -> None:
        self.language = language
        self.grammar = language.grammar
        self.p = language.phrases
        self.strict_memory = strict_memory
        self.verbose = verbose
        self._told_66: set = set()  # (hand, seat) already told they can claim

    def s(self, key: str, **fields) -> str:
        return self.p.text("sixty_six." + key, **fields)

    # --- what can be said now, and what it means ------------------------------------

    def speaks(self, intent: Intent) -> bool:
        """Is this a phrase of the game at all (in some turn)? A card (with or without its
        suit, never a value) or a move."""
        return (intent.kind == "play" and intent.value is None) or intent.kind == "move"

    def turn(self, state: ss.State, seat: int, pending: Optional[Intent]) -> TurnMenu:
        """The turn's menu, from one ``legal_actions`` call. Cards in hand that cannot be
        played stay in the vocabulary, so the player hears why ("you must follow suit")."""
        legal = ss.legal_actions(state) if state.turn == seat else []
        hand = state.hands[seat]
        kinds = {a.type for a in legal}
        marriage_suits = unique(suit_of(a.card) for a in legal if a.type == "marriage")

        def suits_for(intent: Intent) -> List[str]:
            """The suits that would complete an ambiguous card or marriage, in hand order."""
            if intent.kind == "move":
                return marriage_suits
            return unique(suit_of(a.card) for a in legal
                          if a.type == "play" and rank_of(a.card) == intent.rank)

        def allowed(intent: Intent) -> bool:
            if intent.kind == "command":
                return intent.name in self.commands
            if intent.kind == "rules":
                return intent.rank in ss.RANKS
            if intent.kind == "play":
                if intent.value is not None:
                    return False
                if intent.suit is not None:
                    return intent.rank + intent.suit in hand
                return any(rank_of(c) == intent.rank for c in hand)
            if intent.kind == "suit":
                return pending is not None and intent.suit in suits_for(pending)
            if intent.kind == "move":
                if intent.name == "marriage":
                    return bool(marriage_suits) and (intent.suit is None
                                                     or intent.suit in marriage_suits)
                return intent.name in kinds
            return False

        def resolve(intent: Intent) -> Outcome:
            if state.turn != seat:
                return Outcome(refusal=self.s("not_your_turn", player=state.players[state.turn]),
                               reason="not_your_turn")
            if intent.kind == "suit":
                if pending is None:
                    return Outcome(refusal=self.s("unexpected_suit"), reason="unexpected_answer")
                intent = replace(pending, suit=intent.suit)
            if intent.kind == "play":
                return self._play(intent, state, hand, suits_for(intent), legal)
            if intent.kind == "move":
                if intent.name == "marriage":
                    return self._marriage(intent, state, hand, suits_for(intent), legal)
                return self._cautious(checked(ss, self.language, state, MOVES[intent.name],
                                              legal), intent.name, state, seat)
            return Outcome(refusal=self.p.text("dialog.sorry"), reason="not_a_move")

        return TurnMenu(allowed, resolve)

    def _cautious(self, outcome: Outcome, move: str, state: ss.State, seat: int) -> Outcome:
        """A claim or a close ends or changes the hand for good: asked first by voice, and a
        claim that cannot succeed is asked typed too."""
        if outcome.action is None or move not in ("claim", "close"):
            return outcome
        points = self.units(ss.card_points(state, seat), "points_unit")
        if move == "close":
            outcome.caution = self.s("caution_close")
        elif ss.card_points(state, seat) < ss.WINNING_POINTS:
            outcome.caution = self.s("caution_claim_short", points=points,
                                     other=state.players[1 - seat])
            outcome.caution_typed = True
        else:
            outcome.caution = self.s("caution_claim", points=points)
        return outcome

    def _play(self, intent: Intent, state: ss.State, hand, suits: List[str], legal) -> Outcome:
        if intent.value is not None:
            return Outcome(refusal=self.s("no_value"), reason="no_value")
        if intent.suit is not None:
            card = intent.rank + intent.suit
            if card not in hand:
                return Outcome(refusal=self.s("not_in_hand", card=self.p.card(card),
                                              cards=self.cards_words(hand, state)),
                               reason="not_in_hand")
            return checked(ss, self.language, state, ss.Play(card), legal)
        in_hand = [c for c in hand if rank_of(c) == intent.rank]
        if not in_hand:
            return Outcome(refusal=self.s("no_rank", rank=self.p.rank(intent.rank),
                                          cards=self.cards_words(hand, state)),
                           reason="not_in_hand")
        if len(suits) > 1:
            return Outcome(question=self.s("which_card", rank=self.p.rank(intent.rank),
                                           suits=self.suits_words(suits, "or")),
                           pending=intent)
        card = intent.rank + suits[0] if suits else in_hand[0]
        return checked(ss, self.language, state, ss.Play(card), legal)  # none playable: why

    def _marriage(self, intent: Intent, state: ss.State, hand, suits: List[str],
                  legal) -> Outcome:
        if intent.suit is not None:
            return checked(ss, self.language, state, ss.Marriage("Q" + intent.suit), legal)
        pairs = [s for s in ss.SUITS if "K" + s in hand and "Q" + s in hand]
        if not pairs:
            return Outcome(refusal=self.s("no_marriage"), reason="illegal")
        if len(suits) > 1:
            return Outcome(question=self.s("which_marriage", suits=self.suits_words(suits, "or")),
                           pending=intent)
        return checked(ss, self.language, state, ss.Marriage("Q" + (suits or pairs)[0]), legal)

    def phrase(self, intent: Intent) -> str:
        """How to read an intent back for a confirmation: "Queen of hearts?"."""
        if intent.kind == "play":
            words = (self.p.card(intent.rank + intent.suit) if intent.suit
                     else self.s("the_rank", rank=self.p.rank(intent.rank)))
        elif intent.kind == "suit":
            words = self.p.data["suit"][intent.suit]
        elif intent.kind == "move":
            words = self.p.data["sixty_six"]["moves"][intent.name]
            if intent.suit:
                words = self.s("move_in_suit", move=words, suit=self.p.data["suit"][intent.suit])
        elif intent.kind == "rules":
            words = self.p.text("dialog.rules_question", rank=self.p.rank(intent.rank))
        else:
            words = self.grammar.command_words(intent.name)[0]
        return words[0].upper() + words[1:]

    # --- words ------------------------------------------------------------------------

    def suits_words(self, suits: Sequence[str], joiner: str = "and") -> str:
        names = [self.p.data["suit"][s] for s in suits]
        if len(names) <= 1 or joiner == "and":
            return self.p.join(names)
        return self.p.join(names, "sixty_six.or")

    def cards_words(self, hand: Sequence[str], state: ss.State) -> str:
        """A hand grouped by suit, trumps first, high to low: "hearts, trump: ace, ten; ..."."""
        groups = []
        for suit in [state.trump_suit] + [s for s in ss.SUITS if s != state.trump_suit]:
            ranks = [r for r in HIGH_TO_LOW if r + suit in hand]
            if not ranks:
                continue
            key = "hand_trump_group" if suit == state.trump_suit else "hand_group"
            groups.append(self.s(key, suit=self.p.data["suit"][suit],
                                 ranks=self.p.join([self.p.rank(r) for r in ranks])))
        return "; ".join(groups)

    def units(self, n: int, unit: str) -> str:
        return self.p.count(n, self.p.data["sixty_six"][unit])

    def score_items(self, names: Sequence[str], numbers: Sequence[int]) -> str:
        return ", ".join(self.s("score_item", player=name, n=n)
                         for name, n in zip(names, numbers))

    # --- events to sentences ----------------------------------------------------------

    def announce(self, events: Sequence, state: ss.State, humans: Sequence[int]) -> List[str]:
        """Sentences for what happened; ``state`` is the state after the events."""
        out: List[str] = []
        dealt = any(e.type == "deal" for e in events)
        you = state.players[humans[0]] if len(humans) == 1 else None
        for e in events:
            t = e.type
            if t == "deal":
                leader = state.players[1 - state.players.index(e.dealer)]
                out.append(self.s("deal", hand=e.hand, dealer=e.dealer, leader=leader,
                                  suit=self.p.data["suit"][suit_of(e.trump_card)],
                                  card=self.p.card(e.trump_card)))
            elif t == "play":
                key = "play_you" if e.player == you else "play"
                out.append(self.s(key, player=e.player, card=self.p.card(e.card)))
            elif t == "marriage":
                key = "marriage" if e.credited else "marriage_later"
                out.append(self.s(key, player=e.player, suit=self.p.data["suit"][e.suit],
                                  points=e.points))
            elif t == "trick":
                first, second = (self.p.card(c) for c in e.cards)
                out.append(self.s("trick_you" if e.winner == you else "trick", winner=e.winner,
                                  first=first, second=second,
                                  points=self.units(e.points, "points_unit")))
            elif t == "draw" and e.face_up:
                out.append(self.s("draw_face_up", player=e.player, card=self.p.card(e.face_up)))
            elif t == "exchange":
                out.append(self.s("exchange", player=e.player, card=self.p.card(e.card)))
            elif t == "close":
                out.append(self.s("close", player=e.player))
            elif t == "play_on":
                out.append(self.s("play_on", player=e.player))
            elif t == "claim":
                out.append(self.s("claim_ok" if e.success else "claim_wrong", player=e.player,
                                  points=e.points))
            elif t == "hand_end":
                out.append(self._hand_end(e, events))
                out.append(self.s("score_line",
                                  items=self.score_items(list(e.score), list(e.score.values()))))
            elif t == "game_over":
                out.append(self.s("game_over", winner=e.winner))
        if events and not dealt and not ss.is_over(state) and state.turn in humans:
            player = state.players[state.turn]
            if state.claim_window:  # married into 66: the one moment to claim before the reply
                points = self.units(ss.card_points(state, state.turn), "points_unit")
                out.append(self.s("claim_window", player=player, points=points))
            else:
                out += self._can_claim(state)
                out.append(self.p.text("events.turn_you", player=player))
        return out

    def _can_claim(self, state: ss.State) -> List[str]:
        """"You have 66: you can claim", once a hand, when it first becomes true (never with
        strict memory: counting is the player's own job then)."""
        seat = state.turn
        points = ss.card_points(state, seat)
        key = (state.hand_number, seat)
        if self.strict_memory or points < ss.WINNING_POINTS or key in self._told_66:
            return []
        self._told_66.add(key)
        return [self.s("can_claim", points=self.units(points, "points_unit"))]

    def secret(self, events: Sequence, state: ss.State, humans: Sequence[int]) -> List[str]:
        """What only the player may hear: the card they drew, their hand at a new deal."""
        if any(e.type == "deal" for e in events):
            return self.deal_notice(state, humans)
        human_names = [state.players[s] for s in humans]
        return [self.s("draw_you", card=self.p.card(state.hands[state.players.index(e.player)][-1]))
                for e in events if e.type == "draw" and not e.face_up and e.player in human_names]

    def _hand_end(self, e, events: Sequence) -> str:
        """The hand's result with both sides' card points and why it scored 1, 2 or 3."""
        why = self.p.data["sixty_six"]["why"]
        reached = max(e.points.values()) >= ss.WINNING_POINTS
        fields = dict(winner=e.winner, game_points=self.units(e.game_points, "game_points_unit"),
                      points=self.score_items(list(e.points), list(e.points.values())),
                      why=why[str(e.game_points)] if reached else why["last"])
        if e.reason != "played_out":
            # a failed close is the closer's loss: the closer is the other player
            loser = next(name for name in e.score if name != e.winner)
            return self.s("hand_end." + e.reason, closer=loser, **fields)
        if e.last_trick_bonus is None:  # no 10 for the last trick (a house rule after a close)
            return self.s("hand_end.played_out_closed", **fields)
        return self.s("hand_end.played_out", last=e.last_trick_bonus, **fields)

    def deal_notice(self, state: ss.State, humans: Sequence[int]) -> List[str]:
        """At each deal, every human hears their new hand."""
        return [self.answer("hand", state, seat) for seat in humans]

    # --- questions ------------------------------------------------------------------

    def answer(self, command: str, state: ss.State, seat: int) -> str:
        command = ALIASES.get(command, command)
        suit = self.p.data["suit"][state.trump_suit]
        if command == "hand":
            hand = state.hands[seat]
            if not hand:
                return self.p.text("answers.hand_empty", player=state.players[seat])
            return self.s("hand", player=state.players[seat],
                          groups=self.cards_words(hand, state))
        if command == "trump":
            if ss.stock_open(state):
                return self.s("trump", suit=suit, card=self.p.card(state.stock[-1]))
            if state.stock:
                return self.s("trump_closed", suit=suit, card=self.p.card(state.stock[-1]))
            return self.s("trump_gone", suit=suit)
        if command == "table":
            if state.table is None:
                return self.s("table_empty", player=state.players[state.turn])
            return self.s("table", player=state.players[state.leader],
                          card=self.p.card(state.table))
        if command in ("points", "tricks"):
            return self._own_count(command, state, seat)
        if command == "stock":
            cards = self.units(len(state.stock), "card_unit")
            if not state.stock:
                return self.s("stock_gone")
            if state.closed_by is not None:
                return self.s("stock_closed", player=state.players[state.closed_by],
                              cards=cards)
            return self.s("stock", cards=cards, card=self.p.card(state.stock[-1]))
        if command == "score":
            return self.s("score", items=self.score_items(state.players, state.score),
                          target=state.options.target)
        if command == "last_trick":
            return self.s("strict") if self.strict_memory else self._last_trick(state)
        if command == "turn":
            return self.p.text("answers.turn", player=state.players[state.turn])
        if command == "help":
            return self.s("help")
        if command in EXPLAINED:  # "rules", "how does 66 work", "how do I score"
            return self.p.data["explain"]["sixty-six"][EXPLAINED[command]]
        return self.s("not_a_question")

    def _own_count(self, command: str, state: ss.State, seat: int) -> str:
        if self.strict_memory:
            return self.s("strict")
        if command == "tricks":
            return self.s("tricks", tricks=self.units(ss.tricks_won(state, seat), "trick_unit"))
        points = self.units(ss.card_points(state, seat), "points_unit")
        if state.marriages[seat] and not state.won[seat]:
            later = sum(ss.marriage_points(s, state.trump_suit) for s in state.marriages[seat])
            return self.s("points_marriage_later", points=points,
                          marriage=self.units(later, "points_unit"))
        return self.s("points", points=points)

    def _last_trick(self, state: ss.State) -> str:
        if not state.last_trick or state.last_trick_winner is None:
            return self.s("no_last_trick")
        first, second = state.last_trick
        won = state.last_trick_winner
        led_by = 1 - won if ss.beats(second, first, state.trump_suit) else won
        return self.s("last_trick", first_player=state.players[led_by], first=self.p.card(first),
                      second_player=state.players[1 - led_by], second=self.p.card(second),
                      winner=state.players[won])

    def where_we_are(self, state: ss.State, seat: int) -> List[str]:
        return [self.answer("trump", state, seat), self.answer("score", state, seat)]

    def is_out(self, state: ss.State, seat: int) -> bool:
        return False  # two players: the match ends when one of them wins

    def cues(self, events: Sequence) -> List[str]:
        return []

    def rules(self, rank: str, state: ss.State) -> str:
        if rank not in ss.RANKS:
            return self.s("rules_absent", ranks=self.p.rank(rank, plural=True))
        return self.s("rules", rank=self.p.rank(rank),
                      points=self.units(ss.VALUES[rank + "S"], "points_unit"))
