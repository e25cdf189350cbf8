"""The Ninety-Nine family: Doksan Dokuz (``doksan``, the default) and Classic Ninety-Nine.

Rules: shared/rules/ninety-nine.md. A game is an immutable ``State``; ``legal_actions`` lists
what the player to move may do; ``apply`` returns the next state and the events that
happened, which carry everything an announcer needs. Shuffles are derived from the game's
seed, the round and the reshuffle count, so every game replays exactly from its seed.

The arithmetic of a play (``card_effect``) and its scoring (``penalties``) depend only on
totals, never on hands: a table mode refereeing a real deck reuses them as they are.

>>> s = new_game(["Ann", "Bob"], seed=1, deck=["7S", "8S", "9S", "2H", "3H", "4H"])
>>> s, events = apply(s, Play("7S"))
>>> s.total, events[0].to_json()["value"]
(7, 7)
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Sequence, Tuple, Union

from engine.api import IllegalAction
from engine.cards import InvalidCard, count_cards, french_deck, parse_card, rank_of, stack_deck
from engine.records import Action, Event

GAME = "ninety-nine"
VARIANTS = ("doksan", "classic")
MAX_PLAYERS = 10
PLAYERS = (2, MAX_PLAYERS)
HAND_SIZE = 3
SAVE_VERSION = 1


# --- options ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Options:
    """House rules as data. ``None`` means the variant's default for the number of players."""

    variant: str = "doksan"
    lives: Optional[int] = None
    decks: Optional[int] = None
    leaving_threshold_counts: bool = True  # 33 -> 38 "exceeds 33" [decided]
    total_may_go_negative: bool = False    # "ten minus" at 5 is refused [decided]
    charge_passing_33_on_66: bool = False  # 33 doubled to 66 also costs the player 1

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown game {self.variant!r}; choose doksan or classic")
        if self.lives is not None and self.lives < 1:
            raise ValueError("lives must be at least 1")
        if self.decks is not None and self.decks not in (1, 2, 3):
            raise ValueError("decks must be 1, 2 or 3")

    def starting_lives(self, players: int) -> int:
        if self.lives is not None:
            return self.lives
        if self.variant == "doksan":
            return 10
        return 5 if players <= 3 else 3

    def deck_count(self, players: int) -> int:
        if self.decks is not None:
            return self.decks
        if self.variant == "doksan":
            return 1 if players <= 5 else 2
        return 1 if players <= 3 else 2


# --- actions and events ----------------------------------------------------------------


@dataclass(frozen=True)
class Play(Action):
    """Play ``card`` from hand; ``value`` chooses 1/11 for an ace and 10/-10 for a ten."""

    type = "play"
    card: str
    value: Optional[int] = None


@dataclass(frozen=True)
class PlayEvent(Event):
    type = "play"
    player: str
    card: str
    value: Union[int, str]  # the number added, or "double"/"halve"/"set99"/"reverse"
    total_before: int
    total: int


@dataclass(frozen=True)
class LivesEvent(Event):
    type = "lives"
    player: str
    delta: int
    lives: int
    reason: str  # hit_33 hit_66 exceed_33 exceed_66 hit_99 bust


@dataclass(frozen=True)
class Eliminated(Event):
    type = "eliminated"
    player: str
    reason: str = "no_lives"  # or "cannot_pay": a classic bust with no chip left


@dataclass(frozen=True)
class Skip(Event):
    type = "skip"
    player: str


@dataclass(frozen=True)
class Reverse(Event):
    type = "reverse"
    direction: str  # "clockwise" or "counterclockwise"


@dataclass(frozen=True)
class Draw(Event):
    type = "draw"
    player: str
    card: str


@dataclass(frozen=True)
class Reshuffle(Event):
    type = "reshuffle"
    cards: int  # how many discards became the new stock


@dataclass(frozen=True)
class RoundStart(Event):
    type = "round_start"
    round: int
    dealer: str
    first: str


@dataclass(frozen=True)
class RoundEnd(Event):
    type = "round_end"
    winner: Optional[str]
    loser: Optional[str]


@dataclass(frozen=True)
class Turn(Event):
    type = "turn"
    player: str


@dataclass(frozen=True)
class GameOver(Event):
    type = "game_over"
    winner: str


# --- the arithmetic and scoring of one play (no hands needed) --------------------------


def value_choices(rank: str) -> Tuple[int, ...]:
    """The values a player must choose between for this rank (empty: no choice)."""
    if rank == "A":
        return (1, 11)
    if rank == "10":
        return (10, -10)
    return ()


def card_effect(variant: str, rank: str, total: int, value: Optional[int] = None
                ) -> Tuple[int, Union[int, str]]:
    """(new total, value label) of playing ``rank`` on ``total``; ``value`` for A and 10.

    >>> card_effect("doksan", "2", 56)
    (28, 'halve')
    >>> card_effect("doksan", "2", 53)
    (106, 'double')
    >>> card_effect("classic", "K", 40)
    (99, 'set99')
    >>> card_effect("doksan", "10", 76, -10)
    (66, -10)
    """
    choices = value_choices(rank)
    if choices:
        if value not in choices:
            raise ValueError(f"{rank} needs a value: {' or '.join(map(str, choices))}")
        return total + value, value
    if rank == "9":
        return total, 0
    if rank in ("J", "Q"):
        return total + 10, 10
    if variant == "doksan":
        if rank == "K":
            return total + 10, 10
        if rank == "2":
            if total % 2 == 0 and total > 49:
                return total // 2, "halve"
            return total * 2, "double"
        return total + int(rank), int(rank)
    if rank == "K":
        return 99, "set99"
    if rank == "4":
        return total, "reverse"
    return total + int(rank), int(rank)


@dataclass(frozen=True)
class Penalty:
    """One life (or chip) change caused by a play."""

    who: str      # "player" (who played) or "others" (every other active player)
    delta: int
    reason: str


def penalties(options: Options, before: int, after: int) -> Tuple[Tuple[Penalty, ...], bool]:
    """What a play from ``before`` to ``after`` costs, and whether it ends the round.

    >>> penalties(Options(), 29, 36)[0]
    (Penalty(who='player', delta=-1, reason='exceed_33'),)
    >>> penalties(Options(), 56, 28)
    ((), False)
    >>> [p.reason for p in penalties(Options(), 53, 106)[0]]
    ['exceed_66', 'bust']
    >>> [p.reason for p in penalties(Options(), 33, 66)[0]]
    ['hit_66']
    >>> [p.reason for p in penalties(Options(charge_passing_33_on_66=True), 33, 66)[0]]
    ['exceed_33', 'hit_66']
    >>> [p.reason for p in penalties(Options(), 33, 67)[0]]
    ['exceed_33', 'exceed_66']
    """
    if options.variant == "classic":
        if after > 99:
            return (Penalty("player", -1, "bust"),), True
        return (), False
    if after <= before:
        return (), False
    found: List[Penalty] = []
    for threshold in (33, 66):
        if options.leaving_threshold_counts:
            exceeded = before <= threshold < after
        else:
            exceeded = before < threshold < after
        # the seeds: "exceeds 33 but does not reach 66", so landing on 66 is not charged
        if exceeded and not (threshold == 33 and after == 66
                             and not options.charge_passing_33_on_66):
            found.append(Penalty("player", -1, f"exceed_{threshold}"))
        if after == threshold:
            found.append(Penalty("others", -1, f"hit_{threshold}"))
    if after == 99:
        found.append(Penalty("others", -2, "hit_99"))
        return tuple(found), True
    if after > 99:
        found.append(Penalty("player", -2, "bust"))
        return tuple(found), True
    return tuple(found), False


def charge(state, seat: int, costs: Sequence[Penalty]
           ) -> Tuple[List[int], List[bool], List[int], List[Event]]:
    """Charge a play's costs to the table (``state`` needs options, players, lives, active):
    (lives, active, seats knocked out, events). A table mode with no hands reuses it.

    A Classic player who must pay with no chip left is out; a Doksan player with no life
    left is out; a cost that finds a player already at 0 says nothing.
    """
    opts = state.options
    lives, active = list(state.lives), list(state.active)
    events: List[Event] = []
    cannot_pay: List[int] = []
    for cost in costs:
        targets = [seat] if cost.who == "player" else [
            s for s in range(len(active)) if active[s] and s != seat]
        for target in targets:
            if opts.variant == "classic" and lives[target] == 0:
                cannot_pay.append(target)
                continue
            paid = max(cost.delta, -lives[target])
            if paid == 0:
                continue  # already out of lives from an earlier cost of this play: nothing to say
            lives[target] += paid
            events.append(LivesEvent(state.players[target], paid, lives[target], cost.reason))
    out = [s for s in range(len(active)) if active[s] and
           (s in cannot_pay or (opts.variant == "doksan" and lives[s] == 0))]
    if out and len(out) == sum(active):
        # [decided] A play that would leave no one standing: the player who made it wins.
        out.remove(seat)
    for s in out:
        active[s] = False
        events.append(Eliminated(state.players[s], "cannot_pay" if s in cannot_pay else "no_lives"))
    return lives, active, out, events


# --- the state ------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    options: Options
    players: Tuple[str, ...]
    lives: Tuple[int, ...]
    active: Tuple[bool, ...]
    hands: Tuple[Tuple[str, ...], ...]
    stock: Tuple[str, ...]        # stock[0] is drawn next
    discards: Tuple[str, ...]     # discards[-1] is the top card
    total: int = 0
    direction: int = 1            # 1 clockwise (seat order), -1 counterclockwise
    turn: int = 0                 # seat to play
    dealer: int = 0
    round: int = 1
    reshuffles: int = 0           # reshuffles so far in the game: seeds the next one
    seed: int = 0
    winner: Optional[int] = None

    def to_json(self) -> Dict:
        return {
            "version": SAVE_VERSION,
            "game": GAME,
            "options": {
                "variant": self.options.variant, "lives": self.options.lives,
                "decks": self.options.decks,
                "leaving_threshold_counts": self.options.leaving_threshold_counts,
                "total_may_go_negative": self.options.total_may_go_negative,
                "charge_passing_33_on_66": self.options.charge_passing_33_on_66,
            },
            "players": list(self.players), "lives": list(self.lives),
            "active": list(self.active), "hands": [list(h) for h in self.hands],
            "stock": list(self.stock), "discards": list(self.discards),
            "total": self.total, "direction": self.direction, "turn": self.turn,
            "dealer": self.dealer, "round": self.round, "reshuffles": self.reshuffles,
            "seed": self.seed, "winner": self.winner,
        }

    @classmethod
    def from_json(cls, data: Dict) -> "State":
        """Rebuild a saved state; ValueError with a readable reason if it is not one."""
        if not isinstance(data, dict) or data.get("game") != GAME:
            raise ValueError("this is not a saved Ninety-Nine game")
        if data.get("version") != SAVE_VERSION:
            raise ValueError(f"this save is from another version ({data.get('version')!r}, "
                             f"this program reads version {SAVE_VERSION})")
        try:
            state = cls(
                options=Options(**data["options"]),
                players=tuple(str(p) for p in data["players"]),
                lives=tuple(int(x) for x in data["lives"]),
                active=tuple(bool(x) for x in data["active"]),
                hands=tuple(tuple(parse_card(c) for c in h) for h in data["hands"]),
                stock=tuple(parse_card(c) for c in data["stock"]),
                discards=tuple(parse_card(c) for c in data["discards"]),
                total=int(data["total"]), direction=int(data["direction"]),
                turn=int(data["turn"]), dealer=int(data["dealer"]),
                round=int(data["round"]), reshuffles=int(data["reshuffles"]),
                seed=int(data["seed"]),
                winner=None if data["winner"] is None else int(data["winner"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError, InvalidCard) as exc:
            raise ValueError(f"the saved game is damaged ({str(exc)[:80]})") from None
        _check_consistent(state)
        return state

    def active_count(self) -> int:
        return sum(self.active)


def _check_consistent(state: State) -> None:
    n = len(state.players)
    if not 2 <= n <= MAX_PLAYERS or not (len(state.lives) == len(state.active)
                                         == len(state.hands) == n):
        raise ValueError("the saved game is damaged (player lists do not match)")
    cards = list(state.stock) + list(state.discards) + [c for h in state.hands for c in h]
    expected = count_cards(french_deck(state.options.deck_count(n)))
    if count_cards(cards) != expected:
        raise ValueError("the saved game is damaged (the cards do not add up to the deck)")
    if not 0 <= state.turn < n or not 0 <= state.dealer < n or state.direction not in (1, -1):
        raise ValueError("the saved game is damaged (turn, dealer or direction out of range)")
    if any(x < 0 for x in state.lives):
        raise ValueError("the saved game is damaged (negative lives)")
    if any(x > state.options.starting_lives(n) for x in state.lives):
        raise ValueError("the saved game is damaged (more lives than the game started with)")
    lowest = -10 * len(cards) if state.options.total_may_go_negative else 0
    highest = 99 if state.winner is None else 99 + 99  # the last play may go over 99
    if not lowest <= state.total <= highest:
        raise ValueError("the saved game is damaged (a total no play can reach)")
    if any(len(h) > HAND_SIZE or (h and not a) for h, a in zip(state.hands, state.active)):
        raise ValueError("the saved game is damaged (a hand that cannot be)")
    if state.reshuffles < 0:
        raise ValueError("the saved game is damaged (the turn or round is wrong)")
    check_seats(state)
    if state.options.variant == "doksan" and state.winner is None and any(
            a and x == 0 for a, x in zip(state.active, state.lives)):
        raise ValueError("the saved game is damaged (a player without lives is still in)")


def check_seats(state) -> None:
    """The turn, the round and the winner agree with who is still in (any state with players,
    active, turn, round and winner: the table mode's too); ValueError otherwise."""
    n = len(state.players)
    if state.round < 1 or (state.winner is None and not state.active[state.turn]):
        raise ValueError("the saved game is damaged (the turn or round is wrong)")
    if state.winner is None and sum(state.active) < 2:
        raise ValueError("the saved game is damaged (fewer than two players left)")
    if state.winner is not None and not (0 <= state.winner < n and state.active[state.winner]
                                         and sum(state.active) == 1):
        raise ValueError("the saved game is damaged (the winner is wrong)")


# --- setting up -----------------------------------------------------------------------


def _shuffled(cards: Sequence[str], seed: int, tag: str) -> List[str]:
    out = list(cards)
    random.Random(f"{seed}/{tag}").shuffle(out)
    return out


def new_game(players: Sequence[str], options: Options = Options(), seed: int = 0,
             deck: Optional[Sequence[str]] = None) -> State:
    """A new game. Round 1's dealer is the last seat, so seat 0 plays first.

    ``deck`` stacks the first deal: seat 0 gets the first three cards, seat 1 the next three,
    and so on; then the stock, first card drawn first; unlisted cards follow in seeded order.
    """
    names = tuple(str(p).strip() for p in players)
    if not 2 <= len(names) <= MAX_PLAYERS:
        raise ValueError(f"Ninety-Nine needs 2 to {MAX_PLAYERS} players, not {len(names)}")
    if len(set(n.lower() for n in names)) != len(names) or not all(names):
        raise ValueError("every player needs a different, non-empty name")
    full = french_deck(options.deck_count(len(names)))
    order = _shuffled(full, seed, "deal/1")
    if deck:
        order = stack_deck(deck, order)
    lives = options.starting_lives(len(names))
    state = State(options=options, players=names, lives=(lives,) * len(names),
                  active=(True,) * len(names), hands=((),) * len(names), stock=(),
                  discards=(), dealer=len(names) - 1, seed=seed)
    return _deal(state, order)


def _deal(state: State, order: Sequence[str]) -> State:
    hands = []
    at = 0
    for seat in range(len(state.players)):
        if state.active[seat]:
            hands.append(tuple(order[at:at + HAND_SIZE]))
            at += HAND_SIZE
        else:
            hands.append(())
    first = next_active(state, state.dealer, 1)
    return replace(state, hands=tuple(hands), stock=tuple(order[at:]), discards=(), total=0,
                   direction=1, turn=first)


def round_start_event(state) -> RoundStart:
    return RoundStart(state.round, state.players[state.dealer], state.players[state.turn])


def opening_events(state: State) -> List[Event]:
    """The events of a new game's first deal (the deal itself happened in ``new_game``)."""
    return [round_start_event(state)]


# --- queries --------------------------------------------------------------------------


def next_active(state, seat: int, direction: int) -> int:
    """The next seat still in, from ``seat`` in ``direction`` (any state with players and
    active: the table mode's too)."""
    n = len(state.players)
    for step in range(1, n + 1):
        candidate = (seat + direction * step) % n
        if state.active[candidate]:
            return candidate
    return seat


def is_over(state) -> bool:
    return state.winner is not None


def winner(state) -> Optional[str]:
    return None if state.winner is None else state.players[state.winner]


def current_player(state) -> int:
    return state.turn


def legal_actions(state: State) -> List[Play]:
    """Every distinct play for the player to move (an ace twice: 1 and 11)."""
    if is_over(state):
        return []
    actions: List[Play] = []
    for card in dict.fromkeys(state.hands[state.turn]):
        rank = rank_of(card)
        choices = value_choices(rank)
        if not choices:
            actions.append(Play(card))
        for value in choices:
            if state.total + value >= 0 or state.options.total_may_go_negative:
                actions.append(Play(card, value))
    return actions


def check(state: State, action: Play) -> None:
    """Raise IllegalAction unless ``action`` is legal now; its code says why.

    >>> s = new_game(["Ann", "Bob"], deck=["10S", "2S", "3S"])
    >>> s = replace(s, total=5)
    >>> try:
    ...     check(s, Play("10S", -10))
    ... except IllegalAction as refusal:
    ...     print(refusal.code, refusal.fields)
    below_zero {'total': 5}
    """
    if is_over(state):
        raise IllegalAction("game_over")
    if not isinstance(action, Play):
        raise IllegalAction("not_a_move")
    if action.card not in state.hands[state.turn]:
        raise IllegalAction("not_in_hand", card=action.card)
    rank = rank_of(action.card)
    choices = value_choices(rank)
    if choices and action.value not in choices:
        raise IllegalAction("value_needed", rank=rank)
    if not choices and action.value is not None:
        raise IllegalAction("no_value", rank=rank)
    if choices and state.total + action.value < 0 and not state.options.total_may_go_negative:
        raise IllegalAction("below_zero", total=state.total)


# --- applying a play ------------------------------------------------------------------


def apply(state: State, action: Play) -> Tuple[State, List[Event]]:
    """Play a card: the new state and what happened. Illegal actions raise IllegalAction."""
    check(state, action)
    opts = state.options
    seat = state.turn
    name = state.players[seat]
    rank = rank_of(action.card)
    before = state.total
    after, label = card_effect(opts.variant, rank, before, action.value)
    events: List[Event] = [PlayEvent(name, action.card, label, before, after)]

    hands = list(state.hands)
    hand = list(hands[seat])
    hand.remove(action.card)
    hands[seat] = tuple(hand)
    discards = state.discards + (action.card,)
    costs, round_over = penalties(opts, before, after)
    lives, active, out, charged = charge(state, seat, costs)
    events += charged
    for s in out:
        discards = discards[:-1] + hands[s] + discards[-1:]  # the top card stays on top
        hands[s] = ()

    state = replace(state, hands=tuple(hands), discards=discards, total=after,
                    lives=tuple(lives), active=tuple(active))
    if state.active_count() == 1:
        win = next(s for s in range(len(active)) if active[s])
        if round_over:
            events.append(round_end(state, seat, after))
        events.append(GameOver(state.players[win]))
        return replace(state, winner=win), events

    if round_over:
        events.append(round_end(state, seat, after))
        state = _next_round(state)
        events.append(round_start_event(state))
        events.append(Turn(state.players[state.turn]))
        return state, events

    direction = state.direction
    if state.active_count() > 2 and (rank == "4"):
        direction = -direction
        events.append(Reverse("clockwise" if direction == 1 else "counterclockwise"))
    state = replace(state, direction=direction)

    if state.active[seat]:
        state, drawn = _draw(state, seat)
        events.extend(drawn)

    following = next_active(state, seat, direction)
    if rank == "J" and opts.variant == "doksan":
        events.append(Skip(state.players[following]))
        following = next_active(state, following, direction)
    state = replace(state, turn=following)
    events.append(Turn(state.players[following]))
    return state, events


def round_end(state, seat: int, total: int) -> RoundEnd:
    name = state.players[seat]
    return RoundEnd(winner=name, loser=None) if total == 99 else RoundEnd(winner=None, loser=name)


def _draw(state: State, seat: int) -> Tuple[State, List[Event]]:
    events: List[Event] = []
    if not state.stock and len(state.discards) > 1:
        number = state.reshuffles + 1
        stock = tuple(_shuffled(state.discards[:-1], state.seed, f"reshuffle/{number}"))
        state = replace(state, stock=stock, discards=state.discards[-1:], reshuffles=number)
        events.append(Reshuffle(len(stock)))
    if not state.stock:
        return state, events  # every other card is in someone's hand: no card to draw
    card = state.stock[0]
    hands = list(state.hands)
    hands[seat] = hands[seat] + (card,)
    events.append(Draw(state.players[seat], card))
    return replace(state, hands=tuple(hands), stock=state.stock[1:]), events


def _next_round(state: State) -> State:
    """Gather every card, shuffle, rotate the dealer and deal three each."""
    number = state.round + 1
    full = french_deck(state.options.deck_count(len(state.players)))
    dealer = next_active(state, state.dealer, 1)
    state = replace(state, round=number, dealer=dealer)
    return _deal(state, _shuffled(full, state.seed, f"deal/{number}"))


# --- what one seat may see ------------------------------------------------------------


@dataclass(frozen=True)
class View:
    """What ``seat`` knows at a real table: its own hand and everything played face up."""

    seat: int
    options: Options
    players: Tuple[str, ...]
    lives: Tuple[int, ...]
    active: Tuple[bool, ...]
    hand: Tuple[str, ...]
    hand_sizes: Tuple[int, ...]
    total: int
    direction: int
    turn: int
    dealer: int
    round: int
    stock_size: int
    discards: Tuple[str, ...]   # face up since the last reshuffle or deal
    legal: Tuple[Play, ...] = field(default_factory=tuple)


def view(state: State, seat: int) -> View:
    return View(seat, state.options, state.players, state.lives, state.active,
                state.hands[seat], tuple(len(h) for h in state.hands), state.total,
                state.direction, state.turn, state.dealer, state.round, len(state.stock),
                state.discards,
                tuple(legal_actions(state)) if state.turn == seat and not is_over(state) else ())
