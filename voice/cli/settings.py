"""The player's settings, kept in one small JSON file in the user's config folder.

The folder is ``$TALKING_CARDS_CONFIG`` when set (the tests always set it), otherwise
``platformdirs.user_config_dir("talking-cards")``; the file is ``settings.json`` in it::

    {"version": 1, "rate": null, "volume": null, "voice": null, "verbosity": "concise",
     "names": ["Player"], "game": "doksan", "opponents": null, "lives": {}, "target": null,
     "input": "auto"}

``null`` means "the built-in default". Command-line options override the settings, and the
settings override the built-in defaults. The start menu's answers become the next defaults.

Only that one file is ever read or written: a path that exists and is not a regular file is
refused in one sentence, and the file is replaced atomically (a temporary file in the same
folder, renamed over it). A damaged file (not JSON, wrong types, too large) is reported once
in one sentence and rewritten with the defaults.
"""
from __future__ import annotations

import json
import os
import stat
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from voice.dialog.record import write_atomically
from voice.errors import UserError
from voice.games import GAMES

ENV = "TALKING_CARDS_CONFIG"
FILE_NAME = "settings.json"
MAX_BYTES = 64 * 1024
VERSION = 1
VERBOSITIES = ("concise", "verbose")
INPUTS = ("auto", "keyboard", "voice")
MAX_NAME = 40
MAX_NAMES = 10


@dataclass
class Settings:
    rate: Optional[int] = None          # speech rate, words per minute
    volume: Optional[float] = None      # 0 to 1
    voice: Optional[str] = None         # a speech voice (name or language)
    verbosity: str = "concise"          # "concise" or "verbose": how bots' moves are said
    names: List[str] = field(default_factory=lambda: ["Player"])  # the people at the table
    game: str = "doksan"                # the game the menu offers first
    opponents: Optional[int] = None     # computer players; None: the game's own number
    lives: Dict[str, int] = field(default_factory=dict)  # starting lives (chips) per game
    target: Optional[int] = None        # Sixty-Six: game points to win
    input: str = "auto"                 # "auto", "keyboard" or "voice"

    def to_json(self) -> Dict:
        return {"version": VERSION, **asdict(self)}

    def lines(self) -> List[str]:
        """One plain line per setting, for ``talking-cards settings``."""
        shown = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or value == {}:
                text = "default"
            elif isinstance(value, list):
                text = ", ".join(value)
            elif isinstance(value, dict):
                text = ", ".join(f"{k} {v}" for k, v in value.items())
            else:
                text = str(value)
            shown.append(f"{f.name}: {text}")
        return shown


def config_folder() -> Path:
    named = os.environ.get(ENV)
    if named:
        return Path(named)
    import platformdirs
    return Path(platformdirs.user_config_dir("talking-cards", appauthor=False))


def settings_path() -> Path:
    return config_folder() / FILE_NAME


def _is_int(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _is_text(value, most: int = MAX_NAME) -> bool:
    return isinstance(value, str) and 0 < len(value) <= most and value.isprintable() \
        and value.strip() == value


def from_json(data) -> Settings:
    """Settings from the file's JSON; ValueError saying what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("it is not a JSON object")
    if data.get("version", VERSION) != VERSION:
        raise ValueError(f"it has an unknown version {data.get('version')!r}")
    s = Settings()
    checks = {
        "rate": lambda v: v is None or _is_int(v, 80, 450),
        "volume": lambda v: v is None or (isinstance(v, (int, float))
                                          and not isinstance(v, bool) and 0 <= v <= 1),
        "voice": lambda v: v is None or _is_text(v, 100),
        "verbosity": lambda v: v in VERBOSITIES,
        "names": lambda v: isinstance(v, list) and 1 <= len(v) <= MAX_NAMES
        and all(_is_text(n) and "," not in n for n in v),
        "game": lambda v: isinstance(v, str) and v in GAMES,
        "opponents": lambda v: v is None or _is_int(v, 1, 9),
        "lives": lambda v: isinstance(v, dict) and len(v) <= 10
        and all(k in GAMES and _is_int(n, 1, 99) for k, n in v.items()),
        "target": lambda v: v is None or _is_int(v, 1, 99),
        "input": lambda v: v in INPUTS,
    }
    for name, ok in checks.items():
        if name in data:
            if not ok(data[name]):
                raise ValueError(f"its {name} is {data[name]!r}")
            setattr(s, name, data[name])
    if s.volume is not None:
        s.volume = float(s.volume)
    return s


def _refuse_odd(path: Path) -> None:
    """UserError when the path (or its folder) exists and is not what it should be."""
    folder = path.parent
    if folder.exists() and not folder.is_dir():
        raise UserError(f"The settings folder {folder} is not a folder; "
                        f"name another with {ENV}.")
    try:
        mode = os.stat(path).st_mode  # a link is followed, but only to a regular file
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UserError(f"The settings file {path} cannot be read ({exc.strerror}).") from None
    if not stat.S_ISREG(mode):
        raise UserError(f"The settings file {path} is not a regular file, so it is left "
                        f"alone; remove it or name another folder with {ENV}.")


def _read(path: Path) -> Optional[bytes]:
    """The file's bytes (at most MAX_BYTES + 1), None if absent; never blocks on a FIFO."""
    _refuse_odd(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UserError(f"The settings file {path} cannot be read ({exc.strerror}).") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # swapped since the check
            raise UserError(f"The settings file {path} is not a regular file, so it is "
                            f"left alone.")
        return f.read(MAX_BYTES + 1)


def load(path: Optional[Path] = None) -> Tuple[Settings, Optional[str]]:
    """(settings, notice): the defaults when there is no file; a damaged file is replaced by
    the defaults and ``notice`` says so in one sentence (None otherwise)."""
    path = Path(path) if path is not None else settings_path()
    raw = _read(path)
    if raw is None:
        return Settings(), None
    try:
        if len(raw) > MAX_BYTES:
            raise ValueError(f"it is larger than {MAX_BYTES // 1024} KB")
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise ValueError("it is not valid JSON") from None
        return from_json(data), None
    except ValueError as exc:
        settings = Settings()
        notice = f"The settings file {path} was damaged ({exc}), so the defaults are used " \
                 f"and written over it."
        try:
            save(settings, path)
        except UserError as failure:
            notice = f"The settings file {path} was damaged ({exc}); the defaults are used " \
                     f"and it could not be replaced: {failure}"
        return settings, notice


def save(settings: Settings, path: Optional[Path] = None) -> Path:
    """Write the settings atomically (temp file + rename in the same folder)."""
    path = Path(path) if path is not None else settings_path()
    _refuse_odd(path)
    text = json.dumps(settings.to_json(), ensure_ascii=False, indent=2) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomically(path, text, ".settings-")
    except OSError as exc:
        raise UserError(f"The settings could not be saved to {path} "
                        f"({exc.strerror or exc}).") from None
    return path


def reset(path: Optional[Path] = None) -> Path:
    return save(Settings(), path)
