"""Table mode for the Ninety-Nine family: the referee and scorekeeper of a real deck.

Friends play with real cards; the program keeps what a referee keeps: the total, the turn,
the direction, the lives, which ranks have been played (a fifth king with one deck is
refused) and how many cards are left in the stock. There are no hands: a play is a rank
(and a value for an ace or a ten), said by the player whose turn it is.

The rules are not copied: the arithmetic is ``ninety_nine.card_effect``, the scoring
``ninety_nine.penalties`` and ``ninety_nine.charge``, and the events are ``ninety_nine``'s own (``PlayEvent``,
``LivesEvent``, ``Eliminated``, ``Skip``, ``Reverse``, ``Reshuffle``, ``RoundStart``,
``RoundEnd``, ``Turn``, ``GameOver``), so an events file reads like one of ``play``. The one
difference: ``PlayEvent.card`` is the rank code alone ("7", "10", "K"), as no suit is known.

What is countable at a real table: three cards are dealt to each active player; after every
play the player draws one (if the player is still in), so the stock is the deck minus three
per active player at the deal, one less per draw. When a player must draw from an empty
stock the top discard stays and the rest is shuffled into a new stock (``Reshuffle``); the
played-rank counts restart from that top card. When few cards are left, ``StockLow`` says so.

Corrections are actions too (not in ``legal_actions``, so bots and random games never make
them): ``TableUndo`` takes the last play back, ``TableCorrect`` replaces it by another rank
("no, it was an eight"), ``TableSetTotal`` sets the total ("the total is 45").

>>> s = new_game(["Ann", "Bob", "Cem"])
>>> s.cards_left, s.turn
(43, 0)
>>> s, events = apply(s, TablePlay("7"))
>>> s.total, events[0].to_json()
(7, {'type': 'play', 'player': 'Ann', 'card': '7', 'value': 7, 'total_before': 0, 'total': 7})
>>> s.cards_left, s.players[s.turn]
(42, 'Bob')
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Dict, List, Optional, Sequence, Tuple

from engine import ninety_nine as nn
from engine.api import IllegalAction
from engine.ninety_nine import (GameOver, Options, PlayEvent, Reshuffle,
                                Reverse, Skip, Turn, card_effect, penalties, value_choices)
from engine.records import Action, Event

GAME = "ninety-nine-table"
SAVE_VERSION = 1
PLAYERS = nn.PLAYERS
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS_PER_DECK = 4
BOTS: Dict = {}  # no bots: every seat is a person at the real table
LOW_STOCK = 3  # "2 cards left in the stock" from here down


# --- actions and the events of its own ------------------------------------------------


@dataclass(frozen=True)
class TablePlay(Action):
    """The player to move played a card of ``rank``; ``value`` 1/11 (ace) or 10/-10 (ten)."""

    type = "table_play"
    rank: str
    value: Optional[int] = None


@dataclass(frozen=True)
class TableUndo(Action):
    """Take the last play (or total setting) back: it was announced wrongly."""

    type = "table_undo"


@dataclass(frozen=True)
class TableCorrect(Action):
    """The last play was another card: take it back and play ``rank`` for the same player."""

    type = "table_correct"
    rank: str
    value: Optional[int] = None


@dataclass(frozen=True)
class TableSetTotal(Action):
    """The players agree the total is ``total`` (the referee misheard, or they misplayed)."""

    type = "table_set_total"
    total: int


@dataclass(frozen=True)
class Undone(Event):
    type = "undone"
    player: str   # whose play was taken back
    total: int    # the total again


@dataclass(frozen=True)
class TotalSet(Event):
    type = "total_set"
    total: int
    total_before: int


@dataclass(frozen=True)
class StockLow(Event):
    type = "stock_low"
    cards: int    # left in the stock after the draw


# --- the state ------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    options: Options
    players: Tuple[str, ...]
    lives: Tuple[int, ...]
    active: Tuple[bool, ...]
    total: int = 0
    direction: int = 1
    turn: int = 0
    dealer: int = 0
    round: int = 1
    decks: int = 1
    played: Tuple[int, ...] = (0,) * len(RANKS)  # per rank since the deal or reshuffle
    cards_left: int = 0                             # in the stock
    winner: Optional[int] = None
    previous: Optional["State"] = None              # before the last play: for undo

    def active_count(self) -> int:
        return sum(self.active)

    def played_count(self, rank: str) -> int:
        return self.played[RANKS.index(rank)]

    def to_json(self, with_previous: bool = True) -> Dict:
        return {
            "version": SAVE_VERSION, "game": GAME,
            "options": asdict(self.options),
            "players": list(self.players), "lives": list(self.lives),
            "active": list(self.active), "total": self.total, "direction": self.direction,
            "turn": self.turn, "dealer": self.dealer, "round": self.round,
            "decks": self.decks, "played": list(self.played), "cards_left": self.cards_left,
            "winner": self.winner,
            "previous": self.previous.to_json(False)
            if with_previous and self.previous is not None else None,
        }

    @classmethod
    def from_json(cls, data: Dict, nested: bool = False) -> "State":
        if not isinstance(data, dict) or data.get("game") != GAME:
            raise ValueError("this is not a saved Ninety-Nine table game")
        if data.get("version") != SAVE_VERSION:
            raise ValueError(f"this save is from another version ({data.get('version')!r}, "
                             f"this program reads version {SAVE_VERSION})")
        try:
            previous = data.get("previous")
            state = cls(
                options=Options(**data["options"]),
                players=tuple(str(p) for p in data["players"]),
                lives=tuple(int(x) for x in data["lives"]),
                active=tuple(bool(x) for x in data["active"]),
                total=int(data["total"]), direction=int(data["direction"]),
                turn=int(data["turn"]), dealer=int(data["dealer"]), round=int(data["round"]),
                decks=int(data["decks"]), played=tuple(int(x) for x in data["played"]),
                cards_left=int(data["cards_left"]),
                winner=None if data["winner"] is None else int(data["winner"]),
                previous=None if previous is None or nested
                else cls.from_json(previous, nested=True),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"the saved game is damaged ({str(exc)[:80]})") from None
        _check_consistent(state)
        return state


def _check_consistent(state: State) -> None:
    n = len(state.players)
    if not PLAYERS[0] <= n <= PLAYERS[1] or not len(state.lives) == len(state.active) == n:
        raise ValueError("the saved game is damaged (player lists do not match)")
    if len(set(p.lower() for p in state.players)) != n or not all(state.players):
        raise ValueError("the saved game is damaged (the names)")
    if not 0 <= state.turn < n or not 0 <= state.dealer < n or state.direction not in (1, -1):
        raise ValueError("the saved game is damaged (turn, dealer or direction out of range)")
    if any(not 0 <= x <= state.options.starting_lives(n) for x in state.lives):
        raise ValueError("the saved game is damaged (lives)")
    deck = SUITS_PER_DECK * len(RANKS) * state.decks
    if state.decks not in (1, 2, 3) or len(state.played) != len(RANKS) or any(
            not 0 <= x <= SUITS_PER_DECK * state.decks for x in state.played) \
            or not 0 <= state.cards_left <= deck:
        raise ValueError("the saved game is damaged (the cards do not add up)")
    nn.check_seats(state)


# --- setting up -----------------------------------------------------------------------


def new_game(players: Sequence[str], options: Options = Options(), seed: int = 0,
             deck: Optional[Sequence[str]] = None, dealer: Optional[int] = None) -> State:
    """A new table. Round 1 is dealt by ``dealer`` (a seat; by default the last, so the
    first seat starts), and the seat after the dealer starts.
    ``seed`` and ``deck`` are accepted for the protocol and ignored: the deck is real.

    >>> s = new_game(["Ann", "Bob", "Cem"], dealer=0)
    >>> s.players[s.dealer], s.players[s.turn]
    ('Ann', 'Bob')
    """
    names = tuple(str(p).strip() for p in players)
    if not PLAYERS[0] <= len(names) <= PLAYERS[1]:
        raise ValueError(f"Ninety-Nine needs {PLAYERS[0]} to {PLAYERS[1]} players, "
                         f"not {len(names)}")
    if len(set(n.lower() for n in names)) != len(names) or not all(names):
        raise ValueError("every player needs a different, non-empty name")
    if dealer is None:
        dealer = len(names) - 1
    if not 0 <= dealer < len(names):
        raise ValueError(f"the dealer must be one of the {len(names)} seats")
    state = State(options=options, players=names,
                  lives=(options.starting_lives(len(names)),) * len(names),
                  active=(True,) * len(names), dealer=dealer,
                  decks=options.deck_count(len(names)))
    return _deal(state)


def _deck_size(state: State) -> int:
    return SUITS_PER_DECK * len(RANKS) * state.decks


def _deal(state: State) -> State:
    return replace(state, total=0, direction=1, turn=next_active(state, state.dealer, 1),
                   played=(0,) * len(RANKS),
                   cards_left=_deck_size(state) - nn.HAND_SIZE * state.active_count())


def opening_events(state: State) -> List[Event]:
    return [nn.round_start_event(state)]


# --- queries --------------------------------------------------------------------------


# The seat queries are Ninety-Nine's own: they need only players, active, turn and winner.
next_active, is_over, winner, current_player = (
    nn.next_active, nn.is_over, nn.winner, nn.current_player)


def legal_actions(state: State) -> List[TablePlay]:
    """Every rank not used up, with each value that keeps the total at 0 or more."""
    if is_over(state):
        return []
    actions: List[TablePlay] = []
    for rank in RANKS:
        if state.played_count(rank) >= SUITS_PER_DECK * state.decks:
            continue
        choices = value_choices(rank)
        if not choices:
            actions.append(TablePlay(rank))
        for value in choices:
            if state.total + value >= 0 or state.options.total_may_go_negative:
                actions.append(TablePlay(rank, value))
    return actions


def _check_play(state: State, rank: str, value: Optional[int]) -> None:
    if rank not in RANKS:
        raise IllegalAction("not_a_move")
    choices = value_choices(rank)
    if choices and value not in choices:
        raise IllegalAction("value_needed", rank=rank)
    if not choices and value is not None:
        raise IllegalAction("no_value", rank=rank)
    if state.played_count(rank) >= SUITS_PER_DECK * state.decks:
        raise IllegalAction("rank_exhausted", rank=rank, count=state.played_count(rank))
    if choices and state.total + value < 0 and not state.options.total_may_go_negative:
        raise IllegalAction("below_zero", total=state.total)


def check(state: State, action: Action) -> None:
    """Raise IllegalAction unless ``action`` is allowed now; its code says why.

    >>> s = new_game(["Ann", "Bob"])
    >>> try:
    ...     check(s, TablePlay("10", -10))
    ... except IllegalAction as refusal:
    ...     print(refusal.code, refusal.fields)
    below_zero {'total': 0}
    """
    if is_over(state):
        raise IllegalAction("game_over")
    if isinstance(action, TablePlay):
        _check_play(state, action.rank, action.value)
    elif isinstance(action, TableUndo):
        if state.previous is None:
            raise IllegalAction("nothing_to_undo")
    elif isinstance(action, TableCorrect):
        if state.previous is None or state.previous.round != state.round:
            raise IllegalAction("nothing_to_undo")
        _check_play(state.previous, action.rank, action.value)
    elif isinstance(action, TableSetTotal):
        lowest = None if state.options.total_may_go_negative else 0
        if not isinstance(action.total, int) or action.total > 98 or (
                lowest is not None and action.total < lowest):
            raise IllegalAction("total_out_of_range", total=action.total)
    else:
        raise IllegalAction("not_a_move")


# --- applying -------------------------------------------------------------------------


def apply(state: State, action: Action) -> Tuple[State, List[Event]]:
    check(state, action)
    if isinstance(action, TableUndo):
        before = state.previous
        return before, [Undone(state.players[before.turn], before.total)]
    if isinstance(action, TableCorrect):
        before = state.previous
        after, events = _play(before, action.rank, action.value)
        return after, [Undone(before.players[before.turn], before.total)] + events
    if isinstance(action, TableSetTotal):
        return (replace(state, total=action.total, previous=_remembered(state)),
                [TotalSet(action.total, state.total), Turn(state.players[state.turn])])
    return _play(state, action.rank, action.value)


def _remembered(state: State) -> State:
    return replace(state, previous=None)


def _play(state: State, rank: str, value: Optional[int]) -> Tuple[State, List[Event]]:
    opts = state.options
    seat = state.turn
    start = _remembered(state)
    before = state.total
    after, label = card_effect(opts.variant, rank, before, value)
    events: List[Event] = [PlayEvent(state.players[seat], rank, label, before, after)]
    played = list(state.played)
    played[RANKS.index(rank)] += 1
    costs, round_over = penalties(opts, before, after)
    lives, active, _, charged = nn.charge(state, seat, costs)  # exactly as ninety_nine.apply
    events += charged

    state = replace(state, total=after, lives=tuple(lives), active=tuple(active),
                    played=tuple(played), previous=start)
    if state.active_count() == 1:
        win = active.index(True)
        if round_over:
            events.append(nn.round_end(state, seat, after))
        events.append(GameOver(state.players[win]))
        return replace(state, winner=win), events

    if round_over:
        events.append(nn.round_end(state, seat, after))
        state = _deal(replace(state, round=state.round + 1,
                              dealer=next_active(state, state.dealer, 1)))
        events += [nn.round_start_event(state), Turn(state.players[state.turn])]
        return state, events

    direction = state.direction
    if state.active_count() > 2 and rank == "4":
        direction = -direction
        events.append(Reverse("clockwise" if direction == 1 else "counterclockwise"))
    state = replace(state, direction=direction)

    if state.active[seat]:  # the player draws one card
        cards_left = state.cards_left
        if cards_left == 0:
            # keep the top card, shuffle the other discards: everything not in a hand
            cards_left = _deck_size(state) - nn.HAND_SIZE * state.active_count()
            played = [0] * len(RANKS)
            played[RANKS.index(rank)] = 1
            state = replace(state, played=tuple(played))
            events.append(Reshuffle(cards_left))
        cards_left = max(cards_left - 1, 0)
        state = replace(state, cards_left=cards_left)
        if cards_left <= LOW_STOCK:
            events.append(StockLow(cards_left))

    following = next_active(state, seat, direction)
    if rank == "J" and opts.variant == "doksan":
        events.append(Skip(state.players[following]))
        following = next_active(state, following, direction)
    state = replace(state, turn=following)
    events.append(Turn(state.players[following]))
    return state, events


# --- what a seat knows: everything (the cards are in the players' hands) --------------


@dataclass(frozen=True)
class View:
    seat: int
    options: Options
    players: Tuple[str, ...]
    lives: Tuple[int, ...]
    active: Tuple[bool, ...]
    total: int
    direction: int
    turn: int
    dealer: int
    round: int
    cards_left: int
    legal: Tuple[TablePlay, ...] = ()


def view(state: State, seat: int) -> View:
    return View(seat, state.options, state.players, state.lives, state.active, state.total,
                state.direction, state.turn, state.dealer, state.round, state.cards_left,
                tuple(legal_actions(state)) if state.turn == seat and not is_over(state)
                else ())
