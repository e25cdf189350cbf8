"""The one list of games. The command line's choices, ``play``, ``simulate``, ``listen`` and
the save format all ask it; nothing outside a game's own modules names a game.

A game's modules are imported when the game is first used, so starting Doksan Dokuz does not
load Sixty-Six's bots.

>>> [spec.id for spec in GAMES.values()]
['doksan', 'classic', 'sixty-six', 'doksan-table', 'classic-table', 'sixty-six-table']
>>> find_table_game("doksan").id
'doksan-table'
>>> find_game("sixty-six").default_bots
('strong',)
>>> find_game("classic").rules.__name__
'engine.ninety_nine'
"""
from __future__ import annotations

from typing import Dict, Optional, Sequence

from voice.games.spec import GameSpec


def _house(names: Sequence[str], known: Sequence[str]) -> Dict[str, bool]:
    """The rules' option switches for ``--house-rule`` names; ValueError for an unknown one."""
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"there is no house rule {unknown[0]!r} in this game; choose from "
                         f"{', '.join(known) or 'none'}")
    return {name: True for name in names}


NINETY_NINE_HOUSE_RULES = ("charge_passing_33_on_66", "total_may_go_negative")
SIXTY_SIX_HOUSE_RULES = ("no_last_trick_bonus_after_close", "must_win_trick")


def _ninety_nine(variant: str, title: str) -> GameSpec:
    known = NINETY_NINE_HOUSE_RULES if variant == "doksan" else ("total_may_go_negative",)

    def make_options(lives: Optional[int] = None, target: Optional[int] = None,
                     house_rules: Sequence[str] = ()):
        from engine.ninety_nine import Options
        return Options(variant=variant, lives=lives, **_house(house_rules, known))
    return GameSpec(
        id=variant, title=title, rules_module="engine.ninety_nine",
        bots_module="engine.ninety_nine_bots", talk_class="voice.games.ninety_nine:NinetyNineTalk",
        default_bots=("strong", "strong"), simulate_bots=("strong", "random", "random"),
        make_options=make_options, accepts=lambda state: state.options.variant == variant,
        house_rules=known)


def _sixty_six_options(lives: Optional[int] = None, target: Optional[int] = None,
                       house_rules: Sequence[str] = ()):
    from engine.sixty_six import Options
    return Options(**({"target": target} if target is not None else {}),
                   **_house(house_rules, SIXTY_SIX_HOUSE_RULES))


def _ninety_nine_table(variant: str, title: str) -> GameSpec:
    """Table mode: the referee of a real deck (``talking-cards table --game VARIANT``)."""
    virtual = _ninety_nine(variant, title)
    return GameSpec(
        id=f"{variant}-table", title=f"{title}, table mode", rules_module="engine.ninety_nine_table",
        bots_module="engine.ninety_nine_table",
        talk_class="voice.games.ninety_nine_table:NinetyNineTableTalk", default_bots=(),
        simulate_bots=(), make_options=virtual.make_options,
        accepts=lambda state: state.options.variant == variant, table_of=variant,
        words=("table",), house_rules=virtual.house_rules)


GAMES: Dict[str, GameSpec] = {spec.id: spec for spec in (
    _ninety_nine("doksan", "Doksan Dokuz (33, 66, 99)"),
    _ninety_nine("classic", "Classic Ninety-Nine"),
    GameSpec(id="sixty-six", title="Sixty-Six (Altmışaltı)", rules_module="engine.sixty_six",
             bots_module="engine.sixty_six_bots", talk_class="voice.games.sixty_six:SixtySixTalk",
             default_bots=("strong",), simulate_bots=("strong", "greedy"),
             make_options=_sixty_six_options, alternate_first_seat=True, words=("sixty_six",),
             house_rules=SIXTY_SIX_HOUSE_RULES),
    _ninety_nine_table("doksan", "Doksan Dokuz (33, 66, 99)"),
    _ninety_nine_table("classic", "Classic Ninety-Nine"),
    GameSpec(id="sixty-six-table", title="Sixty-Six (Altmışaltı), table mode",
             rules_module="engine.sixty_six_table", bots_module="engine.sixty_six_table",
             talk_class="voice.games.sixty_six_table:SixtySixTableTalk", default_bots=(),
             simulate_bots=(), make_options=_sixty_six_options, table_of="sixty-six",
             words=("sixty_six", "table", "sixty_six_table"), house_rules=SIXTY_SIX_HOUSE_RULES),
)}
DEFAULT_GAME = "doksan"
# the games played on the device (``play``, ``simulate``, ``listen``), table modes left out
VIRTUAL_GAMES: Dict[str, GameSpec] = {k: v for k, v in GAMES.items() if v.table_of is None}
# ``table --game``: the games with a table mode
TABLE_CHOICES = tuple(spec.table_of for spec in GAMES.values() if spec.table_of)


def find_table_game(name: str) -> GameSpec:
    """The table mode refereeing a game; ValueError (one sentence) when there is none yet."""
    for spec in GAMES.values():
        if spec.table_of == name:
            return spec
    raise ValueError(f"there is no table mode for {name!r} yet; choose "
                     f"{', '.join(s.table_of for s in GAMES.values() if s.table_of)}")


def find_game(name: str) -> GameSpec:
    """The game of an id; ValueError (one sentence) naming the choices otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"there is no game {name!r}; choose {', '.join(VIRTUAL_GAMES)}") from None
