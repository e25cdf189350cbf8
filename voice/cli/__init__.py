"""The command line: talking-cards play | table | simulate | listen | enroll | models | settings.

Every failure a user can cause (a bad option value, a damaged save, a missing model) ends in
one clear sentence and a non-zero exit status, never a traceback. Nothing imports this
package: it is the shell around the rest.
"""
from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from voice.cli.options import (add_game_argument, add_house_rule_argument, add_play_arguments,
                               add_voice_arguments)
from voice.errors import UserError


def play(args: argparse.Namespace) -> int:
    from voice.cli.play import start_play
    return start_play(args)


def practice(args: argparse.Namespace) -> int:
    from voice.cli.practice import run
    return run(args)


def simulate(args: argparse.Namespace) -> int:
    from voice.cli.simulate import run
    return run(args)


def listen(args: argparse.Namespace) -> int:
    from voice.cli.listen import listen_files
    return listen_files(args)


def enroll(args: argparse.Namespace) -> int:
    from voice.cli.enroll import run
    return run(args)


def settings_cmd(args: argparse.Namespace) -> int:
    from voice.cli.settings_command import settings_command
    return settings_command(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="talking-cards",
        description="An offline, eyes-free card table you play by voice.")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("play", help="play a game (the default)")
    add_play_arguments(p)
    p.set_defaults(run=play)

    t = sub.add_parser("table", help="referee and keep score for a real deck at a real table")
    add_play_arguments(t, table=True)
    t.set_defaults(run=play)

    pr = sub.add_parser("practice", help="a guided practice round of Doksan Dokuz")
    add_play_arguments(pr)
    pr.set_defaults(run=practice, input="auto")

    s = sub.add_parser("simulate", help="bot-only games: win rates and speed")
    add_game_argument(s)
    s.add_argument("--bots", help="the bots, e.g. strong,random,random (default: the game's)")
    s.add_argument("--games", type=int, default=1000)
    s.add_argument("--seed", type=int)
    s.add_argument("--lives", type=int)
    s.add_argument("--target", type=int)
    add_house_rule_argument(s)
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(run=simulate)

    li = sub.add_parser("listen", help="recognize WAV files as commands")
    li.add_argument("files", nargs="+", metavar="FILE.wav")
    add_game_argument(li)
    li.add_argument("--hand", help='cards in hand, e.g. "7S,10H,AD" (default: every card)')
    add_voice_arguments(li)
    li.add_argument("--json", action="store_true", help="one JSON object per file")
    li.set_defaults(run=listen)

    en = sub.add_parser("enroll", help="teach the game your voice: a voice profile from "
                                       "recordings, or spoken now")
    en.add_argument("--profile", required=True, metavar="FILE",
                    help="the voice profile to make or extend")
    en.add_argument("takes", nargs="*", metavar="PHRASE=FILE.wav",
                    help="a recording of a phrase (repeat a phrase for more takes); none: "
                         "say each word when asked")
    en.add_argument("--lang", default="en", help="language, e.g. en, tr (default en)")
    en.add_argument("--new", action="store_true", help="start afresh instead of extending FILE")
    en.add_argument("--keep-audio", action="store_true",
                    help="keep the recordings in the profile too (only features by default)")
    en.add_argument("--wav", nargs="+", metavar="FILE",
                    help="spoken enrollment from these WAV files, one answer each (for tests)")
    en.add_argument("--push-to-talk", action="store_true", help="press Enter to start and end "
                                                              "each take")
    en.add_argument("--mute", action="store_true", help="print the prompts, do not speak")
    en.add_argument("--rate", type=int, help="speech rate in words per minute")
    en.add_argument("--volume", type=float, help="speech volume, 0 to 1")
    en.add_argument("--voice", help="speech voice (name or language)")
    en.set_defaults(run=enroll)

    st = sub.add_parser("settings", help="show, change or reset the remembered settings")
    st.add_argument("--reset", action="store_true", help="back to the built-in defaults")
    st.add_argument("--rate", type=int, help="speech rate in words per minute (80 to 450)")
    st.add_argument("--volume", type=float, help="speech volume, 0 to 1")
    st.add_argument("--voice", help="speech voice (name or language)")
    st.add_argument("--verbosity", choices=("concise", "verbose"))
    st.add_argument("--input", choices=("auto", "keyboard", "voice"))
    st.set_defaults(run=settings_cmd)

    m = sub.add_parser("models", help="list, download or verify speech models",
                       add_help=False)
    m.add_argument("rest", nargs=argparse.REMAINDER)
    m.set_defaults(run=None)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        argv = ["play"] + argv
    if argv[0] == "models":
        from voice.cli.models import models_command
        return models_command(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except UserError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("Stopped.", file=sys.stderr)
        return 130
