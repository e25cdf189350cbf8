"""Every registered game meets the protocol of engine/api.py (OpenSpiel's random_sim_test):
random games through the protocol only, for each entry of voice.games.GAMES."""
from __future__ import annotations

import json
import random

import pytest

from engine.api import IllegalAction
from voice.games import GAMES


def random_game(spec, seed: int, players: int):
    """(states, events) of one game played by random legal actions, checking as it goes."""
    rules = spec.rules
    names = [f"P{i}" for i in range(players)]
    state = rules.new_game(names, spec.make_options(lives=2), seed=seed)
    rng = random.Random(seed)
    log = [e.to_json() for e in rules.opening_events(state)]
    for _ in range(3000):
        if rules.is_over(state):
            break
        legal = rules.legal_actions(state)
        assert legal, "a game that is not over has a legal action"
        for action in legal:
            rules.check(state, action)            # every legal action passes the check
        seat = rules.current_player(state)
        view = rules.view(state, seat)
        assert tuple(view.legal) == tuple(legal)  # the player to move sees the same choices
        action = rng.choice(legal)
        state, events = rules.apply(state, action)
        log += [e.to_json() for e in events]
        data = json.loads(json.dumps(state.to_json()))
        assert rules.State.from_json(data) == state
        assert data["game"] == rules.GAME and data["version"] == rules.SAVE_VERSION
    assert rules.is_over(state) and rules.winner(state) in names
    return state, log


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_games_keep_the_protocol_and_replay_from_their_seed(game, seed):
    spec = GAMES[game]
    players = spec.players[1] if spec.players[1] <= 3 else 3
    _, first = random_game(spec, seed, players)
    _, again = random_game(spec, seed, players)
    assert first == again


@pytest.mark.parametrize("game", [g for g in GAMES if GAMES[g].table_of is None])
def test_check_refuses_what_legal_actions_leaves_out_with_a_code(game):
    spec = GAMES[game]
    rules = spec.rules
    state = rules.new_game(["P0", "P1"], spec.make_options(), seed=5)
    legal = rules.legal_actions(state)
    hand = state.hands[rules.current_player(state)]
    other = state.hands[1 - rules.current_player(state)]
    stranger = next(c for c in other if c not in hand)
    candidates = [type(legal[0])(stranger)]
    for action in candidates:
        assert action not in legal
        with pytest.raises(IllegalAction) as refusal:
            rules.check(state, action)
        assert refusal.value.code == "not_in_hand" and refusal.value.fields == {"card": stranger}
        with pytest.raises(IllegalAction):
            rules.apply(state, action)


@pytest.mark.parametrize("game", [g for g in GAMES
                                  if GAMES[g].rules_module == "engine.ninety_nine_table"])
def test_a_table_mode_refuses_what_legal_actions_leaves_out_with_a_code(game):
    """At a real Ninety-Nine table there are no hands: a rank used up (a fifth king) is what
    is left out (Sixty-Six's table: tests/test_sixty_six_table.py)."""
    spec = GAMES[game]
    rules = spec.rules
    state = rules.new_game(["P0", "P1"], spec.make_options(lives=20), seed=5)
    king = next(a for a in rules.legal_actions(state) if a.rank == "K")
    for _ in range(4):
        state, _ = rules.apply(state, king)
    assert king not in rules.legal_actions(state)
    with pytest.raises(IllegalAction) as refusal:
        rules.check(state, king)
    assert refusal.value.code == "rank_exhausted" and refusal.value.fields == {"rank": "K",
                                                                               "count": 4}
