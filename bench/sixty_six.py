"""Sixty-Six benchmark: strong bot's match win rates, its decision time, and engine speed.

    python3 bench/sixty_six.py                      # 500 matches to 7 per opponent, 2 workers
    python3 bench/sixty_six.py --matches 100 --opponents sampling --workers 1
    python3 bench/sixty_six.py --matches 1000 --opponents greedy   # the >= 99% target

The strong bot takes seat 0 in even-numbered matches and seat 1 in odd ones; every match has
its own seed, so a run is reproducible (the decision times are not).
"""
from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from multiprocessing import Pool
from typing import List, Tuple

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import sixty_six as ss  # noqa: E402
from engine.sixty_six_bots import make_bot  # noqa: E402


def play_match(task: Tuple[str, int, int]) -> Tuple[str, bool, List[float], List[float]]:
    """One match of strong against ``opponent``: (opponent, strong won, strong's wall-clock
    and CPU seconds per decision)."""
    opponent, seed, target = task
    strong_seat = seed % 2
    bots = [None, None]
    bots[strong_seat] = make_bot("strong", seed * 2 + 1)
    bots[1 - strong_seat] = make_bot(opponent, seed * 2 + 2)
    state = ss.new_game(["p0", "p1"], ss.Options(target=target), seed=seed)
    times: List[float] = []
    cpu: List[float] = []
    while not ss.is_over(state):
        seat = ss.current_player(state)
        v = ss.view(state, seat)
        start, start_cpu = time.perf_counter(), time.process_time()
        action = bots[seat].choose(v)
        if seat == strong_seat:
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        state, _ = ss.apply(state, action)
    return opponent, state.match_winner == strong_seat, times, cpu


def wilson(wins: int, n: int, z: float = 1.96) -> Tuple[float, float]:
    """95% Wilson score interval for a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def engine_speed(seconds: float) -> float:
    """Random hands per second: legal_actions + a random legal move + apply, claims at 66."""
    rng = random.Random(1)
    state = ss.new_game(["a", "b"], seed=1)
    hands, games = 0, 1
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(200):
            actions = ss.legal_actions(state)
            if ss.card_points(state, state.turn) >= ss.WINNING_POINTS:
                action = actions[-1]  # Claim is always last
            else:
                action = rng.choice(actions[:-1])
            state, events = ss.apply(state, action)
            if events[-1].type in ("deal", "game_over"):
                hands += 1
            if ss.is_over(state):
                games += 1
                state = ss.new_game(["a", "b"], seed=games)
    return hands / (time.perf_counter() - start)


def main(argv: List[str] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=500, help="matches per opponent")
    parser.add_argument("--target", type=int, default=7, help="game points to win a match")
    parser.add_argument("--opponents", default="random,greedy,sampling")
    parser.add_argument("--workers", type=int, default=2, help="processes (the Pi 4 has 4)")
    parser.add_argument("--speed-seconds", type=float, default=5.0)
    args = parser.parse_args(argv)

    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    tasks = [(o, seed, args.target) for o in opponents for seed in range(args.matches)]
    wins = {o: 0 for o in opponents}
    times: List[float] = []
    cpu: List[float] = []
    started = time.time()
    with Pool(args.workers) as pool:
        for opponent, won, ts, cs in pool.imap_unordered(play_match, tasks, chunksize=4):
            wins[opponent] += won
            times.extend(ts)
            cpu.extend(cs)
    elapsed = time.time() - started

    print(f"Sixty-Six: strong bot, {args.matches} matches to {args.target} per opponent, "
          f"{args.workers} workers, {elapsed:.0f} s")
    print(f"{'opponent':<10} {'won':>9} {'rate':>7} {'95% CI (Wilson)':>18}")
    for o in opponents:
        lo, hi = wilson(wins[o], args.matches)
        print(f"{o:<10} {wins[o]:>4}/{args.matches:<4} {wins[o] / args.matches:>7.1%} "
              f"{lo:>8.1%} - {hi:.1%}")
    for label, values in (("wall clock", times), ("CPU", cpu)):
        values.sort()
        if values:
            mean = sum(values) / len(values)
            p99 = values[min(len(values) - 1, int(0.99 * len(values)))]
            print(f"strong decision time ({label}): mean {mean * 1000:.1f} ms, "
                  f"p99 {p99 * 1000:.1f} ms, max {values[-1] * 1000:.1f} ms "
                  f"over {len(values)} decisions")
    print(f"engine: {engine_speed(args.speed_seconds):,.0f} random hands/s (one process)")


if __name__ == "__main__":
    main()
