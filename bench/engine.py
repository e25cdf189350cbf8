"""Ninety-Nine engine and bot speed, and the strong bot's win rate against random bots.

    python3 bench/engine.py                # everything (the two 2000-game runs take a while)
    python3 bench/engine.py --games 200    # quicker win-rate runs

Prints three tables: random play through the engine (turns/s, games/s), bot decision times
(mean and 99th percentile), and ``strong,random,random`` win rates with 95% Wilson intervals.
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import ninety_nine as nn  # noqa: E402
from engine.ninety_nine_bots import BOTS, make_bot  # noqa: E402
from voice.games import find_game  # noqa: E402
from voice.cli.simulate import format_table  # noqa: E402

VARIANTS = ("doksan", "classic")


def cpu_model() -> str:
    """The CPU's name ("model name" on x86, "Model" on a Raspberry Pi)."""
    try:
        fields = dict(line.split(":", 1) for line in
                      Path("/proc/cpuinfo").read_text().splitlines() if ":" in line)
    except OSError:
        fields = {}
    fields = {key.strip().lower(): value.strip() for key, value in fields.items()}
    name = fields.get("model name") or fields.get("hardware") or platform.machine()
    board = fields.get("model", "")
    return f"{board} ({name})" if "raspberry" in board.lower() else name


def load_average() -> str:
    try:
        return "%.1f %.1f %.1f" % os.getloadavg()
    except (AttributeError, OSError):
        return "unknown"


def random_play(variant: str, players: int, seconds: float):
    """Whole games of uniformly random legal plays: (turns/s, games/s, turns per CPU second).
    The last leaves out time taken by other processes on a busy machine."""
    options = nn.Options(variant=variant)
    names = [f"P{i}" for i in range(players)]
    picker = random.Random(1)
    turns = games = 0
    started, started_cpu = time.perf_counter(), time.thread_time()
    while time.perf_counter() - started < seconds:
        state = nn.new_game(names, options, seed=games)
        while not nn.is_over(state):
            state, _ = nn.apply(state, picker.choice(nn.legal_actions(state)))
            turns += 1
        games += 1
    elapsed, cpu = time.perf_counter() - started, time.thread_time() - started_cpu
    return turns / elapsed, games / elapsed, turns / cpu


def positions(variant: str, players: int, count: int):
    """Views met in random games: what a bot is asked to decide on."""
    options = nn.Options(variant=variant)
    picker = random.Random(2)
    found = []
    game = 0
    while len(found) < count:
        state = nn.new_game([f"P{i}" for i in range(players)], options, seed=1000 + game)
        while not nn.is_over(state) and len(found) < count:
            seen = nn.view(state, nn.current_player(state))
            found.append(seen)
            state, _ = nn.apply(state, picker.choice(seen.legal))
        game += 1
    return found


def decision_times(kind: str, views):
    """Seconds per ``choose`` as (mean, p99) twice: wall clock, then this thread's CPU time
    (which leaves out the time other processes on a busy machine took from us)."""
    bot = make_bot(kind, 1)
    for seen in views[:200]:  # warm up: the first positions fill the bot's outcome cache
        bot.choose(seen)
    wall, cpu = [], []
    for seen in views:
        started, started_cpu = time.perf_counter(), time.thread_time()
        bot.choose(seen)
        cpu.append(time.thread_time() - started_cpu)
        wall.append(time.perf_counter() - started)
    return mean_and_p99(wall) + mean_and_p99(cpu)


def mean_and_p99(times):
    ordered = sorted(times)
    return statistics.mean(ordered), ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per win-rate run")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="seconds of random play per throughput row")
    parser.add_argument("--decisions", type=int, default=3000,
                        help="positions timed per bot and variant")
    args = parser.parse_args()

    print(f"Machine: {cpu_model()}, {os.cpu_count()} cores; Python "
          f"{platform.python_version()}; load average {load_average()}; one core used")
    print()
    print("Random play through the engine (legal_actions + apply)")
    print(f"{'variant':<8} {'players':>7} {'turns/s':>9} {'games/s':>8} {'turns/cpu s':>12}")
    for variant in VARIANTS:
        for players in (3, 4):
            turns, games, per_cpu = random_play(variant, players, args.seconds)
            print(f"{variant:<8} {players:>7} {turns:>9,.0f} {games:>8.1f} {per_cpu:>12,.0f}")
    print()
    print("Bot decision time (choose, from views met in 3- and 4-player random games)")
    print(f"{'bot':<7} {'variant':<8} {'wall mean ms':>12} {'wall p99 ms':>11} "
          f"{'cpu mean ms':>11} {'cpu p99 ms':>10}")
    for variant in VARIANTS:
        views = (positions(variant, 3, args.decisions // 2)
                 + positions(variant, 4, args.decisions - args.decisions // 2))
        for kind in tuple(BOTS):
            wall_mean, wall_p99, cpu_mean, cpu_p99 = decision_times(kind, views)
            print(f"{kind:<7} {variant:<8} {wall_mean * 1000:>12.3f} {wall_p99 * 1000:>11.3f} "
                  f"{cpu_mean * 1000:>11.3f} {cpu_p99 * 1000:>10.3f}")
    print()
    for variant in VARIANTS:
        result = find_game(variant).simulate(["strong", "random", "random"], args.games, seed=1)
        print(format_table(result))
        print()


if __name__ == "__main__":
    main()
