"""The one list of games. The command line's choices, ``play``, ``simulate``, ``listen`` and
the save format all ask it; nothing outside a game's own modules names a game.

A game's modules are imported when the game is first used, so starting Doksan Dokuz does not
load Sixty-Six's bots.

>>> [spec.id for spec in GAMES.values()]
['doksan', 'classic', 'sixty-six']
>>> find_game("sixty-six").default_bots
('strong',)
>>> find_game("classic").rules.__name__
'engine.ninety_nine'
"""
from __future__ import annotations

from typing import Dict, Optional

from voice.games.spec import GameSpec


def _ninety_nine(variant: str, title: str) -> GameSpec:
    def make_options(lives: Optional[int] = None, target: Optional[int] = None):
        from engine.ninety_nine import Options
        return Options(variant=variant, lives=lives)
    return GameSpec(
        id=variant, title=title, rules_module="engine.ninety_nine",
        bots_module="engine.ninety_nine_bots", talk_class="voice.games.ninety_nine:NinetyNineTalk",
        default_bots=("strong", "strong"), simulate_bots=("strong", "random", "random"),
        make_options=make_options, accepts=lambda state: state.options.variant == variant)


def _sixty_six_options(lives: Optional[int] = None, target: Optional[int] = None):
    from engine.sixty_six import Options
    return Options(**({"target": target} if target is not None else {}))


GAMES: Dict[str, GameSpec] = {spec.id: spec for spec in (
    _ninety_nine("doksan", "Doksan Dokuz (33, 66, 99)"),
    _ninety_nine("classic", "Classic Ninety-Nine"),
    GameSpec(id="sixty-six", title="Sixty-Six (Altmışaltı)", rules_module="engine.sixty_six",
             bots_module="engine.sixty_six_bots", talk_class="voice.games.sixty_six:SixtySixTalk",
             default_bots=("strong",), simulate_bots=("strong", "greedy"),
             make_options=_sixty_six_options, alternate_first_seat=True),
)}
DEFAULT_GAME = "doksan"


def find_game(name: str) -> GameSpec:
    """The game of an id; ValueError (one sentence) naming the choices otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"there is no game {name!r}; choose {', '.join(GAMES)}") from None
