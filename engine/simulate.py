"""Bot-only games, many at once: win counts per seat, with 95% Wilson intervals.

Seats are named after their bot and seat number ("Strong 1", "Random 2", ...). Game ``g`` of a
run uses the game seed ``seed * 1_000_003 + g`` and bot seeds derived from it, so a run replays
exactly. Pure: nothing is printed; ``progress(done, total)`` lets a caller draw a bar.

>>> result = simulate("doksan", ["strong", "random"], games=3, seed=1)
>>> result.games, sum(result.wins.values())
(3, 3)
>>> list(to_json(result))[:3]
['games', 'wins', 'games_per_second']
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import ninety_nine
from .ninety_nine import Options
from .ninety_nine_bots import KINDS, make_bot

GAMES = ("doksan", "classic")
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
    options: Options = field(default_factory=Options)

    @property
    def games_per_second(self) -> float:
        return self.games / self.elapsed if self.elapsed > 0 else float("inf")

    @property
    def turns_per_second(self) -> float:
        return self.turns / self.elapsed if self.elapsed > 0 else float("inf")


def seat_names(bots: Sequence[str]) -> Tuple[str, ...]:
    """Seat names from bot kinds, numbered from 1.

    >>> seat_names(["strong", "random", "random"])
    ('Strong 1', 'Random 2', 'Random 3')
    """
    return tuple(f"{kind.capitalize()} {i}" for i, kind in enumerate(bots, start=1))


def simulate(game: str, bots: List[str], games: int, seed: int,
             options: Optional[Options] = None,
             progress: Optional[Callable[[int, int], None]] = None) -> SimulationResult:
    """Play ``games`` bot-only games of ``game`` (doksan or classic) and count the wins."""
    if game not in GAMES:
        raise SimulationError(f"unknown game {game!r}; choose {' or '.join(GAMES)}")
    unknown = [b for b in bots if b not in KINDS]
    if unknown:
        raise SimulationError(f"unknown bot {unknown[0]!r}; choose from {', '.join(KINDS)}")
    if not 2 <= len(bots) <= ninety_nine.MAX_PLAYERS:
        raise SimulationError(f"a game needs 2 to {ninety_nine.MAX_PLAYERS} bots, "
                              f"not {len(bots)}")
    if games < 1:
        raise SimulationError("the number of games must be at least 1")
    if options is None:
        options = Options(variant=game)
    elif options.variant != game:
        raise SimulationError(f"the options are for {options.variant}, not {game}")
    names = seat_names(bots)
    return run_games(game, names, options, games, seed, progress,
                     lambda number, game_seed: play_one(names, bots, options, game_seed))


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


def play_one(names: Sequence[str], bots: Sequence[str], options: Options,
             game_seed: int) -> Tuple[str, int]:
    """One game between bots: (winner's name, number of plays)."""
    return play_out(ninety_nine, names, bots, options, game_seed)


def play_out(engine, names: Sequence[str], bots: Sequence[str], options, game_seed: int,
             make=make_bot) -> Tuple[str, int]:
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


def format_table(result: SimulationResult) -> str:
    """Per-seat win rates with 95% intervals, then games and speed."""
    width = max(len("Seat"), *(len(name) for name in result.seats))
    lines = [f"{'Seat':<{width}}  {'Wins':>6}  {'Rate':>6}  95% CI",
             f"{'-' * width}  {'-' * 6}  {'-' * 6}  {'-' * 15}"]
    for name in result.seats:
        wins = result.wins[name]
        low, high = wilson_interval(wins, result.games)
        lines.append(f"{name:<{width}}  {wins:>6}  {wins / result.games:>6.1%}  "
                     f"{low:.1%} - {high:.1%}")
    lines.append(f"{result.games} games of {result.game}, {result.turns} plays, "
                 f"{result.elapsed:.1f} s, {result.games_per_second:.1f} games/s")
    return "\n".join(lines)


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
