"""Table mode for Sixty-Six: the referee and scorekeeper of a real deck of 24 cards.

Two people play with real cards; the program never sees a hand. The dealer says the card
turned up for trump ("nine of hearts"), then each player says the card they put down. The
referee keeps what a careful third person at the table could keep: every card played, who
took each trick, the marriages declared, the exchange, the close, the stock count, each
side's card points (told only when the talk allows it) and the game points of the match.

The rules are ``engine/sixty_six.py``'s own, not copies: the trick winner (``beats``), the
card values, marriage points, ``card_points``, the claim (``claim_result``), the played-out
hand (``last_trick_bonus_seat``, ``played_out_result``), the game points and the match
(``hand_end_events``), the options and house rules. The state keeps the fields those
functions read under the same names (``won``, ``marriages``, ``trump_suit``, ``closed_by``,
``last_trick_winner``, ``last_trick_bonus``, ``score``, ``options``, ``players``). The
actions are Sixty-Six's (``Play``, ``Marriage``, ``Exchange``, ``Close``, ``Claim``,
``PlayOn``) plus ``TableTrump`` (the card turned up) and the tables' ``TableUndo`` ("take it
back"); the events are Sixty-Six's too, so an events file reads like one of ``play``.

What can be checked without the hands. A card is refused when it is impossible with one deck:
already played, lying face up under the stock, or known to be in the other hand (a marriage
partner shown, the card taken in an exchange, the face-up card drawn last). Once the stock
is closed or used up, a card that does not follow suit (or trump) is refused only when the
cards seen *prove* the player could have: the referee keeps, for each player, the cards they
cannot hold (a suit they failed to follow, a trump they failed to play) and the cards they
must hold, and accepts a play as long as some deal of the unseen cards fits all of it
(``consistent``). It cannot catch a player who keeps back a card of the led suit nobody has
seen: that is found out, if at all, when the card turns up later and the deal no longer fits
(then it is refused, and "take it back" goes back to fix the earlier play).

>>> s = new_game(["Ann", "Bob"])
>>> s.players[current_player(s)], s.stock   # Bob deals and turns up the trump card
('Bob', 12)
>>> s, events = apply(s, TableTrump("9H"))
>>> [e.type for e in events], s.players[s.turn]
(['deal'], 'Ann')
>>> s, _ = apply(s, Play("AS"))
>>> s, events = apply(s, Play("10S"))
>>> [e.type for e in events]
['play', 'trick', 'draw', 'draw', 'stock_left']
>>> s.stock, s.won[0], s.hand_sizes
(10, ('AS', '10S'), (6, 6))
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

from engine import sixty_six as ss
from engine.api import IllegalAction
from engine.ninety_nine_table import TableUndo  # "take it back": the same at every table
from engine.records import Action, Event
from engine.sixty_six import (
    DECK,
    STRENGTH,
    Claim,
    Close,
    Closed,
    Dealt,
    Drew,
    Exchange,
    Exchanged,
    GameOver,
    Marriage,
    MarriageDeclared,
    Options,
    Play,
    Played,
    PlayedOn,
    PlayOn,
    TrickWon,
    beats,
    card_points,
    marriage_points,
    partner,
)

GAME = "sixty-six-table"
SAVE_VERSION = 1
PLAYERS = (2, 2)
BOTS: Dict = {}  # no bots: both seats are people at the real table
HAND_SIZE = 6
STOCK_SIZE = len(DECK) - 2 * HAND_SIZE  # the face-up trump card included

Pair = ss.Pair


# --- actions and the events of its own ------------------------------------------------


@dataclass(frozen=True)
class TableTrump(Action):
    """The dealer turned up ``card`` for trump."""

    type = "table_trump"
    card: str


@dataclass(frozen=True)
class HandStart(Event):
    """A hand is to be dealt: the dealer deals six each and turns up the trump card."""

    type = "hand_start"
    hand: int
    dealer: str
    leader: str


@dataclass(frozen=True)
class StockLeft(Event):
    type = "stock_left"
    cards: int  # left to draw after a trick's draws, the face-up card included


@dataclass(frozen=True)
class TakenBack(Event):
    type = "taken_back"
    player: str  # whose move was taken back: they move again


# --- the state ------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    players: Tuple[str, str]
    options: Options
    hand_number: int
    dealer: int
    score: Tuple[int, int]
    trump_card: Optional[str] = None  # face up (the nine after an exchange); None: not said
    trump_suit: Optional[str] = None
    stock: int = STOCK_SIZE           # cards left to draw, the face-up one included
    closed_by: Optional[int] = None
    leader: int = 0
    turn: int = 0
    table: Optional[str] = None       # the led card of the trick in progress
    won: Pair = ((), ())              # cards each seat has taken
    marriages: Pair = ((), ())        # suits each seat has declared this hand
    known: Pair = ((), ())            # cards seen to be in each hand, not played yet
    barred: Pair = ((), ())           # cards each seat has shown it cannot hold
    hand_sizes: Tuple[int, int] = (HAND_SIZE, HAND_SIZE)
    last_trick: Tuple[str, ...] = ()
    last_trick_winner: Optional[int] = None
    last_trick_bonus: Optional[int] = None
    match_winner: Optional[int] = None
    claim_window: bool = False        # the declarer of a marriage into 66 may claim now
    previous: Optional["State"] = None  # before the last move: for "take it back"

    @property
    def dealing(self) -> bool:
        """The trump card of this hand has not been said yet."""
        return self.trump_card is None

    def to_json(self, with_previous: bool = True) -> Dict[str, Any]:
        out: Dict[str, Any] = {"game": GAME, "version": SAVE_VERSION}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "options":
                value = asdict(value)
            elif f.name == "previous":
                value = value.to_json(False) if with_previous and value is not None else None
            out[f.name] = _jsonable(value)
        return out

    @classmethod
    def from_json(cls, data: Dict[str, Any], nested: bool = False) -> "State":
        """Rebuild a state; ValueError with a readable message if the data is not one."""
        if not isinstance(data, dict) or data.get("game") != GAME:
            raise ValueError("this is not a saved Sixty-Six table game")
        if data.get("version") != SAVE_VERSION:
            raise ValueError(f"this save is from another version ({data.get('version')!r}, "
                             f"this program reads version {SAVE_VERSION})")
        try:
            values = {f.name: data[f.name] for f in fields(cls)}
            values["options"] = Options(**values["options"])
            for name in ("players", "score", "hand_sizes", "last_trick"):
                values[name] = tuple(values[name])
            for name in ("won", "marriages", "known", "barred"):
                values[name] = tuple(tuple(side) for side in values[name])
            previous = values["previous"]
            values["previous"] = None if previous is None or nested \
                else cls.from_json(previous, nested=True)
            state = cls(**values)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"the saved game is damaged ({str(exc)[:80]})") from None
        _check_saved(state)
        return state


def _jsonable(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    return value


def _check_saved(s: State) -> None:
    if len(s.players) != 2 or s.players[0] == s.players[1] or not all(s.players):
        raise ValueError("the saved game is damaged (the players)")
    seats = (s.dealer, s.leader, s.turn) + tuple(
        x for x in (s.closed_by, s.last_trick_winner, s.last_trick_bonus, s.match_winner)
        if x is not None)
    if any(x not in (0, 1) for x in seats) or any(x < 0 for x in s.score):
        raise ValueError("the saved game is damaged (a seat or the score)")
    cards = [c for side in s.won + s.known + s.barred for c in side] + list(s.last_trick) \
        + [c for c in (s.trump_card, s.table) if c is not None]
    if any(c not in ss.VALUES for c in cards) or s.trump_suit not in ss.SUITS + (None,) \
            or any(suit not in ss.SUITS for side in s.marriages for suit in side):
        raise ValueError("the saved game is damaged (a card that is not a Sixty-Six card)")
    if not 0 <= s.stock <= STOCK_SIZE or s.stock % 2 \
            or any(not 0 <= n <= HAND_SIZE for n in s.hand_sizes):
        raise ValueError("the saved game is damaged (the stock or the hands)")
    if not s.dealing and not consistent(s):
        raise ValueError("the saved game is damaged (the cards do not add up)")


# --- setting up -----------------------------------------------------------------------


def new_game(players: Sequence[str], options: Options = Options(), seed: int = 0,
             deck: Optional[Sequence[str]] = None, dealer: Optional[int] = None) -> State:
    """A new match. ``dealer`` (a seat; by default the second) deals the first hand, and
    the other seat leads.
    ``seed`` and ``deck`` are accepted for the protocol and ignored: the deck is real."""
    names = tuple(str(p).strip() for p in players)
    if len(names) != 2:
        raise ValueError(f"Sixty-Six is for exactly two players, not {len(names)}")
    if names[0].lower() == names[1].lower() or not all(names):
        raise ValueError("the two players need different, non-empty names")
    if dealer is None:
        dealer = 1
    if dealer not in (0, 1):
        raise ValueError("the dealer must be one of the two seats")
    return _hand(State(players=(names[0], names[1]), options=options, hand_number=0,
                       dealer=0, score=(0, 0)), dealer=dealer)


def _hand(state: State, dealer: int) -> State:
    """The next hand, waiting for its trump card: everything of the last one cleared."""
    return State(players=state.players, options=state.options,
                 hand_number=state.hand_number + 1, dealer=dealer, score=state.score,
                 leader=1 - dealer, turn=dealer)


def _hand_start(state: State) -> HandStart:
    return HandStart(state.hand_number, state.players[state.dealer], state.players[state.leader])


def opening_events(state: State) -> List[Event]:
    return [_hand_start(state)] if state.dealing else []


# --- queries --------------------------------------------------------------------------


def current_player(state: State) -> int:
    return state.turn


def is_over(state: State) -> bool:
    return state.match_winner is not None


def winner(state: State) -> Optional[str]:
    return None if state.match_winner is None else state.players[state.match_winner]


def stock_open(state: State) -> bool:
    return not state.dealing and ss.stock_open(state)


def played(state: State) -> Tuple[str, ...]:
    """Every card played this hand, the one on the table included."""
    return state.won[0] + state.won[1] + ((state.table,) if state.table else ())


def in_stock(state: State) -> Optional[str]:
    """The one card of the stock everyone knows: the face-up trump (turned down by a close)."""
    return state.trump_card if state.stock else None


def unseen(state: State) -> FrozenSet[str]:
    """The cards nobody has seen where they are: in a hand or under the stock."""
    seen = set(played(state)) | set(state.known[0]) | set(state.known[1])
    if in_stock(state):
        seen.add(state.trump_card)
    return frozenset(DECK) - seen


def consistent(state: State) -> bool:
    """Can the unseen cards be dealt into the two hands and the stock, each hand holding its
    known cards and none it is barred from (a known card barred cannot be)? Hall's condition
    for the three places: each hand's free places, and both together, need enough cards they
    may hold (the stock may hold any).

    >>> s = apply(new_game(["Ann", "Bob"]), TableTrump("9H"))[0]
    >>> consistent(s), consistent(replace(s, barred=(DECK[:19], ())))
    (True, False)
    """
    pool = unseen(state)
    if any(set(state.known[seat]) & set(state.barred[seat]) for seat in (0, 1)):
        return False
    free = [state.hand_sizes[seat] - len(state.known[seat]) for seat in (0, 1)]
    hidden_stock = max(state.stock - 1, 0)
    if min(free) < 0 or sum(free) + hidden_stock != len(pool):
        return False
    may = [pool - set(state.barred[seat]) for seat in (0, 1)]
    return free[0] <= len(may[0]) and free[1] <= len(may[1]) \
        and free[0] + free[1] <= len(may[0] | may[1])


# --- checking -------------------------------------------------------------------------


def legal_actions(state: State) -> List[Action]:
    """Every move the referee would accept now (Claim last, as in ``sixty_six``)."""
    if is_over(state):
        return []
    if state.dealing:
        return [TableTrump(c) for c in DECK]
    candidates: List[Action] = [PlayOn()] if state.claim_window else [Play(c) for c in DECK]
    if state.table is None and not state.claim_window:
        candidates += [Marriage(c) for c in DECK if c[0] in "KQ"]
        candidates += [Exchange(), Close()]
    return [a for a in candidates if _allowed(state, a)] + [Claim()]


def _allowed(state: State, action: Action) -> bool:
    try:
        check(state, action)
    except IllegalAction:
        return False
    return True


def check(state: State, action: Action) -> None:
    """Raise IllegalAction unless the referee accepts ``action`` now; its code says why.

    >>> s = apply(new_game(["Ann", "Bob"]), TableTrump("9H"))[0]
    >>> for action in (Play("9H"), Exchange(), TableTrump("AS")):
    ...     try:
    ...         check(s, action)
    ...     except IllegalAction as refusal:
    ...         print(refusal.code, refusal.fields)
    card_face_up {'card': '9H'}
    exchange_no_nine {'suit': 'H'}
    trump_known {'card': '9H'}
    """
    if is_over(state):
        raise IllegalAction("game_over")
    kind = type(action)
    if kind is TableUndo:
        if state.previous is None:
            raise IllegalAction("nothing_to_undo")
        return
    if state.dealing:
        if kind is not TableTrump:
            raise IllegalAction("trump_first", dealer=state.players[state.dealer])
        if action.card not in ss.VALUES:  # type: ignore[attr-defined]
            raise IllegalAction("not_a_card", card=action.card)  # type: ignore[attr-defined]
        return
    if kind is TableTrump:
        raise IllegalAction("trump_known", card=state.trump_card)
    if state.claim_window:
        if kind not in (Claim, PlayOn):
            raise IllegalAction("claim_window")
        return
    if kind is PlayOn:
        raise IllegalAction("no_claim_window")
    if kind is Claim:
        return
    if kind is Play:
        _after_play(state, action.card)  # type: ignore[attr-defined]
    elif kind is Marriage:
        _after_marriage(state, action.card)  # type: ignore[attr-defined]
    elif kind is Exchange:
        _after_exchange(state)
    elif kind is Close:
        if state.table is not None:
            raise IllegalAction("close_not_leading")
        ss.refuse_closed_or_exhausted(state)
    else:
        raise IllegalAction("not_a_move")


def _refuse_impossible(state: State, card: str) -> None:
    """A card the player to move cannot hold, by what everyone has seen."""
    seat = state.turn
    if card not in ss.VALUES:
        raise IllegalAction("not_a_card", card=card)
    if card in played(state):
        raise IllegalAction("card_played", card=card)
    if card == in_stock(state):
        raise IllegalAction("card_face_up" if stock_open(state) else "card_in_stock", card=card)
    if card in state.known[1 - seat]:
        raise IllegalAction("card_held", card=card, player=state.players[1 - seat])
    if card in state.barred[seat]:
        raise IllegalAction("card_barred", card=card)


def _after_play(state: State, card: str) -> State:
    """The state once the player to move has put ``card`` down (the trick not yet settled),
    or IllegalAction if that cannot be."""
    _refuse_impossible(state, card)
    seat = state.turn
    after = _without(state, seat, card)
    led = state.table
    if led is None:
        after = replace(after, table=card, turn=1 - seat)
    else:  # the trick is settled: both cards are seen and won
        win = seat if beats(card, led, state.trump_suit) else 1 - seat
        after = replace(after, won=_side(after.won, win, after.won[win] + (led, card)),
                        table=None, leader=win, turn=win, last_trick=(led, card),
                        last_trick_winner=win)
    if led is not None and not stock_open(state):
        for lacking, refusal in _follow_rules(after, card, led, state.trump_suit,
                                              state.options.must_win_trick):
            after = replace(after, barred=_bar(after.barred, seat, lacking))
            if not consistent(after):
                raise refusal
    if not consistent(after):
        raise IllegalAction("card_impossible", card=card)
    return after


def _follow_rules(state: State, card: str, led: str, trump: str, must_win: bool):
    """What the follower in the strict phase shows they lack by playing ``card`` to ``led``
    (the rules of ``sixty_six.follow_options``), each with the refusal if they cannot lack
    it: with ``must_win_trick`` the higher cards of the led suit; when not following, the led
    suit; when neither following nor trumping, the trumps too."""
    pool = set(DECK) - set(played(state))  # cards seen in the hand count too
    suit = led[-1]
    if card[-1] == suit:
        if must_win and not beats(card, led, trump):
            yield ([c for c in pool if c[-1] == suit and STRENGTH[c] > STRENGTH[led]],
                   IllegalAction("must_win_trick", suit=suit))
        return
    yield [c for c in pool if c[-1] == suit], IllegalAction("must_follow_suit", suit=suit)
    if card[-1] != trump:
        yield ([c for c in pool if c[-1] == trump],
               IllegalAction("must_trump", led_suit=suit, trump_suit=trump))


def _after_marriage(state: State, card: str) -> State:
    if state.table is not None:
        raise IllegalAction("marriage_not_leading")
    if card not in ss.VALUES or card[0] not in "KQ":
        raise IllegalAction("marriage_not_king_or_queen")
    if not stock_open(state):
        raise IllegalAction("marriage_stock_not_open")
    other = partner(card)
    try:
        _refuse_impossible(state, other)
    except IllegalAction:
        raise IllegalAction("marriage_partner_seen", card=other) from None
    shown = _show(state, state.turn, other)
    return _after_play(shown, card)


def _after_exchange(state: State) -> State:
    seat = state.turn
    if state.table is not None:
        raise IllegalAction("exchange_not_leading")
    nine = "9" + state.trump_suit
    try:
        _refuse_impossible(state, nine)
    except IllegalAction:
        raise IllegalAction("exchange_no_nine", suit=state.trump_suit) from None
    if not state.won[seat]:
        raise IllegalAction("exchange_no_trick")
    ss.refuse_closed_or_exhausted(state)
    taken = state.trump_card
    held = tuple(c for c in _show(state, seat, nine).known[seat] if c != nine) + (taken,)
    after = replace(state, known=_side(state.known, seat, held), trump_card=nine)
    if not consistent(after):
        raise IllegalAction("exchange_no_nine", suit=state.trump_suit)
    return after


def _side(pair: Pair, seat: int, cards: Tuple[str, ...]) -> Pair:
    return (cards, pair[1]) if seat == 0 else (pair[0], cards)


def _show(state: State, seat: int, card: str) -> State:
    """``card`` is now seen to be in ``seat``'s hand."""
    if card in state.known[seat]:
        return state
    return replace(state, known=_side(state.known, seat, state.known[seat] + (card,)))


def _without(state: State, seat: int, card: str) -> State:
    """``seat`` puts ``card`` on the table: one card fewer in that hand."""
    sizes = list(state.hand_sizes)
    sizes[seat] -= 1
    return replace(state, known=_side(state.known, seat,
                                      tuple(c for c in state.known[seat] if c != card)),
                   hand_sizes=(sizes[0], sizes[1]))


def _bar(barred: Pair, seat: int, cards: Sequence[str]) -> Pair:
    return _side(barred, seat, barred[seat] + tuple(c for c in cards if c not in barred[seat]))


# --- applying -------------------------------------------------------------------------


def apply(state: State, action: Action) -> Tuple[State, List[Event]]:
    """Apply a move; IllegalAction (nothing changed) if the referee refuses it."""
    check(state, action)
    if type(action) is TableUndo:
        before = state.previous
        assert before is not None
        return before, [TakenBack(before.players[before.turn])]
    start = replace(state, previous=None)
    new, events = _move(state, action)
    return replace(new, previous=start), events


def _move(state: State, action: Action) -> Tuple[State, List[Event]]:
    seat = state.turn
    name = state.players[seat]
    kind = type(action)
    if kind is TableTrump:
        card = action.card  # type: ignore[attr-defined]
        new = replace(state, trump_card=card, trump_suit=card[-1], turn=state.leader)
        return new, [Dealt(state.players[state.dealer], card, state.hand_number)]
    if kind is Claim:
        win, gp, reason, event = ss.claim_result(state, seat)
        return _end_hand(state, win, gp, reason, [event])
    if kind is PlayOn:
        return replace(state, claim_window=False, turn=1 - seat), [PlayedOn(name)]
    if kind is Close:
        return replace(state, closed_by=seat), [Closed(name)]
    if kind is Exchange:
        taken = state.trump_card
        return _after_exchange(state), [Exchanged(name, taken)]
    card = action.card  # type: ignore[attr-defined]
    if kind is Marriage:
        suit = card[-1]
        after = _after_marriage(state, card)
        after = replace(after, marriages=_side(after.marriages, seat,
                                               after.marriages[seat] + (suit,)))
        points = marriage_points(suit, state.trump_suit)
        events: List[Event] = [MarriageDeclared(name, suit, points, bool(state.won[seat])),
                               Played(name, card)]
        if after.won[seat] and card_points(after, seat) >= ss.WINNING_POINTS:
            after = replace(after, turn=seat, claim_window=True)  # claim before the reply
        return after, events
    after = _after_play(state, card)
    if state.table is None:
        return after, [Played(name, card)]
    return _after_trick(after, [Played(name, card)])


def _after_trick(state: State, events: List[Event]) -> Tuple[State, List[Event]]:
    """The trick just settled: said, then the draws, or the end of the hand."""
    led, follow = state.last_trick
    win = state.last_trick_winner
    assert win is not None
    events.append(TrickWon(state.players[win], (led, follow),
                           ss.VALUES[led] + ss.VALUES[follow]))
    if stock_open(state):  # the winner draws first; the other takes the face-up card last
        face_up = state.trump_card if state.stock == 2 else None
        events += [Drew(state.players[win], 1), Drew(state.players[1 - win], 1, face_up)]
        state = replace(state, stock=state.stock - 2,
                        hand_sizes=(state.hand_sizes[0] + 1, state.hand_sizes[1] + 1))
        if face_up is not None:
            state = _show(state, 1 - win, face_up)
        events.append(StockLeft(state.stock))
    if any(state.hand_sizes):
        return state, events
    state = replace(state, last_trick_bonus=ss.last_trick_bonus_seat(state))
    win, gp, reason = ss.played_out_result(state)
    return _end_hand(state, win, gp, reason, events)


def _end_hand(state: State, seat: int, gp: int, reason: str, events: List[Event]
              ) -> Tuple[State, List[Event]]:
    score, ended = ss.hand_end_events(state, seat, gp, reason)
    events += ended
    state = replace(state, score=score, claim_window=False)
    if isinstance(ended[-1], GameOver):
        return replace(state, match_winner=seat), events
    state = _hand(state, dealer=1 - state.dealer)
    return state, events + [_hand_start(state)]


# --- what a seat knows: what the table has seen (the hands are the players' own) ------


@dataclass(frozen=True)
class View:
    seat: int
    players: Tuple[str, str]
    options: Options
    trump_card: Optional[str]
    stock: int
    closed_by: Optional[int]
    table: Optional[str]
    turn: int
    won: Pair
    marriages: Pair
    score: Tuple[int, int]
    legal: Tuple[Action, ...] = ()


def view(state: State, seat: int) -> View:
    return View(seat, state.players, state.options, state.trump_card, state.stock,
                state.closed_by, state.table, state.turn, state.won, state.marriages,
                state.score, tuple(legal_actions(state)) if state.turn == seat
                and not is_over(state) else ())
