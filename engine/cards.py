"""Cards are their codes: rank then suit, e.g. ``AS``, ``10H``, ``QD`` (never words: the
voice layer names them in the player's language).

>>> rank_of("10H"), suit_of("10H")
('10', 'H')
>>> parse_card(" qd ")
'QD'
>>> parse_cards("AS, 10h,7C")
('AS', '10H', '7C')
>>> len(french_deck(2))
104
"""
from __future__ import annotations

from typing import Iterable, List, Sequence, Tuple

from engine.api import RulesError

RANKS: Tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: Tuple[str, ...] = ("S", "H", "D", "C")


class InvalidCard(RulesError):
    """Not a card code at all."""


def rank_of(card: str) -> str:
    return card[:-1]


def suit_of(card: str) -> str:
    return card[-1]


def parse_card(text: str, ranks: Sequence[str] = RANKS) -> str:
    """Normalize a card code; InvalidCard if it is not one (of the given ranks)."""
    code = text.strip().upper()
    if len(code) < 2 or code[-1] not in SUITS or code[:-1] not in ranks:
        raise InvalidCard(f"{text.strip()!r} is not a card code (examples: AS, 10H, QD)")
    return code


def parse_cards(text: str, ranks: Sequence[str] = RANKS) -> Tuple[str, ...]:
    """Parse a comma-separated list of card codes."""
    return tuple(parse_card(part, ranks) for part in text.split(",") if part.strip())


def stack_deck(top: Sequence[str], shuffled: Sequence[str], deck_name: str = "the deck",
               ranks: Sequence[str] = RANKS) -> List[str]:
    """``top`` first, then the rest of the ``shuffled`` deck in its order (a stacked deal).

    InvalidCard, saying which, for a code that is not a card, a card not in this deck, or
    more copies of a card than the deck has.

    >>> stack_deck(["qd"], ["AS", "QD", "7C"])
    ['QD', 'AS', '7C']
    >>> stack_deck(["AS", "AS"], ["AS", "QD"])
    Traceback (most recent call last):
    engine.cards.InvalidCard: AS is listed more often than the 1 copy in the deck
    """
    copies = count_cards(shuffled)
    left = dict(copies)
    order: List[str] = []
    for text in top:
        card = parse_card(text, RANKS)
        if card not in copies:
            raise InvalidCard(f"{card} is not in {deck_name}")
        if left[card] == 0:
            n = copies[card]
            raise InvalidCard(f"{card} is listed more often than the {n} "
                              f"cop{'y' if n == 1 else 'ies'} in {deck_name}")
        left[card] -= 1
        order.append(card)
    rest = []
    for card in shuffled:
        if left[card] > 0:
            left[card] -= 1
            rest.append(card)
    return order + rest


def french_deck(decks: int = 1) -> Tuple[str, ...]:
    """The 52-card deck, ``decks`` times, in a fixed order."""
    return tuple(r + s for _ in range(decks) for s in SUITS for r in RANKS)


def count_cards(cards: Iterable[str]) -> dict:
    counts: dict = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    return counts
