"""Ninety-Nine bots: ``random`` and ``strong``. A bot sees only a ``View`` (what its seat knows).

``strong`` scores every legal play in three parts, all in "lives", from its own point of view:

1. what the play itself costs or earns (hit 33/66/99 against everyone else, exceeding 33/66 or
   busting against itself), with an extra cost for any elimination;
2. what the next player is then likely to do: their three cards are drawn from the cards this
   seat has not seen (the deck minus its hand minus the face-up discards), they play their best
   card, and the exact hypergeometric odds give how often each card is their best one: a
   total that hands them a 33/66/99 is expensive, one where every card they might hold busts
   them is valuable;
3. what this seat can still do with the cards it keeps at the totals the next player leaves:
   keeping a 9, a ten, an ace (and a king in classic) for a dangerous total is worth something,
   and each always-safe card kept earns a small bonus.

Two plays are settled before any scoring: a 99 hit in Doksan Dokuz (nothing beats everyone
else paying 2), and never a bust while some other card does not bust.

J (skip) and 4 (reverse) change who plays next, so the same model prices them; with two players
a J means playing again, which is scored by the best follow-up from the cards kept.

>>> from engine.ninety_nine import new_game, view, apply, current_player
>>> state = new_game(["A", "B", "C"], seed=3)
>>> bot = make_bot("strong", seed=1)
>>> bot.choose(view(state, current_player(state))) in view(state, current_player(state)).legal
True
"""
from __future__ import annotations

import random
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from engine.cards import RANKS, rank_of
from engine.ninety_nine import Options, Play, View, card_effect, penalties, value_choices

ELIMINATION = 4.0     # extra cost, in lives, of a player being knocked out
OTHERS_WEIGHT = 0.6   # one life lost by an opponent, against one life of our own
FOLLOW_WEIGHT = 0.4   # how much our own next play (from the cards we keep) counts


class Bot:
    """Chooses a legal play from a ``View``; deterministic from its seed."""

    kind = ""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, view: View) -> Play:
        if not view.legal:
            raise ValueError("it is not this bot's turn: there is nothing to play")
        return self._choose(view)

    def _choose(self, view: View) -> Play:
        raise NotImplementedError


class RandomBot(Bot):
    """Any legal play, uniformly."""

    kind = "random"

    def _choose(self, view: View) -> Play:
        return self.rng.choice(view.legal)


# --- the arithmetic of plays, cached per total -------------------------------------------


Outcome = Tuple[Optional[int], int, int, int, bool]
_OUTCOMES: Dict[Options, Dict[Tuple[int, str], Tuple[Outcome, ...]]] = {}


def _outcomes(options: Options, total: int, rank: str) -> Tuple[Outcome, ...]:
    """Each legal way to play ``rank`` on ``total``: (value, new total, own loss, loss of each
    other player, round over). Remembered per house rules (a few thousand entries at most)."""
    known = _OUTCOMES.setdefault(options, {})
    key = (total, rank)
    if key not in known:
        known[key] = _work_out(options, total, rank)
    return known[key]


def _work_out(options: Options, total: int, rank: str) -> Tuple[Outcome, ...]:
    found = []
    for value in value_choices(rank) or (None,):
        if value is not None and total + value < 0 and not options.total_may_go_negative:
            continue
        after, _ = card_effect(options.variant, rank, total, value)
        costs, over = penalties(options, total, after)
        own = sum(-c.delta for c in costs if c.who == "player")
        others = sum(-c.delta for c in costs if c.who == "others")
        found.append((value, after, own, others, over))
    return tuple(found)


def _none_of(unseen: int, special: int, drawn: int) -> float:
    """Chance that ``drawn`` cards from ``unseen`` include none of ``special`` given ones."""
    chance = 1.0
    for i in range(drawn):
        if unseen - special - i <= 0:
            return 0.0
        chance *= (unseen - special - i) / (unseen - i)
    return chance


class _Table:
    """Everything the strong bot derives from one view, shared by the plays it compares."""

    others_weight = OTHERS_WEIGHT
    follow_weight = FOLLOW_WEIGHT

    def __init__(self, view: View) -> None:
        self.view = view
        self.options = view.options
        self.classic = view.options.variant == "classic"
        self.me = view.seat
        self.active = [s for s, a in enumerate(view.active) if a]
        self.unseen = self._unseen_counts()
        self.unseen_total = sum(self.unseen.values())
        self.known = _OUTCOMES.setdefault(self.options, {})
        self.worths: Dict[Tuple[int, int, int], float] = {}
        self.best_plays: Dict[Tuple[int, Tuple[str, ...]], float] = {}
        self.reply_cache: Dict[Tuple[int, int], List[Tuple[float, int, int, int, bool]]] = {}

    def outcomes(self, total: int, rank: str) -> Tuple[Outcome, ...]:
        found = self.known.get((total, rank))
        return found if found is not None else _outcomes(self.options, total, rank)

    def _unseen_counts(self) -> Dict[str, int]:
        decks = self.options.deck_count(len(self.view.players))
        counts = {rank: 4 * decks for rank in RANKS}
        for card in list(self.view.hand) + list(self.view.discards):
            counts[rank_of(card)] -= 1
        return {rank: n for rank, n in counts.items() if n > 0}

    # -- costs, in lives, with eliminations weighed in --

    def hurt(self, seat: int, loss: int) -> float:
        if loss <= 0:
            return 0.0
        lives = self.view.lives[seat]
        if self.classic:  # a chip, or out of the game when there is none left to pay
            return 1.0 + ELIMINATION if lives == 0 else 1.0
        return min(loss, lives) + (ELIMINATION if loss >= lives else 0.0)

    def value_of(self, mover: int, own: int, others: int) -> float:
        """Worth to us of ``mover`` losing ``own`` and everyone else losing ``others``."""
        key = (mover, own, others)
        if key not in self.worths:
            self.worths[key] = self._work_out_value(mover, own, others)
        return self.worths[key]

    def _work_out_value(self, mover: int, own: int, others: int) -> float:
        worth = 0.0
        for seat in self.active:
            loss = own if seat == mover else others
            if loss:
                cost = self.hurt(seat, loss)
                worth += -cost if seat == self.me else self.others_weight * cost
        return worth

    # -- who plays after a card --

    def next_seat(self, seat: int, rank: str) -> int:
        n = len(self.view.players)
        direction = self.view.direction
        if rank == "4" and len(self.active) > 2:
            direction = -direction
        steps = 2 if rank == "J" and not self.classic else 1
        for _ in range(steps):
            for step in range(1, n + 1):
                candidate = (seat + direction * step) % n
                if self.view.active[candidate]:
                    seat = candidate
                    break
        return seat

    # -- scoring one of our plays --

    def outcome(self, play: Play) -> Outcome:
        return next(o for o in self.outcomes(self.view.total, rank_of(play.card))
                    if o[0] == play.value)

    def candidates(self) -> Sequence[Play]:
        """The legal plays worth scoring: a 99 hit is never beaten (everyone else pays 2
        and the round ends) and a bust is never better than a play that does not bust."""
        plays = self.view.legal
        if not self.classic:
            hits = [p for p in plays if self.outcome(p)[1] == 99]
            if hits:
                return hits
        safe = [p for p in plays if self.outcome(p)[1] <= 99]
        return safe or plays

    def score(self, play: Play) -> float:
        rank = rank_of(play.card)
        _, after, own, others, over = self.outcome(play)
        worth = self.value_of(self.me, own, others)
        if over:
            return worth
        kept = list(self.view.hand)
        kept.remove(play.card)
        kept_ranks = tuple(sorted(set(rank_of(c) for c in kept)))
        following = self.next_seat(self.me, rank)
        if following == self.me:  # a J with two players: we play again at once
            return worth + self.best_play_value(after, kept_ranks)
        for chance, reply_total, reply_own, reply_others, reply_over in self.replies(
                following, after):
            worth += chance * self.value_of(following, reply_own, reply_others)
            if not reply_over:
                later = self.best_play_value(reply_total, kept_ranks)
                worth += chance * self.follow_weight * later
        return worth + self.keep_bonus(kept)

    def best_play_value(self, total: int, ranks: Tuple[str, ...]) -> float:
        """Our immediate worth from our best card among ``ranks`` at ``total`` (0 if none)."""
        key = (total, ranks)
        if key not in self.best_plays:
            self.best_plays[key] = self._work_out_best(total, ranks)
        return self.best_plays[key]

    def _work_out_best(self, total: int, ranks: Sequence[str]) -> float:
        best = None
        for rank in ranks:
            for _, _, own, others, _ in self.outcomes(total, rank):
                worth = self.value_of(self.me, own, others)
                if best is None or worth > best:
                    best = worth
        return 0.0 if best is None else best

    def keep_bonus(self, kept: Sequence[str]) -> float:
        """A little for each card that can always be played safely, for later emergencies."""
        safe = ("9", "10", "4", "K") if self.classic else ("9", "10")
        return 0.05 * sum(1 for c in kept if rank_of(c) in safe)

    def replies(self, seat: int, total: int) -> List[Tuple[float, int, int, int, bool]]:
        """How the player at ``seat`` likely answers ``total``: (chance, new total, their loss,
        everyone else's loss, round over) for each rank, if it is their best card."""
        key = (seat, total)
        if key not in self.reply_cache:
            self.reply_cache[key] = self._work_out_replies(seat, total)
        return self.reply_cache[key]

    def _work_out_replies(self, seat: int, total: int
                          ) -> List[Tuple[float, int, int, int, bool]]:
        choices = []
        for rank, count in self.unseen.items():
            best = None
            for _, after, own, others, over in self.outcomes(total, rank):
                # they like hurting everyone else and dislike paying themselves
                gain = others - own
                if best is None or gain > best[0]:
                    best = (gain, after, own, others, over)
            if best is not None:
                choices.append((best[0], count, best[1:]))
        choices.sort(key=lambda c: -c[0])
        drawn = self.view.hand_sizes[seat] or 3
        result = []
        seen = 0
        none_before = 1.0
        for gain, count, outcome in choices:
            seen += count
            none_now = _none_of(self.unseen_total, seen, drawn)
            chance = none_before - none_now
            none_before = none_now
            if chance > 0:
                result.append((chance,) + outcome)
        return result


class StrongBot(Bot):
    """Scores every legal play with a ``_Table`` (see the module notes) and plays the best."""

    kind = "strong"
    table_class = _Table

    def _choose(self, view: View) -> Play:
        table = self.table_class(view)
        best: List[Play] = []
        best_score = float("-inf")
        for play in table.candidates():
            score = table.score(play)
            if score > best_score + 1e-9:
                best, best_score = [play], score
            elif score > best_score - 1e-9:
                best.append(play)
        return best[0] if len(best) == 1 else self.rng.choice(best)


BOTS: Dict[str, Callable[[int], Bot]] = {"random": RandomBot, "strong": StrongBot}


def make_bot(kind: str, seed: int) -> Bot:
    """A bot of the given kind (``random`` or ``strong``), deterministic from ``seed``."""
    maker = BOTS.get(kind)
    if maker is None:
        raise ValueError(f"unknown bot kind {kind!r}; choose one of: {', '.join(BOTS)}")
    return maker(seed)
