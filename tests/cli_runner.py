"""Running the real command line from tests, and reading its events files."""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
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


class Game:
    """``talking-cards play ARGS`` running, its printed lines read in a thread: lines are
    typed to it one by one, when the test has seen what it waits for."""

    def __init__(self, args, env=None):
        self.proc = subprocess.Popen([sys.executable, "-m", "voice", "play", *args], cwd=ROOT,
                                     env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)   # never read
        self.lines: "queue.Queue[str]" = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def type(self, line: str = "") -> None:
        """A line typed at the keyboard (an empty one is Enter, push-to-talk's key)."""
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def end(self) -> None:
        """The keyboard closed (end of input ends the program), then the program waited for."""
        self.proc.stdin.close()
        self.proc.wait(timeout=30)

    def say_move(self, audio, phrase: str, total: str) -> None:
        """``phrase`` spoken into ``audio``'s microphone; a "yes" if the program asks first."""
        from speech_clips import synthesize
        audio.play_wav(synthesize(phrase))
        line = self.wait_for(total, "?")
        if total not in line:   # "Ten, plus 10? Say yes, or say it again.": it was not sure
            audio.play_wav(synthesize("yes"))
            self.wait_for(total)

    def wait_for(self, *needles, timeout=40.0):
        """The first printed line containing one of ``needles``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            self.seen.append(line)
            if any(n in line for n in needles):
                return line
        raise AssertionError(f"none of {needles} was printed; printed: {self.seen}")
