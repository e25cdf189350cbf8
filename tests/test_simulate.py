"""The bot-only simulation runner: counts, seeds, intervals, table and JSON shape."""
from __future__ import annotations

import json

import pytest

from engine.ninety_nine import Options
from cli_runner import simulate_game as simulate
from engine.simulate import SimulationError, seat_names, to_json, wilson_interval
from voice.cli.simulate import format_table


def test_seat_names_are_kind_and_seat_number():
    assert seat_names(["strong", "random", "random"]) == ("Strong 1", "Random 2", "Random 3")


@pytest.mark.parametrize("game", ["doksan", "classic"])
def test_wins_add_up_to_games(game):
    result = simulate(game, ["random", "strong", "random", "random"], games=12, seed=4)
    assert set(result.wins) == {"Random 1", "Strong 2", "Random 3", "Random 4"}
    assert sum(result.wins.values()) == result.games == 12
    assert result.turns >= 12 * 10  # no Ninety-Nine game ends in fewer than ten plays here
    assert result.elapsed > 0 and result.games_per_second > 0


def test_same_seed_same_result_other_seed_other_games():
    first = simulate("doksan", ["random", "random", "random"], games=20, seed=9)
    again = simulate("doksan", ["random", "random", "random"], games=20, seed=9)
    other = simulate("doksan", ["random", "random", "random"], games=20, seed=10)
    assert (first.wins, first.turns) == (again.wins, again.turns)
    assert (first.wins, first.turns) != (other.wins, other.turns)


def test_progress_is_reported_after_every_game():
    calls = []
    simulate("classic", ["random", "random"], games=5, seed=1,
             progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]


def test_house_rule_options_are_used():
    quick = simulate("doksan", ["random", "random"], games=10, seed=2, options=Options(lives=1))
    usual = simulate("doksan", ["random", "random"], games=10, seed=2)
    assert quick.turns < usual.turns


def test_json_has_games_wins_and_speed_first():
    result = simulate("doksan", ["strong", "random"], games=4, seed=1)
    data = json.loads(json.dumps(to_json(result)))
    assert list(data)[:3] == ["games", "wins", "games_per_second"]
    assert data["games"] == 4
    assert data["wins"] == {"Strong 1": result.wins["Strong 1"],
                            "Random 2": result.wins["Random 2"]}
    assert data["games_per_second"] > 0


def test_table_lists_every_seat_with_its_interval():
    result = simulate("classic", ["strong", "random", "random"], games=6, seed=1)
    table = format_table(result)
    for name in result.seats:
        assert name in table
    assert "95% CI" in table and "games/s" in table
    assert f"{result.games} games of classic" in table


def test_wilson_interval():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    low, high = wilson_interval(0, 20)
    assert low == 0.0 and 0.15 < high < 0.17
    low, high = wilson_interval(20, 20)
    assert high == 1.0 and 0.83 < low < 0.85
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_an_unknown_game_is_refused_in_one_sentence():
    with pytest.raises(ValueError, match="there is no game 'poker'"):
        simulate("poker", ["random", "random"], games=1, seed=1)


@pytest.mark.parametrize("game, bots, games, options, message", [
    ("doksan", ["random", "genius"], 1, None, "unknown bot"),
    ("doksan", ["random"], 1, None, "2 to 10 bots"),
    ("doksan", ["random"] * 11, 1, None, "2 to 10 bots"),
    ("doksan", ["random", "random"], 0, None, "at least 1"),
])
def test_bad_requests_are_refused_in_one_sentence(game, bots, games, options, message):
    with pytest.raises(SimulationError, match=message):
        simulate(game, bots, games=games, seed=1, options=options)
