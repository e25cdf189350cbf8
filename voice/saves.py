"""Save files: the game state plus who sits where (people or bots), written atomically."""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

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


def read_save(path: str) -> Tuple[str, Dict, List[Seat], int]:
    """(game, state JSON, seats, bot seed); SaveError with a clear reason otherwise."""
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
        return str(data["game"]), dict(data["state"]), seats, int(data["bot_seed"])
    except (KeyError, TypeError, ValueError):
        raise SaveError(f"The save file {path} is damaged and cannot be read.") from None
