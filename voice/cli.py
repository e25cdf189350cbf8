"""The command line: talking-cards play | simulate | listen | models.

Every failure a user can cause (a bad option value, a damaged save, a missing model) ends in
one clear sentence and a non-zero exit status, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from typing import List, Optional, Sequence

from .errors import UserError

GAMES = ("doksan", "classic", "sixty-six")


def _split(text: Optional[str]) -> List[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


# --- play -------------------------------------------------------------------------------


def add_play_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", choices=GAMES, default="doksan",
                   help="doksan (Doksan Dokuz, default), classic (Ninety-Nine) or sixty-six")
    p.add_argument("--players", help='human seats in clockwise order, e.g. "Ann,Bob"')
    p.add_argument("--bots", help="bot seats after the humans: strong,random,...")
    p.add_argument("--seed", type=int, help="seed for shuffles and bots (default: random)")
    p.add_argument("--lives", type=int, help="starting lives (Doksan) or chips (Classic)")
    p.add_argument("--target", type=int, help="Sixty-Six: game points to win the match")
    p.add_argument("--deck", help='stack the first deal: "AS,10H,..."')
    p.add_argument("--events", help="write every event as one JSON line to this file")
    p.add_argument("--save", help="save the game to this file after every move")
    p.add_argument("--resume", help="resume the game saved in this file")
    p.add_argument("--input", choices=("auto", "keyboard", "voice"), default="auto",
                   help="keyboard, voice (microphone) or auto (voice when a microphone "
                        "is found and input is not piped)")
    p.add_argument("--wav", nargs="+", metavar="FILE",
                   help="play by voice from these WAV files, one per turn (for tests)")
    p.add_argument("--mute", action="store_true", help="print announcements, do not speak")
    p.add_argument("--lang", default="en", help="language (default en)")
    p.add_argument("--backend", choices=("auto", "vosk", "sphinx"), default="auto")
    p.add_argument("--model", help="path of a Vosk model folder you already have")
    p.add_argument("--push-to-talk", action="store_true",
                   help="press Enter to start and to end each utterance instead of "
                        "hands-free listening")
    p.add_argument("--trailing-silence", type=float, default=0.5, metavar="SECONDS",
                   help="hands-free: the pause that ends an utterance (default 0.5)")
    p.add_argument("--pace", type=float, help="seconds between bot moves (default 0.8, "
                                              "0 when muted and piped)")
    p.add_argument("--rate", type=int, help="speech rate in words per minute")
    p.add_argument("--volume", type=float, help="speech volume, 0 to 1")
    p.add_argument("--voice", help="speech voice (name or language)")
    p.add_argument("--strict-memory", action="store_true",
                   help="Sixty-Six: no reminders of points and tricks, as at a real table")


def play(args: argparse.Namespace) -> int:
    from .play import start_play
    return start_play(args)


# --- simulate ---------------------------------------------------------------------------


def simulate(args: argparse.Namespace) -> int:
    bots = _split(args.bots)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    progress = None
    if not args.json and args.games >= 200:
        progress = _progress_bar(sys.stderr)
    if args.game == "sixty-six":
        from engine.sixty_six_simulate import simulate as run, format_table, to_json
    else:
        from engine.simulate import simulate as run, format_table, to_json
    try:
        result = run(args.game, bots, args.games, seed, options=_sim_options(args),
                     progress=progress)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if progress:
        sys.stderr.write("\n")
    print(json.dumps(to_json(result)) if args.json else format_table(result))
    return 0


def _sim_options(args: argparse.Namespace):
    if args.game == "sixty-six":
        from engine.sixty_six import Options as SixtySixOptions
        return SixtySixOptions(target=args.target) if args.target else None
    from engine.ninety_nine import Options
    try:
        return Options(variant=args.game, lives=args.lives)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _progress_bar(stream):
    def show(done: int, total: int) -> None:
        if done != total and done * 100 // total == (done - 1) * 100 // total:
            return  # redraw once per percent
        width = 30
        filled = width * done // max(total, 1)
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games")
        stream.flush()
    return show


# --- listen -----------------------------------------------------------------------------


def listen(args: argparse.Namespace) -> int:
    from .listen import listen_files
    return listen_files(args)


# --- the parser -------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="talking-cards",
        description="An offline, eyes-free card table you play by voice.")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("play", help="play a game (the default)")
    add_play_arguments(p)
    p.set_defaults(run=play)

    s = sub.add_parser("simulate", help="bot-only games: win rates and speed")
    s.add_argument("--game", choices=GAMES, default="doksan")
    s.add_argument("--bots", default="strong,random,random")
    s.add_argument("--games", type=int, default=1000)
    s.add_argument("--seed", type=int)
    s.add_argument("--lives", type=int)
    s.add_argument("--target", type=int)
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(run=simulate)

    li = sub.add_parser("listen", help="recognize WAV files as commands")
    li.add_argument("files", nargs="+", metavar="FILE.wav")
    li.add_argument("--game", choices=GAMES, default="doksan")
    li.add_argument("--hand", help='cards in hand, e.g. "7S,10H,AD" (default: every card)')
    li.add_argument("--lang", default="en")
    li.add_argument("--backend", choices=("auto", "vosk", "sphinx"), default="auto")
    li.add_argument("--model", help="path of a Vosk model folder")
    li.add_argument("--json", action="store_true", help="one JSON object per file")
    li.set_defaults(run=listen)

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
        from .model_manager import models_command
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


