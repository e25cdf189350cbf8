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
    """engine.simulate for a registered game, as ``talking-cards simulate`` runs it."""
    from engine.simulate import simulate
    from voice.games import find_game
    spec = find_game(game)
    return simulate(spec.rules, spec.bots, list(bots), games, seed,
                    options if options is not None else spec.make_options(), game_id=spec.id,
                    alternate_first_seat=spec.alternate_first_seat, progress=progress)
