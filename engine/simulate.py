"""Bot-only games of any rules module, many at once: win counts per seat, 95% Wilson intervals.

Seats are named after their bot and seat number ("Strong 1", "Random 2", ...). Game ``g`` of a
run uses the game seed ``seed * 1_000_003 + g`` and bot seeds derived from it, so a run replays
exactly. With ``alternate_first_seat`` (a game whose seat 0 always leads, like Sixty-Six)
odd-numbered games seat the bots in reverse order; wins are counted by name, not chair.
Pure: nothing is printed; ``progress(done, total)`` lets a caller draw a bar.

>>> from engine import ninety_nine
>>> from engine.ninety_nine_bots import BOTS
>>> result = simulate(ninety_nine, BOTS, ["strong", "random"], games=3, seed=1,
...                   options=ninety_nine.Options("doksan"), game_id="doksan")
>>> result.games, sum(result.wins.values())
(3, 3)
>>> list(to_json(result))[:3]
['games', 'wins', 'games_per_second']
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

MAX_TURNS = 100_000  # a safety net only: real games end in a few hundred turns


class SimulationError(ValueError):
    """A simulation that cannot be run as asked; the message says why."""


@dataclass(frozen=True)
class SimulationResult:
    game: str
    seats: Tuple[str, ...]
    wins: Dict[str, int]
    games: int
    turns: int
    elapsed: float
    seed: int
    options: Any = None

    @property
    def games_per_second(self) -> float:
        return self.games / self.elapsed if self.elapsed > 0 else float("inf")


def seat_names(bots: Sequence[str]) -> Tuple[str, ...]:
    """Seat names from bot kinds, numbered from 1.

    >>> seat_names(["strong", "random", "random"])
    ('Strong 1', 'Random 2', 'Random 3')
    """
    return tuple(f"{kind.capitalize()} {i}" for i, kind in enumerate(bots, start=1))


def simulate(rules, bots: Mapping[str, Callable[[int], Any]], kinds: List[str], games: int,
             seed: int, options: Any, game_id: str = "", alternate_first_seat: bool = False,
             progress: Optional[Callable[[int, int], None]] = None) -> SimulationResult:
    """Play ``games`` games of ``rules`` between bots of ``kinds`` (made from ``bots``)."""
    unknown = [b for b in kinds if b not in bots]
    if unknown:
        raise SimulationError(f"unknown bot {unknown[0]!r}; choose from {', '.join(bots)}")
    fewest, most = rules.PLAYERS
    if not fewest <= len(kinds) <= most:
        count = f"exactly {fewest}" if fewest == most else f"{fewest} to {most}"
        raise SimulationError(f"a game needs {count} bots, not {len(kinds)}")
    if games < 1:
        raise SimulationError("the number of games must be at least 1")
    names = seat_names(kinds)

    def play_game(number: int, game_seed: int) -> Tuple[str, int]:
        order = list(range(len(kinds)))
        if alternate_first_seat and number % 2:
            order.reverse()
        return play_out(rules, [names[i] for i in order], [kinds[i] for i in order], options,
                        game_seed, lambda kind, s: bots[kind](s))

    return run_games(game_id or rules.GAME, names, options, games, seed, progress, play_game)


def run_games(game: str, names: Sequence[str], options, games: int, seed: int,
              progress: Optional[Callable[[int, int], None]],
              play_game: Callable[[int, int], Tuple[str, int]]) -> SimulationResult:
    """Count the wins of ``play_game(number, game_seed) -> (winner, moves)`` over ``games``."""
    wins = {name: 0 for name in names}
    turns = 0
    started = time.perf_counter()
    for number in range(games):
        winner, played = play_game(number, seed * 1_000_003 + number)
        wins[winner] += 1
        turns += played
        if progress is not None:
            progress(number + 1, games)
    elapsed = time.perf_counter() - started
    return SimulationResult(game, tuple(names), wins, games, turns, elapsed, seed, options)


def play_out(engine, names: Sequence[str], bots: Sequence[str], options, game_seed: int,
             make: Callable[[str, int], Any]) -> Tuple[str, int]:
    """Play one game of any engine module between bots made by ``make``: (winner, moves)."""
    players = [make(kind, game_seed * 16 + seat) for seat, kind in enumerate(bots)]
    state = engine.new_game(names, options, seed=game_seed)
    turns = 0
    while not engine.is_over(state):
        if turns >= MAX_TURNS:
            raise SimulationError(f"game seed {game_seed} did not end in {MAX_TURNS} moves")
        seat = engine.current_player(state)
        state, _ = engine.apply(state, players[seat].choose(engine.view(state, seat)))
        turns += 1
    return engine.winner(state), turns


def wilson_interval(wins: int, n: int, z: float = 1.96) -> Tuple[float, float]:
    """The Wilson score interval for a win share (about 95% with z = 1.96).

    >>> tuple(round(x, 3) for x in wilson_interval(50, 100))
    (0.404, 0.596)
    """
    if n <= 0:
        return (0.0, 1.0)
    share = wins / n
    denominator = 1 + z * z / n
    centre = (share + z * z / (2 * n)) / denominator
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def to_json(result: SimulationResult) -> Dict:
    """``{"games", "wins", "games_per_second", ...}``: the first three keys are fixed."""
    return {
        "games": result.games,
        "wins": dict(result.wins),
        "games_per_second": result.games_per_second,
        "game": result.game,
        "seats": list(result.seats),
        "turns": result.turns,
        "elapsed": result.elapsed,
        "seed": result.seed,
        "win_intervals": {name: list(wilson_interval(result.wins[name], result.games))
                          for name in result.seats},
    }
