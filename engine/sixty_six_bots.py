"""Sixty-Six bots. They see only ``view(state, seat)`` and are deterministic from their seed.

Kinds (``make_bot(kind, seed)``):

- ``random``: a uniformly random legal move; it claims only with 66 or more (a random claim
  is nearly always a loss, which would make it no opponent at all).

Every bot claims whenever it has 66, so also in the claim window right after a marriage that
takes it to 66; the simulator ``Sim`` models that as a claim inside ``marry``.
- ``greedy``: claims at 66, declares marriages and exchanges when it can, then plays a trump
  if it may, else follows suit, else its highest card.
- ``sampling``: the benchmark's reference. It deals the unseen cards at random 16 times
  (a "determinization") and scores each legal move by one random playout per deal.
- ``strong``: deals the unseen cards consistently with everything seen (cards played, cards
  the opponent showed, the trump card at the bottom of the stock, suits the opponent is void
  in), scores moves with heuristic playouts while the stock is open, and solves the hand
  exactly with alpha-beta once the stock is closed or exhausted (every deal of the hidden
  cards is then a perfect-information game). It claims as soon as it has 66. Its playouts
  guard the 3-point schneider both ways: a side near 33 leads what a trickless opponent
  cannot take, and a trickless side takes a trick once the opponent nears 33.

Inside, a hand is simulated on small integers (card = suit * 6 + rank, rank 0..5 for 9, J,
Q, K, 10, A) because thousands of playouts per decision must fit in a fraction of a second.
"""
from __future__ import annotations

import random
from typing import Callable, Dict, List, Sequence, Tuple

from engine import sixty_six as ss
from engine.records import Action

# ----------------------------------------------------------------------------- cards as ints

CODE: Tuple[str, ...] = ss.DECK  # DECK is suit-major with ranks low to high: index = s*6 + r
INDEX: Dict[str, int] = {c: i for i, c in enumerate(CODE)}
VALUE: Tuple[int, ...] = tuple(ss.VALUES[c] for c in CODE)
SUIT_INDEX: Dict[str, int] = {s: i for i, s in enumerate(ss.SUITS)}
SUIT_MASK: Tuple[int, ...] = tuple(0b111111 << (6 * s) for s in range(4))
NINE, QUEEN, KING = 0, 2, 3


def _bits(mask: int) -> List[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _beats(second: int, first: int, trump: int) -> bool:
    if second // 6 == first // 6:
        return second > first
    return second // 6 == trump


def _follow_mask(hand: int, led: int, trump: int, must_win: bool) -> int:
    same = hand & SUIT_MASK[led // 6]
    if same:
        if must_win:
            higher = same >> (led + 1) << (led + 1)
            if higher:
                return higher
        return same
    trumps = hand & SUIT_MASK[trump]
    return trumps if trumps else hand


# ----------------------------------------------------------------------------- the simulated hand


class Sim:
    """One hand with every card known (a determinization), cheap to copy and play out."""

    __slots__ = ("hands", "stock", "trump", "closed", "leader", "table", "pts", "tricks",
                 "pending", "must_win", "close_bonus", "result", "last")

    def copy(self) -> "Sim":
        s = Sim.__new__(Sim)
        s.hands = self.hands[:]
        s.stock = self.stock[:]
        s.trump = self.trump
        s.closed = self.closed
        s.leader = self.leader
        s.table = self.table
        s.pts = self.pts[:]
        s.tricks = self.tricks[:]
        s.pending = self.pending[:]
        s.must_win = self.must_win
        s.close_bonus = self.close_bonus
        s.result = self.result
        s.last = self.last
        return s

    def stock_open(self) -> bool:
        return self.closed < 0 and bool(self.stock)

    def turn(self) -> int:
        return self.leader if self.table < 0 else 1 - self.leader

    def legal_cards(self) -> int:
        """Bitmask of the cards the player to move may play."""
        hand = self.hands[self.turn()]
        if self.table < 0 or self.stock_open():
            return hand
        return _follow_mask(hand, self.table, self.trump, self.must_win)

    # --- moves

    def lead(self, card: int) -> None:
        self.hands[self.leader] &= ~(1 << card)
        self.table = card

    def marry(self, card: int) -> None:
        suit = card // 6
        points = 40 if suit == self.trump else 20
        seat = self.leader
        self.lead(card)
        if self.tricks[seat]:
            self.pts[seat] += points
            if self.pts[seat] >= 66:  # the claim window: every bot claims at once
                self.result = (seat, self._game_points(seat))
        else:
            self.pending[seat] += points

    def exchange(self) -> None:
        nine = self.trump * 6 + NINE
        seat = self.leader
        self.hands[seat] = self.hands[seat] & ~(1 << nine) | (1 << self.stock[-1])
        self.stock[-1] = nine

    def close(self) -> None:
        self.closed = self.leader

    def claim(self, seat: int) -> None:
        if self.pts[seat] >= 66:
            self.result = (seat, self._game_points(seat))
        else:
            self.result = (1 - seat, 2)

    def follow(self, card: int) -> None:
        leader = self.leader
        follower = 1 - leader
        self.hands[follower] &= ~(1 << card)
        led = self.table
        win = follower if _beats(card, led, self.trump) else leader
        self.pts[win] += VALUE[led] + VALUE[card]
        if not self.tricks[win]:
            self.pts[win] += self.pending[win]
            self.pending[win] = 0
        self.tricks[win] += 1
        self.table = -1
        self.leader = win
        self.last = win
        if self.stock_open():
            self.hands[win] |= 1 << self.stock.pop(0)
            self.hands[1 - win] |= 1 << self.stock.pop(0)
        if self.pts[win] >= 66:  # the trick winner leads next and claims at once
            self.result = (win, self._game_points(win))
        elif not self.hands[win]:
            self._played_out()

    def _game_points(self, seat: int) -> int:
        other = 1 - seat
        if not self.tricks[other]:
            gp = 3
        elif self.pts[other] < 33:
            gp = 2
        else:
            gp = 1
        return max(gp, 2) if self.closed == other else gp

    def _played_out(self) -> None:
        closer = self.closed
        if closer < 0 or self.close_bonus:  # the 10 for the last trick, also after a close
            self.pts[self.last] += 10
        if closer >= 0:
            if self.pts[closer] >= 66:
                self.result = (closer, self._game_points(closer))
            elif self.pts[1 - closer] >= 66:
                self.result = (1 - closer, self._game_points(1 - closer))
            else:
                self.result = (1 - closer, 2)
            return
        p0, p1 = self.pts
        if p0 >= 66 or p1 >= 66:
            top = self.last if p0 == p1 else (0 if p0 > p1 else 1)
            self.result = (top, self._game_points(top))
        else:
            self.result = (self.last, 1)


# ----------------------------------------------------------------------------- from a view


class Knowledge:
    """What a seat knows about the hidden cards, read once from its view."""

    def __init__(self, v: ss.View) -> None:
        self.view = v
        self.me = v.seat
        self.trump = SUIT_INDEX[v.trump_suit]
        self.hand = [INDEX[c] for c in v.hand]
        seen = set(self.hand) | {INDEX[c] for c in v.played}
        self.bottom = INDEX[v.trump_card] if v.stock_count else -1
        if self.bottom >= 0:
            seen.add(self.bottom)
        self.known = list(dict.fromkeys(INDEX[c] for c in v.opponent_known))
        self.unknown = [c for c in range(24) if c not in seen and c not in self.known]
        self.opp_size = v.opponent_hand_size
        self.void_mask = 0
        for s in v.voids[1 - v.seat]:
            self.void_mask |= SUIT_MASK[SUIT_INDEX[s]]
        self.pending = [0, 0]
        self.points = [0, 0]
        self.tricks = [v.my_tricks, v.opponent_tricks] if v.seat == 0 else \
            [v.opponent_tricks, v.my_tricks]
        self.points[self.me] = v.my_points
        self.points[1 - self.me] = v.opponent_points
        for seat in (0, 1):
            if not self.tricks[seat]:
                self.pending[seat] = sum(ss.marriage_points(s, v.trump_suit)
                                         for s in v.marriages[seat])

    def deal(self, rng: random.Random, respect_voids: bool = True) -> Sim:
        """One full deal of the hidden cards consistent with what this seat knows."""
        need = self.opp_size - len(self.known)
        pool = self.unknown
        if respect_voids and self.void_mask:
            allowed = [c for c in pool if not (1 << c) & self.void_mask]
            if len(allowed) >= need:
                picked = rng.sample(allowed, need)
            else:
                picked = rng.sample(pool, need)
        else:
            picked = rng.sample(pool, need)
        chosen = set(picked)
        rest = [c for c in pool if c not in chosen]
        rng.shuffle(rest)
        v = self.view
        s = Sim.__new__(Sim)
        mine = 0
        for c in self.hand:
            mine |= 1 << c
        theirs = 0
        for c in self.known + picked:
            theirs |= 1 << c
        s.hands = [0, 0]
        s.hands[self.me] = mine
        s.hands[1 - self.me] = theirs
        s.stock = rest + [self.bottom] if self.bottom >= 0 else rest
        s.trump = self.trump
        s.closed = -1 if v.closed_by is None else v.closed_by
        s.leader = v.leader
        s.table = INDEX[v.table] if v.table else -1
        s.pts = self.points[:]
        s.tricks = self.tricks[:]
        s.pending = self.pending[:]
        s.must_win = v.options.must_win_trick
        s.close_bonus = not v.options.no_last_trick_bonus_after_close
        s.result = None
        s.last = -1 if v.last_trick_winner is None else v.last_trick_winner
        return s


def _to_sim_move(action: Action) -> Tuple[str, int]:
    card = getattr(action, "card", None)
    return (action.type, INDEX[card] if card else -1)


def _apply_move(sim: Sim, move: Tuple[str, int]) -> None:
    kind, card = move
    if kind == "play":
        if sim.table < 0:
            sim.lead(card)
        else:
            sim.follow(card)
    elif kind == "marriage":
        sim.marry(card)
    elif kind == "exchange":
        sim.exchange()
    elif kind == "close":
        sim.close()
    elif kind == "play_on":
        pass  # the Sim has no claim window: its turn() is already the opponent's
    else:
        sim.claim(sim.turn())


def utility(result: Tuple[int, int], me: int, need: Tuple[int, int]) -> int:
    """Game points won minus lost, each capped at what the match still needs."""
    seat, gp = result
    return min(gp, need[seat]) if seat == me else -min(gp, need[seat])


# ----------------------------------------------------------------------------- playout policies


def random_playout(sim: Sim, rng: random.Random) -> Tuple[int, int]:
    """Both sides play random legal cards (claiming at 66) until the hand ends."""
    while sim.result is None:
        seat = sim.turn()
        if sim.pts[seat] >= 66:
            sim.claim(seat)
            break
        cards = _bits(sim.legal_cards())
        card = cards[int(rng.random() * len(cards))]
        if sim.table < 0:
            sim.lead(card)
        else:
            sim.follow(card)
    return sim.result


def _marriage_cards(hand: int) -> int:
    """Kings and queens that are half of a marriage in ``hand``."""
    out = 0
    for s in range(4):
        k, q = s * 6 + KING, s * 6 + QUEEN
        if hand >> k & 1 and hand >> q & 1:
            out |= (1 << k) | (1 << q)
    return out


def _cheapest(cards: List[int], trump: int, keep: int) -> int:
    """The card that costs least to give away: low value, not trump, not a marriage half."""
    return min(cards, key=lambda c: (c // 6 == trump, (keep >> c) & 1, VALUE[c], c))


def heuristic_move(sim: Sim) -> Tuple[str, int]:
    """A quick, sensible move for playouts (both sides see the determinized deal)."""
    seat = sim.turn()
    hand = sim.hands[seat]
    trump = sim.trump
    other = sim.hands[1 - seat]
    if sim.table < 0:
        if sim.stock_open():
            if sim.tricks[seat] and hand >> (trump * 6 + NINE) & 1:
                return ("exchange", -1)
            pairs = _marriage_cards(hand)
            if pairs:
                best = max(_bits(pairs), key=lambda c: (c // 6 == trump, -(c % 6)))
                return ("marriage", best)
            cards = _bits(hand)
            if not sim.tricks[1 - seat] and sim.pts[seat] + sim.pending[seat] >= 33:
                # a trickless opponent is worth 3 game points: lead what it cannot take
                safe = [c for c in cards if not any(_beats(a, c, trump) for a in _bits(other))]
                if safe:
                    return ("play", max(safe, key=lambda c: (VALUE[c], -c)))
            return ("play", _cheapest(cards, trump, pairs))
        # strict phase: lead the most valuable card the opponent cannot beat, else the cheapest
        safe = []
        for c in _bits(hand):
            answers = _follow_mask(other, c, trump, False)
            if not any(_beats(a, c, trump) for a in _bits(answers)):
                safe.append(c)
        if safe:
            return ("play", max(safe, key=lambda c: (VALUE[c], c)))
        return ("play", _cheapest(_bits(hand), trump, 0))
    led = sim.table
    legal = _bits(sim.legal_cards())
    winners = [c for c in legal if _beats(c, led, trump)]
    if sim.stock_open():
        keep = _marriage_cards(hand)
        if led // 6 != trump:
            same = [c for c in winners if c // 6 == led // 6 and VALUE[c] >= 10]
            if same:
                return ("play", max(same))
        # take a rich card, or any trick when the opponent is closing in and we have none
        danger = not sim.tricks[seat] and sim.pts[1 - seat] + sim.pending[1 - seat] >= 33
        if winners and (VALUE[led] >= 10 or danger):
            return ("play", min(winners, key=lambda c: (c // 6 == trump, (keep >> c) & 1,
                                                        VALUE[c], c)))
        return ("play", _cheapest(legal, trump, keep))
    if winners:
        return ("play", min(winners, key=lambda c: (c // 6 == trump and led // 6 != trump, c)))
    return ("play", min(legal, key=lambda c: (VALUE[c], c)))


def heuristic_playout(sim: Sim) -> Tuple[int, int]:
    while sim.result is None:
        seat = sim.turn()
        if sim.pts[seat] >= 66:
            sim.claim(seat)
            break
        _apply_move(sim, heuristic_move(sim))
    return sim.result


MARGIN_WEIGHT = 0.002  # card-point margin breaks ties between equal game-point outcomes


def playout_score(sim: Sim, me: int, need: Tuple[int, int]) -> float:
    result = heuristic_playout(sim)
    return utility(result, me, need) + MARGIN_WEIGHT * (sim.pts[me] - sim.pts[1 - me])


# ----------------------------------------------------------------------------- exact endgame


class Solver:
    """Alpha-beta over a strict-phase hand where every card is known."""

    def __init__(self, me: int, need: Tuple[int, int]) -> None:
        self.me = me
        self.need = need
        self.nodes = 0

    def value(self, sim: Sim, alpha: int = -4, beta: int = 4) -> int:
        """Minimax utility for ``me`` of ``sim`` (stock closed or exhausted)."""
        if sim.result is not None:
            return utility(sim.result, self.me, self.need)
        self.nodes += 1
        seat = sim.turn()
        if sim.pts[seat] >= 66:
            return utility((seat, sim._game_points(seat)), self.me, self.need)
        maximize = seat == self.me
        best = -99 if maximize else 99
        for card in self._ordered(sim):
            child = sim.copy()
            if child.table < 0:
                child.lead(card)
            else:
                child.follow(card)
            v = self.value(child, alpha, beta)
            if maximize:
                if v > best:
                    best = v
                if best > alpha:
                    alpha = best
            else:
                if v < best:
                    best = v
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        return best

    @staticmethod
    def _ordered(sim: Sim) -> List[int]:
        cards = _bits(sim.legal_cards())
        if sim.table >= 0:
            led, trump = sim.table, sim.trump
            cards.sort(key=lambda c: (not _beats(c, led, trump), -VALUE[c]))
        else:
            cards.sort(key=lambda c: -c % 6)
        return cards

    def move_values(self, sim: Sim, moves: Sequence[int]) -> List[int]:
        out = []
        for card in moves:
            child = sim.copy()
            if child.table < 0:
                child.lead(card)
            else:
                child.follow(card)
            out.append(self.value(child))
        return out


# ----------------------------------------------------------------------------- bots


class RandomBot:
    def __init__(self, seed: int = 0) -> None:
        self.name = "random"
        self.rng = random.Random(seed)

    def choose(self, v: ss.View) -> Action:
        if v.my_points >= ss.WINNING_POINTS:
            return ss.Claim()
        moves = [a for a in v.legal if a.type != "claim"]
        return self.rng.choice(moves)


class GreedyBot:
    def __init__(self, seed: int = 0) -> None:
        self.name = "greedy"

    def choose(self, v: ss.View) -> Action:
        legal = v.legal
        if v.my_points >= ss.WINNING_POINTS:
            return ss.Claim()
        for kind in ("exchange", "marriage"):
            for a in legal:
                if a.type == kind:
                    return a
        plays = [a.card for a in legal if a.type == "play"]  # type: ignore[attr-defined]
        trumps = [c for c in plays if c[-1] == v.trump_suit]
        if trumps:
            return ss.Play(max(trumps, key=lambda c: ss.STRENGTH[c]))
        if v.table is not None:
            same = [c for c in plays if c[-1] == v.table[-1]]
            if same:
                return ss.Play(max(same, key=lambda c: ss.STRENGTH[c]))
        return ss.Play(max(plays, key=lambda c: (ss.VALUES[c], c)))


class SamplingBot:
    """Plain determinization: 16 random deals, one random playout per move and deal."""

    def __init__(self, seed: int = 0, samples: int = 16) -> None:
        self.name = "sampling"
        self.rng = random.Random(seed)
        self.samples = samples

    def choose(self, v: ss.View) -> Action:
        if v.my_points >= ss.WINNING_POINTS:
            return ss.Claim()
        actions = [a for a in v.legal if a.type != "claim"]
        if len(actions) == 1:
            return actions[0]
        know = Knowledge(v)
        need = _need(v)
        totals = [0] * len(actions)
        moves = [_to_sim_move(a) for a in actions]
        for _ in range(self.samples):
            world = know.deal(self.rng, respect_voids=False)
            for i, move in enumerate(moves):
                sim = world.copy()
                _apply_move(sim, move)
                totals[i] += utility(random_playout(sim, self.rng), v.seat, need)
        return actions[max(range(len(actions)), key=lambda i: totals[i])]


def _need(v: ss.View) -> Tuple[int, int]:
    target = v.options.target
    return (target - v.score[0], target - v.score[1])


class StrongBot:
    """Consistent sampling + heuristic playouts; exact alpha-beta once the stock is shut."""

    def __init__(self, seed: int = 0, playouts: int = 480, endgame_deals: int = 12) -> None:
        self.name = "strong"
        self.rng = random.Random(seed)
        self.playouts = playouts  # per decision while the stock is open, over all moves
        self.endgame_deals = endgame_deals  # hidden-card deals solved exactly after a close

    def choose(self, v: ss.View) -> Action:
        if v.my_points >= ss.WINNING_POINTS:
            return ss.Claim()
        legal = [a for a in v.legal if a.type != "claim"]
        if len(legal) == 1:
            return legal[0]
        for a in legal:
            if a.type == "exchange":  # the nine for a better trump: always worth it
                return a
        know = Knowledge(v)
        if v.stock_count == 0 or v.closed_by is not None:
            return self._solve(v, know, legal)
        return self._sample(v, know, legal)

    def _solve(self, v: ss.View, know: Knowledge, legal: List[Action]) -> Action:
        cards = [INDEX[a.card] for a in legal]  # type: ignore[attr-defined]
        totals = [0] * len(cards)
        solver = Solver(v.seat, _need(v))
        deals = 1 if v.stock_count == 0 else self.endgame_deals
        for _ in range(deals):
            world = know.deal(self.rng)
            for i, value in enumerate(solver.move_values(world, cards)):
                totals[i] += value
        best = max(range(len(cards)), key=lambda i: (totals[i], -(cards[i] % 6)))
        return legal[best]

    def _sample(self, v: ss.View, know: Knowledge, legal: List[Action]) -> Action:
        need = _need(v)
        me = v.seat
        candidates = [a for a in legal if a.type != "close"]
        moves = [_to_sim_move(a) for a in candidates]
        totals = [0.0] * len(candidates)
        deals = max(8, self.playouts // max(1, len(candidates)))
        worlds = [know.deal(self.rng) for _ in range(deals)]
        for world in worlds:
            for i, move in enumerate(moves):
                sim = world.copy()
                _apply_move(sim, move)
                totals[i] += playout_score(sim, me, need)
        best = max(range(len(candidates)), key=lambda i: totals[i])
        close = next((a for a in legal if a.type == "close"), None)
        if close is not None and self._worth_closing(v, know, worlds, totals[best] / deals):
            return close
        return candidates[best]

    def _worth_closing(self, v: ss.View, know: Knowledge, worlds: List[Sim], open_value: float
                       ) -> bool:
        """Close when the exact strict-phase value over a few deals beats playing on."""
        if v.my_points < 25 or v.stock_count < 4:
            return False
        solver = Solver(v.seat, _need(v))
        total = 0
        deals = worlds[: self.endgame_deals // 2]
        for world in deals:
            sim = world.copy()
            sim.close()
            total += solver.value(sim)
        return total / len(deals) > open_value


BOTS: Dict[str, Callable[[int], object]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "sampling": SamplingBot,
    "strong": StrongBot,
}


def make_bot(kind: str, seed: int = 0):
    """A bot with ``.name`` and ``.choose(view) -> Action``; ValueError for an unknown kind."""
    maker = BOTS.get(kind)
    if maker is None:
        raise ValueError(f"unknown Sixty-Six bot {kind!r}: choose one of {', '.join(BOTS)}")
    return maker(seed)
