"""What a game brings to the voice layer: its registry entry and its talk adapter.

A ``GameSpec`` declares a game once (id, rules module, bots, options, player counts, talk);
``voice/games/__init__.py`` lists them, and the command line, the session, the save format
and the simulator ask that list instead of naming games.

A talk adapter (``GameTalk``) turns words into actions and events into sentences for one
game. Each turn it computes a ``TurnMenu`` once from the legal actions (as lichess builds its
phrase map from the legal moves of a position): the menu says which phrases belong in the
recognizer's vocabulary and resolves what was said into an ``Outcome`` without trying moves.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, List, Mapping, Optional, Protocol, Sequence, Tuple

from engine.api import Bot, IllegalAction
from voice.lang import Language
from voice.understand.grammar import Intent

# Commands the session itself answers, in every game.
SHARED_COMMANDS = ("repeat", "history", "slower", "faster", "louder", "quieter", "shorter",
                   "more_detail", "pause", "quit", "yes", "no", "undo")
OUT_CHOICES = ("finish", "watch", "new_game")  # answers when every person is knocked out
# The rules by voice: each game explains these topics from its phrases ("explain" section).
EXPLAINED = {"rules": "rules", "rules_33": "33", "rules_66": "66", "rules_99": "99",
             "rules_score": "score"}
# Questions whose answer shows hidden cards (asking one ends the chance to undo).
REVEALING_QUESTIONS = ("hand",)


@dataclass
class Outcome:
    """The dialog's answer to an intent: an action to apply, a question, or a refusal."""

    action: Any = None
    question: Optional[str] = None      # asked; the next answer completes ``pending``
    pending: Optional[Intent] = None
    refusal: Optional[str] = None       # spoken; nothing changes
    reason: str = ""                    # the refusal's code, for the events file
    notes: List[str] = field(default_factory=list)  # said before the action's announcement
    caution: Optional[str] = None       # a decisive move: asked ("are you sure?") by voice
    caution_typed: bool = False         # asked when typed too (it cannot succeed)


@dataclass(frozen=True)
class TurnMenu:
    """What can be said on one turn, computed once from the legal actions."""

    allowed: Callable[[Intent], bool]   # does this phrase belong in the vocabulary now?
    resolve: Callable[[Intent], Outcome]


def refused(language: Language, refusal: IllegalAction) -> Outcome:
    """An Outcome saying an engine refusal in the player's language."""
    reason = language.phrases.refusal(refusal.code, **refusal.fields)
    return Outcome(refusal=language.phrases.text("dialog.illegal", reason=reason),
                   reason=refusal.code)


def checked(rules, language: Language, state, action, legal: Sequence) -> Outcome:
    """The action if it is among the legal ones, else the rules' reason in words."""
    if action in legal:
        return Outcome(action=action)
    try:
        rules.check(state, action)
    except IllegalAction as refusal:
        return refused(language, refusal)
    return Outcome(action=action)


class GameTalk(Protocol):
    language: Language
    verbose: bool                        # every turn and move in full (else concise)
    commands: Tuple[str, ...]            # the game's questions (SHARED_COMMANDS aside)
    typed_aliases: Mapping[str, str]     # typed-only names of its questions ("total": "score")

    def speaks(self, intent: Intent) -> bool:
        """Is this a phrase of the game at all, in some turn (for ``listen``)?"""
    def turn(self, state, seat: int, pending: Optional[Intent]) -> TurnMenu: ...
    def phrase(self, intent: Intent) -> str: ...
    def answer(self, command: str, state, seat: int) -> str: ...
    def rules(self, rank: str, state) -> str: ...
    def announce(self, events: Sequence, state, humans: Sequence[int]) -> List[str]:
        """Sentences for what happened, for everyone at the table."""
    def secret(self, events: Sequence, state, humans: Sequence[int]) -> List[str]:
        """What only the player may hear (a drawn card, a new hand): held back while the
        player may still take the move back, so undo never shows the next card."""
    def deal_notice(self, state, humans: Sequence[int]) -> List[str]: ...
    def where_we_are(self, state, seat: int) -> List[str]:
        """The position in a sentence or two, for a resumed game."""
    def is_out(self, state, seat: int) -> bool:
        """Has this seat been knocked out while the game goes on?"""
    def cues(self, events: Sequence) -> List[str]:
        """Earcon names for the events, the most urgent first."""


@dataclass(frozen=True)
class GameSpec:
    id: str                                   # the one name: CLI, saves, simulator
    title: str                                # in English, for --help; spoken titles are phrases
    rules_module: str                         # a module meeting engine.api.Game
    bots_module: str                          # a module with BOTS: kind -> factory(seed)
    talk_class: str                           # "module:Class" of its GameTalk
    default_bots: Tuple[str, ...]             # the opponents of one person in ``play``
    simulate_bots: Tuple[str, ...]            # the table ``simulate`` plays by default
    make_options: Callable[..., Any]          # (lives, target, house_rules) -> the rules' Options
    accepts: Callable[[Any], bool] = lambda state: True  # is a loaded state this game's?
    alternate_first_seat: bool = False        # seat 0 always leads: swap seats each match
    table_of: Optional[str] = None            # table mode: refereeing this game's real deck
    words: Tuple[str, ...] = ()               # its language files: grammar.<part>.json, ...
    house_rules: Tuple[str, ...] = ()         # the names ``make_options`` switches on

    @property
    def rules(self):
        return importlib.import_module(self.rules_module)

    @property
    def bots(self) -> Mapping[str, Callable[[int], Bot]]:
        return importlib.import_module(self.bots_module).BOTS

    @property
    def talk(self) -> Callable[..., GameTalk]:
        """(language, strict_memory=False, verbose=False) -> the game's GameTalk."""
        module, _, name = self.talk_class.partition(":")
        return getattr(importlib.import_module(module), name)

    @property
    def players(self) -> Tuple[int, int]:
        return tuple(self.rules.PLAYERS)

    def simulate(self, kinds: Sequence[str], games: int, seed: int, options: Any = None,
                 progress: Optional[Callable[[int, int], None]] = None):
        """Bot-only games of this game (``engine.simulate``); options: the game's defaults."""
        from engine.simulate import simulate
        return simulate(self.rules, self.bots, list(kinds), games, seed,
                        options if options is not None else self.make_options(),
                        game_id=self.id, alternate_first_seat=self.alternate_first_seat,
                        progress=progress)


def unique(items) -> List[str]:
    out: List[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out

