"""Sixty-Six (Altmışaltı): two players, 24 cards, race to 66 card points per hand.

Rules: shared/rules/sixty-six.md (the project's own account: docs/rules.md). The state is an immutable value; ``apply`` returns a
new state and the events an announcer needs. When a hand ends the next one is dealt in the
same ``apply`` call (events ``hand_end`` then ``deal``), so the loop only ever asks
``current_player`` and ``legal_actions``.

A claim is made on one's turn, and also right after a marriage that brings the declarer to 66
(with a trick won, so the marriage counts), before the opponent plays to that trick. That
moment is a short *claim window*: the marriage card is on the table but the turn stays with
the declarer (``state.claim_window``, shown in ``view``), whose only moves are ``PlayOn``
("play_on": do not claim now; the opponent plays to the trick, event ``play_on``) and
``Claim`` (last, as in every ``legal_actions`` list). A turn of its own, rather than letting
the player who is not on turn claim, keeps the one-player-to-move loop every caller relies
on; declining loses nothing but the moment (a claim is still allowed at each later turn).

>>> s = new_game(["Ada", "Bo"], seed=1)
>>> current_player(s), len(s.hands[0]), len(s.stock)
(0, 6, 12)
>>> s2, events = apply(s, legal_actions(s)[0])
>>> events[0].type
'play'
"""
from __future__ import annotations

import random
from dataclasses import dataclass, fields
from typing import Any, Dict, List, Optional, Sequence, Tuple

from engine.api import IllegalAction
from engine.cards import rank_of, stack_deck, suit_of
from engine.records import Action, Event

GAME = "sixty-six"
SAVE_VERSION = 1
PLAYERS = (2, 2)
RANKS: Tuple[str, ...] = ("9", "J", "Q", "K", "10", "A")  # low to high trick strength
SUITS: Tuple[str, ...] = ("S", "H", "D", "C")
DECK: Tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
VALUES: Dict[str, int] = {c: (0, 2, 3, 4, 10, 11)[RANKS.index(rank_of(c))] for c in DECK}
STRENGTH: Dict[str, int] = {c: RANKS.index(rank_of(c)) for c in DECK}
WINNING_POINTS = 66
LAST_TRICK_BONUS = 10
MARRIAGE_POINTS = 20
TRUMP_MARRIAGE_POINTS = 40

Pair = Tuple[Tuple[str, ...], Tuple[str, ...]]


# ----------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class Play(Action):
    type = "play"
    card: str


@dataclass(frozen=True)
class Marriage(Action):
    """Lead the king or queen of a marriage, showing the other one."""

    type = "marriage"
    card: str


@dataclass(frozen=True)
class Exchange(Action):
    """Swap the trump nine for the face-up trump card."""

    type = "exchange"


@dataclass(frozen=True)
class Close(Action):
    type = "close"


@dataclass(frozen=True)
class Claim(Action):
    """Claim 66 ("stop"): count now and end the hand."""

    type = "claim"


@dataclass(frozen=True)
class PlayOn(Action):
    """In the claim window after a marriage: do not claim now; the opponent plays to the trick."""

    type = "play_on"


# ----------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Dealt(Event):
    type = "deal"
    dealer: str
    trump_card: str
    hand: int


@dataclass(frozen=True)
class Played(Event):
    type = "play"
    player: str
    card: str


@dataclass(frozen=True)
class TrickWon(Event):
    type = "trick"
    winner: str
    cards: Tuple[str, ...]
    points: int


@dataclass(frozen=True)
class MarriageDeclared(Event):
    type = "marriage"
    player: str
    suit: str
    points: int
    credited: bool  # False until the player has won a trick


@dataclass(frozen=True)
class Exchanged(Event):
    type = "exchange"
    player: str
    card: str  # the face-up card taken; the trump nine now lies face up


@dataclass(frozen=True)
class Closed(Event):
    type = "close"
    player: str


@dataclass(frozen=True)
class Drew(Event):
    type = "draw"
    player: str
    count: int
    face_up: Optional[str] = None  # set only when the (public) face-up trump card is drawn


@dataclass(frozen=True)
class Claimed(Event):
    type = "claim"
    player: str
    points: int
    success: bool


@dataclass(frozen=True)
class PlayedOn(Event):
    type = "play_on"
    player: str  # who let the claim window pass; the opponent now plays to the trick


@dataclass(frozen=True)
class HandEnded(Event):
    type = "hand_end"
    winner: str
    game_points: int
    score: Dict[str, int]
    reason: str  # claim, failed_claim, played_out, failed_close
    points: Dict[str, int]  # card points of each player at the end
    last_trick_bonus: Optional[str] = None  # who took the 10 for the last trick, if anyone


@dataclass(frozen=True)
class GameOver(Event):
    type = "game_over"
    winner: str


# ----------------------------------------------------------------------------- state


ALLOWED_TARGETS = (7, 11, 15, 16)


@dataclass(frozen=True)
class Options:
    target: int = 7  # game points to win the match
    must_win_trick: bool = False  # pagat: in the strict phase, head the trick if you can
    no_last_trick_bonus_after_close: bool = False  # Austrian/German: no 10 after a close

    def __post_init__(self) -> None:
        if self.target not in ALLOWED_TARGETS:
            raise ValueError(f"target must be one of {ALLOWED_TARGETS}, not {self.target!r}")
        if not isinstance(self.must_win_trick, bool):
            raise ValueError("must_win_trick must be true or false")
        if not isinstance(self.no_last_trick_bonus_after_close, bool):
            raise ValueError("no_last_trick_bonus_after_close must be true or false")


@dataclass(frozen=True)
class State:
    players: Tuple[str, str]
    options: Options
    seed: int
    hand_number: int
    dealer: int
    hands: Pair
    stock: Tuple[str, ...]  # drawn first to last; the face-up trump card is the last one
    trump_card: str  # the face-up card (the trump nine after an exchange), remembered once drawn
    trump_suit: str
    closed_by: Optional[int]
    leader: int
    turn: int
    table: Optional[str]  # the led card of the trick in progress
    won: Pair  # cards each seat has taken, leader's card first in each trick
    marriages: Pair  # suits each seat has declared this hand
    shown: Pair  # cards each seat has shown: marriage partners, exchange, the drawn face-up card
    voids: Pair  # suits each seat has shown it lacks (strict phase)
    last_trick: Tuple[str, ...]
    last_trick_winner: Optional[int]
    last_trick_bonus: Optional[int]  # seat that took the 10 for the last trick
    score: Tuple[int, int]
    match_winner: Optional[int]
    claim_window: bool = False  # the declarer of a marriage reaching 66 may claim now

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"game": GAME, "version": SAVE_VERSION}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "options":
                value = {"target": value.target, "must_win_trick": value.must_win_trick,
                         "no_last_trick_bonus_after_close":
                             value.no_last_trick_bonus_after_close}
            out[f.name] = _jsonable(value)
        return out

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "State":
        """Rebuild a state; ValueError with a readable message if the data is not a valid one."""
        if not isinstance(data, dict) or data.get("game", GAME) != GAME:
            raise ValueError("this is not a saved Sixty-Six game")
        if data.get("version", SAVE_VERSION) != SAVE_VERSION:
            raise ValueError(f"this save is from another version ({data.get('version')!r}, "
                             f"this program reads version {SAVE_VERSION})")
        names = [f.name for f in fields(cls)]
        missing = [n for n in names if n not in data and n not in _OPTIONAL_IN_SAVES]
        if missing:
            raise ValueError(f"the Sixty-Six save is missing {', '.join(missing)}")
        try:
            opts = data["options"]
            options = Options(target=opts["target"], must_win_trick=opts["must_win_trick"],
                              no_last_trick_bonus_after_close=opts.get(
                                  "no_last_trick_bonus_after_close", False))  # older saves
            state = cls(
                players=_str_tuple(data["players"]),
                options=options,
                seed=_int(data["seed"]),
                hand_number=_int(data["hand_number"]),
                dealer=_seat(data["dealer"]),
                hands=_pair(data["hands"]),
                stock=_str_tuple(data["stock"]),
                trump_card=str(data["trump_card"]),
                trump_suit=str(data["trump_suit"]),
                closed_by=_opt_seat(data["closed_by"]),
                leader=_seat(data["leader"]),
                turn=_seat(data["turn"]),
                table=None if data["table"] is None else str(data["table"]),
                won=_pair(data["won"]),
                marriages=_pair(data["marriages"]),
                shown=_pair(data["shown"]),
                voids=_pair(data["voids"]),
                last_trick=_str_tuple(data["last_trick"]),
                last_trick_winner=_opt_seat(data["last_trick_winner"]),
                last_trick_bonus=_opt_seat(data["last_trick_bonus"]),
                score=_int_pair(data["score"]),
                match_winner=_opt_seat(data["match_winner"]),
                claim_window=_bool(data.get("claim_window", False)),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"the Sixty-Six save is malformed ({exc})") from None
        _check_consistent(state)
        return state


_OPTIONAL_IN_SAVES = ("claim_window",)  # added later: older saves load with the default


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected a whole number, got {value!r}")
    return value


def _seat(value: Any) -> int:
    if _int(value) not in (0, 1):
        raise ValueError(f"a seat must be 0 or 1, not {value!r}")
    return value


def _opt_seat(value: Any) -> Optional[int]:
    return None if value is None else _seat(value)


def _str_tuple(value: Any) -> Tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"expected a list of strings, got {value!r}")
    return tuple(value)


def _pair(value: Any) -> Pair:
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError(f"expected a pair of lists, got {value!r}")
    return (_str_tuple(value[0]), _str_tuple(value[1]))


def _int_pair(value: Any) -> Tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError(f"expected two numbers, got {value!r}")
    return (_int(value[0]), _int(value[1]))


def _check_consistent(s: State) -> None:
    if len(s.players) != 2:
        raise ValueError("Sixty-Six needs exactly two players")
    cards = list(s.hands[0] + s.hands[1] + s.stock + s.won[0] + s.won[1])
    if s.table is not None:
        cards.append(s.table)
    bad = [c for c in cards if c not in VALUES]
    if bad:
        raise ValueError(f"{bad[0]!r} is not a Sixty-Six card")
    if sorted(cards) != sorted(DECK):
        raise ValueError("the save does not hold the 24 cards exactly once")
    if s.trump_card not in VALUES or s.trump_suit != suit_of(s.trump_card):
        raise ValueError("the trump card and trump suit do not match")
    if s.stock and s.stock[-1] != s.trump_card:
        raise ValueError("the face-up trump card must be the last card of the stock")
    for pair in (s.marriages, s.voids):
        if any(suit not in SUITS for side in pair for suit in side):
            raise ValueError("a marriage or void names an unknown suit")
    if s.claim_window and (s.table is None or s.turn != s.leader
                           or s.table[-1] not in s.marriages[s.turn] or not s.won[s.turn]
                           or card_points(s, s.turn) < WINNING_POINTS):
        raise ValueError("a claim window is open only after a marriage that reaches 66")
    follower = 1 - s.leader
    on_turn = s.leader if s.table is None or s.claim_window else follower
    if s.match_winner is None and s.turn != on_turn:
        raise ValueError("the turn does not follow the trick in progress")
    led = 1 if s.table is not None else 0
    if len(s.hands[s.leader]) + led != len(s.hands[follower]) or len(s.hands[follower]) > 6:
        raise ValueError("the hands do not hold the cards a trick leaves")
    if any(len(w) % 2 for w in s.won) or len(s.stock) % 2 or len(s.stock) > 12:
        raise ValueError("the tricks or the stock cannot be")
    if any(x < 0 for x in s.score) or (s.match_winner is None
                                       and max(s.score) >= s.options.target):
        raise ValueError("the score cannot be")
    if s.match_winner is not None and s.score[s.match_winner] < s.options.target:
        raise ValueError("the match winner has not reached the target")


def _replace(state: State, **changes: Any) -> State:
    """A fast dataclasses.replace for this frozen class (apply is the engine's hot path)."""
    new = object.__new__(State)
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


# ----------------------------------------------------------------------------- setup


def _hand_rng(seed: int, hand_number: int) -> random.Random:
    return random.Random(f"sixty-six:{seed}:{hand_number}")


def new_game(
    players: Sequence[str],
    options: Options = Options(),
    seed: int = 0,
    deck: Optional[Sequence[str]] = None,
) -> State:
    """Start a match. ``deck`` stacks the first deal: seat 0's six cards, seat 1's six, the
    face-up trump card, then the stock drawn first to last; unlisted cards follow shuffled."""
    names = tuple(str(p) for p in players)
    if len(names) != 2:
        raise ValueError(f"Sixty-Six is for exactly two players, not {len(names)}")
    if names[0] == names[1]:
        raise ValueError("the two players need different names")
    order = _hand_rng(seed, 1).sample(DECK, len(DECK))
    if deck is not None:
        order = stack_deck(deck, order, "the 24 Sixty-Six cards (9 to ace)")
    base = State(
        players=(names[0], names[1]), options=options, seed=seed, hand_number=0, dealer=0,
        hands=((), ()), stock=(), trump_card=order[12], trump_suit=suit_of(order[12]),
        closed_by=None, leader=0, turn=0, table=None, won=((), ()), marriages=((), ()),
        shown=((), ()), voids=((), ()), last_trick=(), last_trick_winner=None,
        last_trick_bonus=None, score=(0, 0), match_winner=None,
    )
    state, _ = _deal(base, order, dealer=1)
    return state


def _deal(state: State, order: Sequence[str], dealer: int) -> Tuple[State, List[Event]]:
    lead = 1 - dealer
    hands: List[Tuple[str, ...]] = [(), ()]
    hands[lead] = tuple(order[0:6])
    hands[dealer] = tuple(order[6:12])
    trump = order[12]
    new = _replace(
        state, hand_number=state.hand_number + 1, dealer=dealer, hands=(hands[0], hands[1]),
        stock=tuple(order[13:]) + (trump,), trump_card=trump, trump_suit=suit_of(trump),
        closed_by=None, leader=lead, turn=lead, table=None, won=((), ()), marriages=((), ()),
        shown=((), ()), voids=((), ()), last_trick=(), last_trick_winner=None,
        last_trick_bonus=None, claim_window=False,
    )
    return new, [Dealt(state.players[dealer], trump, new.hand_number)]


# ----------------------------------------------------------------------------- queries


def current_player(state: State) -> int:
    return state.turn


def is_over(state: State) -> bool:
    return state.match_winner is not None


def winner(state: State) -> Optional[str]:
    return None if state.match_winner is None else state.players[state.match_winner]


def stock_open(state: State) -> bool:
    """Cards can still be drawn: the stock is neither closed nor exhausted."""
    return bool(state.stock) and state.closed_by is None


def marriage_points(suit: str, trump_suit: str) -> int:
    return TRUMP_MARRIAGE_POINTS if suit == trump_suit else MARRIAGE_POINTS


def card_points(state: State, seat: int) -> int:
    """Trick points plus credited marriages plus the last-trick bonus."""
    won = state.won[seat]
    points = sum(map(_VALUE_OF, won))
    if won:
        points += sum(marriage_points(s, state.trump_suit) for s in state.marriages[seat])
    if state.last_trick_bonus == seat:
        points += LAST_TRICK_BONUS
    return points


def tricks_won(state: State, seat: int) -> int:
    return len(state.won[seat]) // 2


def beats(second: str, first: str, trump_suit: str) -> bool:
    """Does ``second``, played to the led ``first``, win the trick?"""
    s2, s1 = second[-1], first[-1]
    if s2 == s1:
        return STRENGTH[second] > STRENGTH[first]
    return s2 == trump_suit


_VALUE_OF = VALUES.__getitem__
_PLAY = {c: Play(c) for c in DECK}
_MARRY = {c: Marriage(c) for c in DECK if rank_of(c) in ("K", "Q")}


_EXCHANGE, _CLOSE, _CLAIM, _PLAY_ON = Exchange(), Close(), Claim(), PlayOn()


def partner(card: str) -> str:
    return ("Q" if card[0] == "K" else "K") + card[-1]


def follow_options(hand: Sequence[str], led: str, trump_suit: str, must_win: bool) -> List[str]:
    """Cards the second player may play in the strict phase."""
    suit = led[-1]
    same = [c for c in hand if c[-1] == suit]
    if same:
        if must_win:
            higher = [c for c in same if STRENGTH[c] > STRENGTH[led]]
            if higher:
                return higher
        return same
    trumps = [c for c in hand if c[-1] == trump_suit]
    return trumps if trumps else list(hand)


def legal_actions(state: State) -> List[Action]:
    if state.match_winner is not None:
        return []
    if state.claim_window:
        return [_PLAY_ON, _CLAIM]  # Claim stays the last legal action, as everywhere
    seat = state.turn
    hand = state.hands[seat]
    actions: List[Action]
    is_open = state.closed_by is None and bool(state.stock)
    if state.table is None:
        actions = [_PLAY[c] for c in hand]
        if is_open:
            actions.extend(_MARRY[c] for c in hand if c in _MARRY and partner(c) in hand)
            if _can_exchange(state, seat):
                actions.append(_EXCHANGE)
            actions.append(_CLOSE)
    elif is_open:
        actions = [_PLAY[c] for c in hand]
    else:
        options = follow_options(hand, state.table, state.trump_suit, state.options.must_win_trick)
        actions = [_PLAY[c] for c in options]
    actions.append(_CLAIM)
    return actions


def _can_exchange(state: State, seat: int) -> bool:
    return ("9" + state.trump_suit) in state.hands[seat] and bool(state.won[seat]) \
        and stock_open(state) and state.table is None


# ----------------------------------------------------------------------------- view


@dataclass(frozen=True)
class View:
    """What one seat may know at a real table (with perfect memory of what was shown)."""

    seat: int
    players: Tuple[str, str]
    options: Options
    hand: Tuple[str, ...]
    trump_suit: str
    trump_card: str  # the face-up card, or the last one that was face up
    face_up: Optional[str]  # the trump card if it still lies face up under an open stock
    stock_count: int  # cards left to draw, the trump card included
    closed_by: Optional[int]
    table: Optional[str]
    leader: int
    turn: int
    my_points: int
    opponent_points: int
    my_tricks: int
    opponent_tricks: int
    won: Pair  # cards each seat has taken this hand (seen as they were played)
    marriages: Pair
    opponent_known: Tuple[str, ...]  # cards the opponent has shown and still holds
    opponent_hand_size: int
    voids: Pair
    last_trick: Tuple[str, ...]
    last_trick_winner: Optional[int]
    score: Tuple[int, int]
    dealer: int
    hand_number: int
    legal: Tuple[Action, ...]  # empty unless it is this seat's turn
    claim_window: bool = False  # the player on turn just married into 66: claim or play on

    @property
    def played(self) -> Tuple[str, ...]:
        """Every card played this hand, the one on the table included."""
        table = (self.table,) if self.table else ()
        return self.won[0] + self.won[1] + table


def view(state: State, seat: int) -> View:
    if seat not in (0, 1):
        raise ValueError(f"a seat must be 0 or 1, not {seat!r}")
    other = 1 - seat
    opp_hand = state.hands[other]
    return View(
        seat=seat, players=state.players, options=state.options, hand=state.hands[seat],
        trump_suit=state.trump_suit, trump_card=state.trump_card,
        face_up=state.stock[-1] if stock_open(state) else None, stock_count=len(state.stock),
        closed_by=state.closed_by, table=state.table, leader=state.leader, turn=state.turn,
        my_points=card_points(state, seat), opponent_points=card_points(state, other),
        my_tricks=tricks_won(state, seat), opponent_tricks=tricks_won(state, other),
        won=state.won, marriages=state.marriages,
        opponent_known=tuple(c for c in state.shown[other] if c in opp_hand),
        opponent_hand_size=len(opp_hand), voids=state.voids, last_trick=state.last_trick,
        last_trick_winner=state.last_trick_winner, score=state.score, dealer=state.dealer,
        hand_number=state.hand_number,
        legal=tuple(legal_actions(state)) if state.turn == seat and not is_over(state) else (),
        claim_window=state.claim_window,
    )


# ----------------------------------------------------------------------------- apply


def _refuse_play(state: State, card: str) -> None:
    hand = state.hands[state.turn]
    if card not in hand:
        raise IllegalAction("not_in_hand", card=card)
    if state.table is None or stock_open(state):
        return
    led = state.table
    allowed = follow_options(hand, led, state.trump_suit, state.options.must_win_trick)
    if card in allowed:
        return
    if any(c[-1] == led[-1] for c in hand):
        if card[-1] == led[-1]:
            raise IllegalAction("must_win_trick", suit=led[-1])
        raise IllegalAction("must_follow_suit", suit=led[-1])
    raise IllegalAction("must_trump", led_suit=led[-1], trump_suit=state.trump_suit)


def check(state: State, action: Action) -> None:
    """Raise IllegalAction unless the current player may do ``action`` now; its code says why.

    >>> s = new_game(["Ada", "Bo"], seed=1)   # Ada holds the trump nine, has won no trick
    >>> try:
    ...     check(s, Exchange())
    ... except IllegalAction as refusal:
    ...     print(refusal.code)
    exchange_no_trick
    """
    if state.match_winner is not None:
        raise IllegalAction("game_over")
    seat = state.turn
    leading = state.table is None
    kind = type(action)
    if state.claim_window:
        if kind is Claim or kind is PlayOn:
            return
        raise IllegalAction("claim_window")  # only claim or play on, right after the marriage
    if kind is Play:
        _refuse_play(state, action.card)  # type: ignore[attr-defined]
    elif kind is Claim:
        return
    elif kind is PlayOn:
        raise IllegalAction("no_claim_window")
    elif kind is Marriage:
        card = action.card  # type: ignore[attr-defined]
        if not leading:
            raise IllegalAction("marriage_not_leading")
        if card not in _MARRY:
            raise IllegalAction("marriage_not_king_or_queen")
        if card not in state.hands[seat] or partner(card) not in state.hands[seat]:
            raise IllegalAction("marriage_needs_pair", suit=card[-1])
        if not stock_open(state):
            raise IllegalAction("marriage_stock_not_open")
    elif kind is Exchange:
        if not leading:
            raise IllegalAction("exchange_not_leading")
        if "9" + state.trump_suit not in state.hands[seat]:
            raise IllegalAction("exchange_no_nine", suit=state.trump_suit)
        if not state.won[seat]:
            raise IllegalAction("exchange_no_trick")
        refuse_closed_or_exhausted(state)
    elif kind is Close:
        if not leading:
            raise IllegalAction("close_not_leading")
        refuse_closed_or_exhausted(state)
    else:
        raise IllegalAction("not_a_move")


def refuse_closed_or_exhausted(state) -> None:
    """IllegalAction unless the stock is open (``closed_by`` None, ``stock`` not empty)."""
    if state.closed_by is not None:
        raise IllegalAction("stock_closed")
    if not state.stock:
        raise IllegalAction("stock_exhausted")


def apply(state: State, action: Action) -> Tuple[State, List[Event]]:
    """Apply the current player's action; IllegalAction (nothing changed) if not allowed."""
    check(state, action)
    seat = state.turn
    name = state.players[seat]
    kind = type(action)
    if kind is Play:
        return _play_card(state, action.card, [])  # type: ignore[attr-defined]
    if kind is Claim:
        return _claim(state, seat)
    if kind is PlayOn:
        return _replace(state, claim_window=False, turn=1 - seat), [PlayedOn(name)]
    if kind is Marriage:
        card = action.card  # type: ignore[attr-defined]
        suit = card[-1]
        points = marriage_points(suit, state.trump_suit)
        marriages = list(state.marriages)
        marriages[seat] = marriages[seat] + (suit,)
        shown = _show(state.shown, seat, (partner(card), card))
        state = _replace(state, marriages=(marriages[0], marriages[1]), shown=shown)
        event = MarriageDeclared(name, suit, points, bool(state.won[seat]))
        state, events = _play_card(state, card, [event])
        if state.won[seat] and card_points(state, seat) >= WINNING_POINTS:
            # the claim window: the declarer may claim before the opponent plays
            state = _replace(state, turn=seat, claim_window=True)
        return state, events
    if kind is Exchange:
        nine = "9" + state.trump_suit
        taken = state.stock[-1]
        hands = list(state.hands)
        hands[seat] = tuple(taken if c == nine else c for c in hands[seat])
        new = _replace(
            state, hands=(hands[0], hands[1]), stock=state.stock[:-1] + (nine,), trump_card=nine,
            shown=_show(state.shown, seat, (taken,)),
        )
        return new, [Exchanged(name, taken)]
    return _replace(state, closed_by=seat), [Closed(name)]  # Close


def _show(shown: Pair, seat: int, cards: Tuple[str, ...]) -> Pair:
    """Add cards a seat has shown (each once)."""
    pair = list(shown)
    pair[seat] = pair[seat] + tuple(c for c in cards if c not in pair[seat])
    return (pair[0], pair[1])


def _play_card(state: State, card: str, events: List[Event]) -> Tuple[State, List[Event]]:
    seat = state.turn
    hand = state.hands[seat]
    i = hand.index(card)
    rest = hand[:i] + hand[i + 1:]
    hands = (rest, state.hands[1]) if seat == 0 else (state.hands[0], rest)
    events.append(Played(state.players[seat], card))
    if state.table is None:
        return _replace(state, hands=hands, table=card, turn=1 - seat), events
    return _finish_trick(state, hands, state.table, card, events)


def _finish_trick(
    state: State, hands: Pair, led: str, follow: str, events: List[Event]
) -> Tuple[State, List[Event]]:
    leader = state.leader
    follower = 1 - leader
    win = follower if beats(follow, led, state.trump_suit) else leader
    lose = 1 - win
    points = VALUES[led] + VALUES[follow]
    won = list(state.won)
    won[win] = won[win] + (led, follow)
    voids = state.voids
    strict = not stock_open(state)
    if strict and follow[-1] != led[-1]:
        lacking = [led[-1]]
        if follow[-1] != state.trump_suit:
            lacking.append(state.trump_suit)
        v = list(voids)
        v[follower] = v[follower] + tuple(s for s in lacking if s not in v[follower])
        voids = (v[0], v[1])
    events.append(TrickWon(state.players[win], (led, follow), points))
    stock = state.stock
    shown = state.shown
    if not strict:
        h = list(hands)
        h[win] = h[win] + (stock[0],)
        h[lose] = h[lose] + (stock[1],)
        hands = (h[0], h[1])
        events.append(Drew(state.players[win], 1))
        face_up = stock[1] if len(stock) == 2 else None
        if face_up is not None:
            shown = _show(shown, lose, (face_up,))
        events.append(Drew(state.players[lose], 1, face_up))
        stock = stock[2:]
    new = _replace(
        state, hands=hands, won=(won[0], won[1]), voids=voids, stock=stock, shown=shown,
        table=None, leader=win, turn=win, last_trick=(led, follow), last_trick_winner=win,
    )
    if hands[0] or hands[1]:
        return new, events
    return _played_out(new, events)


def game_points(state, seat: int) -> int:
    """Game points for ``seat`` winning with 66 or more, by what the opponent took.

    Any state with ``won``, ``marriages``, ``trump_suit``, ``last_trick_bonus`` and
    ``closed_by`` will do: the table referee (``engine/sixty_six_table.py``) scores with it."""
    other = 1 - seat
    if not state.won[other]:
        gp = 3
    elif card_points(state, other) < 33:
        gp = 2
    else:
        gp = 1
    if state.closed_by == other:
        gp = max(gp, 2)  # the closer failed
    return gp


def claim_result(state, seat: int) -> Tuple[int, int, str, Claimed]:
    """(the hand's winner, game points, reason, the claim event) when ``seat`` claims 66."""
    points = card_points(state, seat)
    success = points >= WINNING_POINTS
    event = Claimed(state.players[seat], points, success)
    if success:
        return seat, game_points(state, seat), "claim", event
    return 1 - seat, 2, "failed_claim", event


def last_trick_bonus_seat(state) -> Optional[int]:
    """Who takes the 10 for the last trick (just won by ``last_trick_winner``), if anyone."""
    # the seed gives the 10 to any hand "played to the last trick": closing is not stopping
    if state.closed_by is None or not state.options.no_last_trick_bonus_after_close:
        return state.last_trick_winner
    return None


def played_out_result(state) -> Tuple[int, int, str]:
    """(the hand's winner, game points, reason) once every card is played and
    ``last_trick_bonus`` is set (``last_trick_bonus_seat``)."""
    last = state.last_trick_winner
    assert last is not None
    closer = state.closed_by
    p = (card_points(state, 0), card_points(state, 1))
    if closer is not None:
        if p[closer] >= WINNING_POINTS:
            return closer, game_points(state, closer), "played_out"
        # the closer failed: 2 to the opponent, or more if they reached 66 (game_points
        # gives at least 2 against a failed closer)
        other = 1 - closer
        return other, game_points(state, other) if p[other] >= WINNING_POINTS else 2, \
            "failed_close"
    if p[0] >= WINNING_POINTS or p[1] >= WINNING_POINTS:
        # both can pass 66 only with marriages: the higher count wins, a tie goes to the last trick
        if p[0] == p[1]:
            top = last
        else:
            top = 0 if p[0] > p[1] else 1
        return top, game_points(state, top), "played_out"
    return last, 1, "played_out"


def hand_end_events(state, seat: int, gp: int, reason: str
                    ) -> Tuple[Tuple[int, int], List[Event]]:
    """(the new score, [HandEnded] and GameOver if the match is won) when ``seat`` takes
    ``gp`` game points for the hand."""
    score = list(state.score)
    score[seat] += gp
    names = state.players
    events: List[Event] = [HandEnded(
        names[seat], gp, {names[0]: score[0], names[1]: score[1]}, reason,
        {names[0]: card_points(state, 0), names[1]: card_points(state, 1)},
        None if state.last_trick_bonus is None else names[state.last_trick_bonus],
    )]
    if score[seat] >= state.options.target:
        events.append(GameOver(names[seat]))
    return (score[0], score[1]), events


def _claim(state: State, seat: int) -> Tuple[State, List[Event]]:
    win, gp, reason, event = claim_result(state, seat)
    return _end_hand(state, win, gp, reason, [event])


def _played_out(state: State, events: List[Event]) -> Tuple[State, List[Event]]:
    state = _replace(state, last_trick_bonus=last_trick_bonus_seat(state))
    win, gp, reason = played_out_result(state)
    return _end_hand(state, win, gp, reason, events)


def _end_hand(
    state: State, seat: int, gp: int, reason: str, events: List[Event]
) -> Tuple[State, List[Event]]:
    score, ended = hand_end_events(state, seat, gp, reason)
    events += ended
    state = _replace(state, score=score, claim_window=False)
    if ended[-1].type == "game_over":
        return _replace(state, match_winner=seat), events
    dealer = 1 - state.dealer
    order = _hand_rng(state.seed, state.hand_number + 1).sample(DECK, len(DECK))
    state, deal_events = _deal(state, order, dealer)
    return state, events + deal_events


def opening_events(state: State) -> List[Event]:
    """The public events of the deal in progress, for announcing a new game's first deal
    (``new_game`` deals without returning events). Hidden cards are not included."""
    return [Dealt(state.players[state.dealer], state.trump_card, state.hand_number)]
