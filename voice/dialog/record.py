"""What a game leaves behind: the events file (one JSON line per event) and the save file
(the game state, who sits where, and where the bots' choices and the events file stand),
rewritten atomically after each move.

The program touches only the files a user named, and only as what they are: a save file is
a regular file or absent (never a device a rename would replace); an events file is a
regular file, absent, or a character device such as /dev/null. Both are checked before the
game starts, so a bad path is one sentence, not a traceback mid-game. A write that fails
later (a full disk) is said once; the game goes on, the last good save stays, and no
temporary file is left behind.

After a kill -9 the events file can be one move ahead of the save: the save records how far
the events file had got, and a resumed game cuts the file back to that point before it
appends, so its events file reads as one unbroken game.
"""
from __future__ import annotations

import json
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Union

FORMAT = "talking-cards-save"
VERSION = 1
MAX_SAVE_BYTES = 4 * 1024 * 1024   # a real save is a few kilobytes


class SaveError(ValueError):
    """A save or events file that cannot be used: one sentence that says why."""


@dataclass(frozen=True)
class Seat:
    name: str
    bot: Optional[str] = None  # bot kind, or None for a person


def _kind(path: Path) -> Optional[int]:
    """The file's mode (following links), or None when nothing is there."""
    try:
        return os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SaveError(f"{path} cannot be used ({exc.strerror}).") from None


def _check_folder(path: Path, what: str) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise SaveError(f"The folder {folder} for the {what} does not exist.")
    try:  # the only sure test of "can I write here": a scratch file, removed at once
        fd, scratch = tempfile.mkstemp(prefix=".talking-cards-check-", dir=str(folder))
        os.close(fd)
        os.unlink(scratch)
    except OSError:
        raise SaveError(f"The folder {folder} for the {what} cannot be written to.") from None


def check_save_target(path: str, new_game: bool, force: bool = False) -> None:
    """Refuse, in one sentence, a save path that is not a regular file, lies in a folder that
    is missing or read-only, or (for a new game, without ``force``) already exists."""
    target = Path(path)
    mode = _kind(target)
    if mode is not None and not stat.S_ISREG(mode):
        raise SaveError(f"{path} is not a regular file; choose another name for the save.")
    if mode is not None and new_game and not force:
        raise SaveError(f"The file {path} already exists: resume it with --resume {path}, "
                        f"or add --force to start a new game over it.")
    _check_folder(target, "save file")


def open_events(path: str, resumed: bool = False, resume_at: Optional[int] = None) -> IO[str]:
    """The events file, opened for this game: a new game starts it; a resumed game appends,
    first cutting it back to ``resume_at`` (the length the save recorded) when it is at least
    that long. SaveError when it cannot be used."""
    target = Path(path)
    mode = _kind(target)
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISCHR(mode)):
        raise SaveError(f"{path} is not a regular file; choose another name for the events.")
    if mode is None or stat.S_ISREG(mode):
        _check_folder(target, "events file")
    try:
        if mode is not None and stat.S_ISREG(mode) and resumed:
            if resume_at is not None and os.path.getsize(target) >= resume_at:
                f = open(target, "r+", encoding="utf-8")
                f.truncate(resume_at)
                f.seek(resume_at)
                return f
            return open(target, "a", encoding="utf-8")  # never wipe a game's record
        return open(target, "w", encoding="utf-8")
    except OSError as exc:
        raise SaveError(f"The events file {path} cannot be written ({exc.strerror}).") from None


def close_events(events_file: IO[str]) -> None:
    """Close an events file; what a full disk refused was already said during the game."""
    try:
        events_file.close()
    except OSError:
        pass


def write_save(path: str, data: Dict[str, Any]) -> None:
    """Write to a temporary file beside the target and rename it over, so a crash never
    leaves half a save; the temporary file never survives a failure."""
    target = Path(path)
    mode = _kind(target)
    if mode is not None and not stat.S_ISREG(mode):
        raise SaveError(f"{path} is not a regular file any more; the game was not saved.")
    write_atomically(target, json.dumps(data), ".save-")


def write_atomically(target: Path, text: Union[str, bytes], prefix: str) -> None:
    """``text`` (or bytes) into a temporary file beside ``target``, synced, then renamed over
    it: the file is whole or as it was, and the temporary file never survives a failure."""
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=str(target.parent.resolve()))
    try:
        binary = isinstance(text, bytes)
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else "utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class SavedGame(NamedTuple):
    game_id: str
    state_json: Dict
    seats: List[Seat]
    bot_seed: int
    moves: int                  # actions applied so far: seeds the bots' next choices
    events_length: Optional[int]  # how far the events file had got at this save


def _seat(data: Any) -> Seat:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) \
            or not isinstance(data.get("bot"), (str, type(None))):
        raise ValueError("bad seat")
    return Seat(data["name"], data["bot"])


def _count(data: Dict, key: str, default: Optional[int]) -> Optional[int]:
    value = data.get(key, default)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or not 0 <= value < 2 ** 62):
        raise ValueError(f"bad {key}")
    return value


def read_save(path: str) -> SavedGame:
    """The saved game; SaveError with a clear reason otherwise. Only a regular file of a
    sensible size is read (never a FIFO that would hang, nor /dev/zero without end)."""
    mode = _kind(Path(path))
    if mode is None:
        raise SaveError(f"There is no save file {path}.")
    if not stat.S_ISREG(mode):
        raise SaveError(f"{path} is not a regular file, so it is not a save file.")
    damaged = SaveError(f"The save file {path} is damaged and cannot be read.")
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_SAVE_BYTES + 1)
        if len(raw) > MAX_SAVE_BYTES:
            raise SaveError(f"{path} is far too large to be a save file.")
        data = json.loads(raw.decode("utf-8"))
    except SaveError:
        raise
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        raise damaged from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SaveError(f"{path} is not a Talking Cards save file.")
    if data.get("version") != VERSION:
        raise SaveError(f"The save file {path} is from another version of Talking Cards "
                        f"(version {str(data.get('version'))[:20]!r}; this one reads {VERSION}).")
    try:
        if not isinstance(data["game"], str) or not isinstance(data["state"], dict):
            raise ValueError("bad game")
        seats = [_seat(s) for s in data["seats"]]
        return SavedGame(data["game"], data["state"], seats, _count(data, "bot_seed", None),
                         _count(data, "moves", 0), _count(data, "events_length", None))
    except (KeyError, TypeError, ValueError):
        raise damaged from None


class Recorder:
    """Writes a game's events file and save file as it goes; either may be absent.

    A write that fails is reported once through ``on_problem(kind, path)`` ("save" or
    "events") and the game goes on."""

    def __init__(self, game_id: str, seats: Sequence[Seat], bot_seed: int,
                 events_file: Optional[IO[str]] = None, save_path: Optional[str] = None,
                 moves: int = 0) -> None:
        self.game_id = game_id
        self.seats = list(seats)
        self.bot_seed = bot_seed
        self.events_file = events_file
        self.save_path = save_path
        self.moves = moves
        self.on_problem: Callable[[str, str], None] = lambda kind, path: None
        self._failed: set = set()

    def log(self, records: Sequence[Any]) -> None:
        """Events (records with ``to_json``) or plain dicts, one JSON line each."""
        if self.events_file is None:
            return
        try:
            for record in records:
                data = record if isinstance(record, dict) else record.to_json()
                self.events_file.write(json.dumps(data) + "\n")
            self.events_file.flush()
        except OSError:
            self._fail("events", getattr(self.events_file, "name", "events"))
            self.events_file = None

    def rejected(self, player: str, text: str, reason: str) -> None:
        self.log([{"type": "rejected", "player": player, "input": text, "reason": reason}])

    def undo(self, player: str) -> None:
        self.log([{"type": "undo", "player": player}])

    def save(self, state) -> None:
        if not self.save_path:
            return
        events_length = None
        if self.events_file is not None:
            try:
                events_length = self.events_file.tell()
            except OSError:  # a device such as /dev/null has no length to come back to
                events_length = None
        data = {"format": FORMAT, "version": VERSION, "game": self.game_id,
                "bot_seed": self.bot_seed, "moves": self.moves,
                "events_length": events_length,
                "seats": [{"name": s.name, "bot": s.bot} for s in self.seats],
                "state": state.to_json()}
        try:
            write_save(self.save_path, data)
            self._failed.discard("save")
        except (OSError, SaveError):
            self._fail("save", self.save_path)

    def _fail(self, kind: str, path: str) -> None:
        if kind not in self._failed:  # said once, until it works again
            self._failed.add(kind)
            self.on_problem(kind, path)
