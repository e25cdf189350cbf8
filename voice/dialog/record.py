"""What a game leaves behind: the events file (one JSON line per event) and the save file
(the game state plus who sits where, people or bots), rewritten atomically after each move."""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Dict, List, NamedTuple, Optional, Sequence

FORMAT = "talking-cards-save"
VERSION = 1


class SaveError(ValueError):
    """A save file that cannot be used: one sentence that says why."""


@dataclass(frozen=True)
class Seat:
    name: str
    bot: Optional[str] = None  # bot kind, or None for a person


def write_save(path: str, game: str, state_json: Dict, seats: List[Seat], bot_seed: int) -> None:
    """Write to a temporary file and rename it, so a crash never leaves half a save."""
    data = {"format": FORMAT, "version": VERSION, "game": game, "bot_seed": bot_seed,
            "seats": [{"name": s.name, "bot": s.bot} for s in seats], "state": state_json}
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=".save-", dir=str(target.parent.resolve()))
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.replace(tmp, target)


class SavedGame(NamedTuple):
    game_id: str
    state_json: Dict
    seats: List[Seat]
    bot_seed: int


def read_save(path: str) -> SavedGame:
    """The saved game; SaveError with a clear reason otherwise."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise SaveError(f"There is no save file {path}.") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise SaveError(f"The save file {path} is damaged and cannot be read.") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SaveError(f"{path} is not a Talking Cards save file.")
    if data.get("version") != VERSION:
        raise SaveError(f"The save file {path} is from another version of Talking Cards "
                        f"(version {data.get('version')!r}; this one reads {VERSION}).")
    try:
        seats = [Seat(str(s["name"]), s["bot"]) for s in data["seats"]]
        return SavedGame(str(data["game"]), dict(data["state"]), seats, int(data["bot_seed"]))
    except (KeyError, TypeError, ValueError):
        raise SaveError(f"The save file {path} is damaged and cannot be read.") from None


class Recorder:
    """Writes a game's events file and save file as it goes; either may be absent."""

    def __init__(self, game_id: str, seats: Sequence[Seat], bot_seed: int,
                 events_file: Optional[IO[str]] = None, save_path: Optional[str] = None) -> None:
        self.game_id = game_id
        self.seats = list(seats)
        self.bot_seed = bot_seed
        self.events_file = events_file
        self.save_path = save_path

    def log(self, records: Sequence[Any]) -> None:
        """Events (records with ``to_json``) or plain dicts, one JSON line each."""
        if self.events_file is None:
            return
        for record in records:
            data = record if isinstance(record, dict) else record.to_json()
            self.events_file.write(json.dumps(data) + "\n")
        self.events_file.flush()

    def rejected(self, player: str, text: str, reason: str) -> None:
        self.log([{"type": "rejected", "player": player, "input": text, "reason": reason}])

    def undo(self, player: str) -> None:
        self.log([{"type": "undo", "player": player}])

    def save(self, state) -> None:
        if self.save_path:
            write_save(self.save_path, self.game_id, state.to_json(), self.seats, self.bot_seed)
