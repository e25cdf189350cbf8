"""``talking-cards settings``: show the remembered settings (one line each), change the
voice and input ones, or ``--reset`` them all to the built-in defaults."""
from __future__ import annotations

import argparse
import sys

from voice.cli import settings as settings_file
from voice.errors import UserError

CHANGEABLE = ("rate", "volume", "voice", "verbosity", "input")


def settings_command(args: argparse.Namespace) -> int:
    path = settings_file.settings_path()
    if args.reset:
        settings_file.reset(path)
        print(f"Settings reset to the defaults in {path}.")
        return 0
    current, notice = settings_file.load(path)
    if notice:
        print(notice, file=sys.stderr)
    changes = {name: getattr(args, name) for name in CHANGEABLE
               if getattr(args, name) is not None}
    if changes:
        try:
            changed = settings_file.from_json({**current.to_json(), **changes})
        except ValueError as exc:
            raise UserError(f"That setting cannot be used: {exc}.") from None
        settings_file.save(changed, path)
        current = changed
    print(f"Settings file: {path}")
    for line in current.lines():
        print(line)
    return 0
