"""The one list of games. The command line's choices, ``play``, ``simulate``, ``listen`` and
the save format all ask it; nothing outside a game's own modules names a game.

>>> [spec.id for spec in GAMES.values()]
['doksan', 'classic', 'sixty-six']
>>> find_game("sixty-six").default_bots
('strong',)
"""
from __future__ import annotations

from typing import Dict, Optional

# Aliased: this package's own modules ninety_nine and sixty_six would shadow the engine's.
from engine import ninety_nine as nn_rules, ninety_nine_bots, sixty_six as ss_rules, sixty_six_bots
from voice.games.ninety_nine import NinetyNineTalk
from voice.games.sixty_six import SixtySixTalk
from voice.games.spec import GameSpec


def _ninety_nine(variant: str, title: str) -> GameSpec:
    def make_options(lives: Optional[int] = None, target: Optional[int] = None):
        return nn_rules.Options(variant=variant, lives=lives)
    return GameSpec(
        id=variant, title=title, rules=nn_rules, bots=ninety_nine_bots.BOTS,
        default_bots=("strong", "strong"), simulate_bots=("strong", "random", "random"),
        make_options=make_options, talk=NinetyNineTalk,
        accepts=lambda state: state.options.variant == variant)


def _sixty_six_options(lives: Optional[int] = None, target: Optional[int] = None):
    return ss_rules.Options(**({"target": target} if target else {}))


GAMES: Dict[str, GameSpec] = {spec.id: spec for spec in (
    _ninety_nine("doksan", "Doksan Dokuz (33, 66, 99)"),
    _ninety_nine("classic", "Classic Ninety-Nine"),
    GameSpec(id="sixty-six", title="Sixty-Six (Altmışaltı)", rules=ss_rules,
             bots=sixty_six_bots.BOTS, default_bots=("strong",), simulate_bots=("strong", "greedy"),
             make_options=_sixty_six_options, talk=SixtySixTalk, alternate_first_seat=True),
)}
DEFAULT_GAME = "doksan"


def find_game(name: str) -> GameSpec:
    """The game of an id; ValueError (one sentence) naming the choices otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"there is no game {name!r}; choose {', '.join(GAMES)}") from None
