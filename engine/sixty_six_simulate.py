"""Bot-only Sixty-Six matches: win counts per seat, with 95% Wilson intervals.

The result type, table and JSON are engine/simulate.py's, so ``talking-cards simulate --game
sixty-six`` prints like Ninety-Nine. Match ``g`` uses the seed ``seed * 1_000_003 + g``; the
engine always lets seat 0 lead the first hand, so odd-numbered matches seat the bots in
reverse order (a bot's wins are counted by its name, not its chair).

>>> result = simulate("sixty-six", ["greedy", "random"], games=2, seed=1)
>>> result.games, sum(result.wins.values()), result.seats
(2, 2, ('Greedy 1', 'Random 2'))
"""
from __future__ import annotations

from typing import Callable, List, Optional, Sequence, Tuple

from . import sixty_six as ss
from .simulate import (SimulationError, SimulationResult, format_table, play_out, run_games,
                       seat_names, to_json)
from .sixty_six_bots import BOTS, make_bot

__all__ = ["simulate", "play_one", "format_table", "to_json", "SimulationError"]

def simulate(game: str, bots: List[str], games: int, seed: int,
             options: Optional[ss.Options] = None,
             progress: Optional[Callable[[int, int], None]] = None) -> SimulationResult:
    """Play ``games`` bot-only Sixty-Six matches and count each seat's wins."""
    if game != "sixty-six":
        raise SimulationError(f"this runner plays sixty-six, not {game!r}")
    unknown = [b for b in bots if b not in BOTS]
    if unknown:
        raise SimulationError(f"unknown bot {unknown[0]!r}; choose from {', '.join(BOTS)}")
    if len(bots) != 2:
        raise SimulationError(f"Sixty-Six is for exactly two bots, not {len(bots)}")
    if games < 1:
        raise SimulationError("the number of games must be at least 1")
    options = options or ss.Options()
    names = seat_names(bots)

    def play_game(number: int, game_seed: int) -> Tuple[str, int]:
        order = (0, 1) if number % 2 == 0 else (1, 0)  # seat 0 always leads the first hand
        return play_one([names[i] for i in order], [bots[i] for i in order], options,
                        game_seed)

    return run_games(game, names, options, games, seed, progress, play_game)


def play_one(names: Sequence[str], bots: Sequence[str], options: ss.Options,
             game_seed: int) -> Tuple[str, int]:
    """One match between two bots: (winner's name, number of moves)."""
    return play_out(ss, names, bots, options, game_seed, make=make_bot)
