"""Running the real command line from tests, and reading its events files."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def talking_cards(*args: str, stdin: str = "", timeout: float = 120,
                  env=None) -> subprocess.CompletedProcess:
    """``talking-cards ARGS`` with ``stdin`` piped in; output captured as text."""
    return subprocess.run([sys.executable, "-m", "voice", *args], input=stdin, cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=timeout)


def read_events(path: Path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def simulate_game(game: str, bots, games: int, seed: int, options=None, progress=None):
    """A registered game's bot-only games, as ``talking-cards simulate`` runs them."""
    from voice.games import find_game
    return find_game(game).simulate(bots, games, seed, options, progress)
