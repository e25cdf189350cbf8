"""talking-cards models list | download LANG | verify: the command line of the model installer."""
from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence, TextIO

from models import Catalog
from voice.errors import ModelError
from voice.hear.models import _catalog, _megabytes, download, list_models, verify


class TextProgress:
    """A one-line text progress bar (bytes and percent), redrawn only when it changes."""

    def __init__(self, stream: Optional[TextIO] = None, width: int = 30):
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self._last = None

    def __call__(self, done: int, total: Optional[int]) -> None:
        if total:
            percent = min(100, done * 100 // total)
            filled = self.width * percent // 100
            line = "[%s%s] %s of %s, %d%%" % ("#" * filled, "." * (self.width - filled),
                                              _megabytes(done), _megabytes(total), percent)
        else:
            line = "%s" % _megabytes(done)
        if line != self._last:
            self.stream.write("\r" + line)
            self.stream.flush()
            self._last = line

    def finish(self) -> None:
        if self._last is not None:
            self.stream.write("\n")
            self.stream.flush()


class _Parser(argparse.ArgumentParser):
    """argparse that reports problems by exception instead of exiting the program."""

    def error(self, message: str):  # type: ignore[override]
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def _parser() -> _Parser:
    parser = _Parser(prog="talking-cards models", description="Manage offline speech models.")
    commands = parser.add_subparsers(dest="command", metavar="list | download LANG | verify")
    commands.add_parser("list", help="show each language's model and whether it is installed")
    fetch = commands.add_parser("download", help="download and install a language's model")
    fetch.add_argument("lang", help="language code, for example en, tr, ko")
    fetch.add_argument("--base-url", help="fetch <base-url>/<model>.zip instead of the official address")
    fetch.add_argument("--dir", help="install into this folder instead of the models folder")
    commands.add_parser("verify", help="check every installed model against its checksums")
    return parser


def models_command(argv: Sequence[str], out: Optional[TextIO] = None,
                   err: Optional[TextIO] = None, catalog: Optional[Catalog] = None) -> int:
    """Run ``talking-cards models list | download LANG | verify``; return the exit status.

    Lines go to ``out`` (progress and errors to ``err``); no exception escapes.
    """
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr

    def say(line: str, stream: TextIO = out) -> None:
        stream.write(line + "\n")
        stream.flush()

    parser = _parser()
    try:
        args = parser.parse_args(list(argv))
    except _UsageError as error:
        say("%s. Usage: talking-cards models list | download LANG | verify" % str(error).rstrip("."), err)
        return 2
    except SystemExit as stop:  # --help printed its text
        return int(stop.code or 0)
    if args.command is None:
        say("Say what to do. Usage: talking-cards models list | download LANG | verify", err)
        return 2
    try:
        catalog = _catalog(catalog)
        if args.command == "list":
            for row in list_models(catalog):
                where = "installed at %s" % row.path if row.installed else "not installed"
                say("%-6s %-34s %9s  %s" % (row.lang, row.name, _megabytes(row.size), where))
            return 0
        if args.command == "download":
            bar = TextProgress(err)
            try:
                download(args.lang, base_url=args.base_url, progress=bar, dest=args.dir,
                         catalog=catalog, say=lambda line: say(line, err))
            finally:
                bar.finish()
            return 0
        statuses = verify(catalog)
        if not statuses:
            say("No speech models are installed; install one with: talking-cards models download LANG")
            return 0
        for status in statuses:
            say("%-6s %-10s %s" % (status.lang, status.state, status.message))
        return 0 if all(status.usable for status in statuses) else 1
    except ModelError as error:
        say(str(error), err)
        return 1
    except (OSError, ValueError, KeyError) as error:
        say("The speech model catalog could not be read: %s." % error, err)
        return 1
