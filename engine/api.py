"""The protocol every game's rules module meets, and the one error tree of the rules.

A rules module is a plain module of pure functions over an immutable ``State`` (see
``engine/ninety_nine.py`` and ``engine/sixty_six.py``); bots, the simulator, the dialog and
the conformance test (``tests/test_game_protocol.py``) use only what ``Game`` lists, so they
work on any game. Shuffles are derived from the game's seed, so a game replays exactly.

Refusals carry a stable ``code`` and ``fields`` (card codes, suit letters, numbers), never
words: the voice layer's phrasebook says them in the player's language. The three kinds of
wrong a player can say are told apart as in python-chess: not a move at all (the grammar
finds no intent), illegal now (``IllegalAction``), ambiguous (the dialog asks which).

>>> err = IllegalAction("below_zero", total=5)
>>> err.code, err.fields, isinstance(err, RulesError)
('below_zero', {'total': 5}, True)
>>> str(err)
'below_zero (total=5)'
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Protocol, Sequence, Tuple

from engine.records import Action, Event


class RulesError(ValueError):
    """Something the rules refuse: not a card, not allowed now."""


class IllegalAction(RulesError):
    """A well-formed action the rules do not allow now; ``code`` says why, ``fields`` with what."""

    def __init__(self, code: str, **fields: Any) -> None:
        self.code = code
        self.fields: Dict[str, Any] = fields
        details = ", ".join(f"{k}={v}" for k, v in fields.items())
        super().__init__(f"{code} ({details})" if details else code)


class State(Protocol):
    def to_json(self) -> Dict[str, Any]:
        """A JSON object carrying ``game`` and ``version``; ``from_json`` reads it back."""


class Game(Protocol):
    """What a rules module provides (module attributes and functions)."""

    GAME: str                    # the id in saved states: "ninety-nine", "sixty-six"
    SAVE_VERSION: int
    PLAYERS: Tuple[int, int]     # fewest and most players

    def new_game(self, players: Sequence[str], options: Any = ..., seed: int = 0,
                 deck: Optional[Sequence[str]] = None) -> Any: ...
    def opening_events(self, state: Any) -> List[Event]: ...
    def current_player(self, state: Any) -> int: ...
    def legal_actions(self, state: Any) -> List[Action]: ...
    def check(self, state: Any, action: Action) -> None:
        """Raise IllegalAction unless ``action`` is legal now."""
    def apply(self, state: Any, action: Action) -> Tuple[Any, List[Event]]: ...
    def is_over(self, state: Any) -> bool: ...
    def winner(self, state: Any) -> Optional[str]: ...
    def view(self, state: Any, seat: int) -> Any: ...


class Bot(Protocol):
    """A bot sees only a ``view`` (what its seat may know) and returns a legal action."""

    def choose(self, view: Any) -> Action: ...
