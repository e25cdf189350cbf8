"""The options of ``play`` (and the games' choices), shared by the subcommands."""
from __future__ import annotations

import argparse
from typing import Dict, List, Optional

from voice.errors import UserError
from voice.games import DEFAULT_GAME, TABLE_CHOICES, VIRTUAL_GAMES


def split_list(text: Optional[str]) -> List[str]:
    """'Ann, Bob,' -> ['Ann', 'Bob']."""
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def add_game_argument(p: argparse.ArgumentParser, default: Optional[str] = DEFAULT_GAME) -> None:
    """``default`` None: the game comes from the settings (``play``)."""
    titles = "; ".join(f"{spec.id}: {spec.title}" for spec in VIRTUAL_GAMES.values())
    said = DEFAULT_GAME if default else f"the remembered one, first {DEFAULT_GAME}"
    p.add_argument("--game", choices=tuple(VIRTUAL_GAMES), default=default,
                   help=f"the game (default {said}); {titles}")


# The options that set up a game: when none is given, ``play`` asks in the start menu.
GAME_SETTING_OPTIONS = ("game", "players", "bots", "lives", "target", "resume", "wav")


def add_play_arguments(p: argparse.ArgumentParser, table: bool = False) -> None:
    """``play``'s options; ``table``: those of ``table`` (a real deck, every seat a person)."""
    if table:
        p.add_argument("--game", choices=TABLE_CHOICES, default=DEFAULT_GAME,
                       help=f"the game played with the real deck (default {DEFAULT_GAME})")
        p.add_argument("--players", help='the players in seating order, clockwise, e.g. '
                                         '"Ann,Bob,Cem" (default: asked in the set-up, with '
                                         'the lives, dealer and house rules); the last '
                                         'deals the first round unless --dealer says, and '
                                         'the seat after the dealer starts')
        p.add_argument("--dealer", metavar="NAME",
                       help="who deals the first round (default: the last player, so the "
                            "first starts; asked in the set-up when --players is not given)")
        p.add_argument("--assist", action="store_true",
                       help="Sixty-Six: tell the card points on request and after each trick "
                            "(by default the players count them, as at a real table)")
        p.set_defaults(table=True)
    else:
        add_game_argument(p, default=None)
        p.add_argument("--players", help='human seats in clockwise order, e.g. "Ann,Bob"')
    p.add_argument("--bots", help="bot seats after the humans: strong,random,...")
    p.add_argument("--seed", type=int, help="seed for shuffles and bots (default: random)")
    p.add_argument("--lives", type=int, help="starting lives (Doksan) or chips (Classic)")
    p.add_argument("--target", type=int, help="Sixty-Six: game points to win the match")
    add_house_rule_argument(p)
    p.add_argument("--deck", help='stack the first deal: "AS,10H,..."')
    p.add_argument("--events", help="write every event as one JSON line to this file")
    p.add_argument("--save", help="save the game to this file after every move")
    p.add_argument("--resume", help="resume the game saved in this file")
    p.add_argument("--force", action="store_true",
                   help="start a new game even though the --save file already exists")
    p.add_argument("--input", choices=("auto", "keyboard", "voice"),
                   help="keyboard, voice (microphone) or auto (voice when a microphone "
                        "is found and input is not piped; the default, or the remembered one)")
    p.add_argument("--wav", nargs="+", metavar="FILE",
                   help="play by voice from these WAV files, one per turn (for tests)")
    p.add_argument("--mute", action="store_true", help="print announcements, do not speak")
    add_voice_arguments(p)
    p.add_argument("--push-to-talk", action="store_true",
                   help="press Enter to start and to end each utterance instead of "
                        "hands-free listening")
    p.add_argument("--barge-in", action="store_true",
                   help="hands-free, for headphones: the microphone stays open while the game "
                        "talks, and speaking cuts it short (with speakers it would hear itself)")
    p.add_argument("--trailing-silence", type=float, default=0.5, metavar="SECONDS",
                   help="hands-free: the pause that ends an utterance (default 0.5)")
    p.add_argument("--pace", type=float, help="seconds between bot moves (default 0.8, "
                                              "0 when muted and piped)")
    p.add_argument("--rate", type=int, help="speech rate in words per minute")
    p.add_argument("--volume", type=float, help="speech volume, 0 to 1")
    p.add_argument("--voice", help="speech voice (name or language)")
    p.add_argument("--verbose", action="store_true",
                   help="announce every turn and every move in full (say 'shorter' or "
                        "'more detail' during a game)")
    p.add_argument("--strict-memory", action="store_true",
                   help="Sixty-Six: no reminders of points and tricks, as at a real table")


def add_house_rule_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--house-rule", action="append", default=[], metavar="NAME",
                   help="switch on a house rule (repeatable): Doksan charge_passing_33_on_66, "
                        "total_may_go_negative; Classic total_may_go_negative; Sixty-Six "
                        "no_last_trick_bonus_after_close, must_win_trick (docs/rules.md)")


def add_voice_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lang", default="en", help="language, e.g. en, en-gb, ko (default en)")
    p.add_argument("--backend", choices=("auto", "vosk", "sphinx"), default="auto")
    p.add_argument("--model", help="path of a Vosk model folder you already have")
    p.add_argument("--profile", action="append", default=[], metavar="[NAME=]FILE",
                   help="your voice profile (made by talking-cards enroll); with several "
                        "players, NAME=FILE for each one who has one (repeatable)")


def profile_paths(values: List[str]) -> Dict[str, str]:
    """--profile values as player name -> file ("" for whoever plays); UserError when two
    are for the same player."""
    paths: Dict[str, str] = {}
    for value in values:
        name, _, path = value.partition("=") if "=" in value else ("", "", value)
        name = name.strip()
        if name in paths or not path:
            raise UserError(f"Give one voice profile per player: --profile NAME=FILE "
                            f"(twice for {name or 'the same player'}).")
        paths[name] = path
    return paths
