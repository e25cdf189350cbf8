"""talking-cards simulate: bot-only games of any registered game, as a table or JSON."""
from __future__ import annotations

import argparse
import json
import random
import sys

from engine.simulate import SimulationError, SimulationResult, to_json, wilson_interval
from voice.cli.options import split_list
from voice.errors import UserError
from voice.games import find_game


def run(args: argparse.Namespace) -> int:
    spec = find_game(args.game)
    kinds = split_list(args.bots) or list(spec.simulate_bots)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    progress = _progress_bar(sys.stderr) if not args.json and args.games >= 200 else None
    try:
        options = spec.make_options(lives=args.lives, target=args.target,
                                   house_rules=args.house_rule)
        result = spec.simulate(kinds, args.games, seed, options, progress)
    except (SimulationError, ValueError) as exc:
        raise UserError(str(exc)) from None
    if progress:
        sys.stderr.write("\n")
    print(json.dumps(to_json(result)) if args.json else format_table(result))
    return 0


def _progress_bar(stream):
    def show(done: int, total: int) -> None:
        if done != total and done * 100 // total == (done - 1) * 100 // total:
            return  # redraw once per percent
        width = 30
        filled = width * done // max(total, 1)
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games")
        stream.flush()
    return show


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
