"""Sixty-Six bots: legal, deterministic, view-only, and the strong bot's exact endgame."""
from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings, strategies as st

from engine import sixty_six as ss
from engine import sixty_six_bots as bots
from engine.sixty_six_bots import make_bot

NAMES = ["Ada", "Bo"]


def play_match(kind0, kind1, seed, target=7, max_steps=3000):
    players = [make_bot(kind0, seed), make_bot(kind1, seed + 1)]
    s = ss.new_game(NAMES, ss.Options(target=target), seed=seed)
    choices = []
    for _ in range(max_steps):
        if ss.is_over(s):
            return s, choices
        seat = ss.current_player(s)
        v = ss.view(s, seat)
        action = players[seat].choose(v)
        assert action in v.legal, (action, v.legal)
        choices.append(action)
        s, _ = ss.apply(s, action)
    raise AssertionError("match did not end")


def test_make_bot_kinds_and_unknown_kind():
    for kind in ("random", "greedy", "sampling", "strong"):
        assert make_bot(kind, 1).name == kind
    with pytest.raises(ValueError, match="unknown Sixty-Six bot 'genius'"):
        make_bot("genius", 1)


@pytest.mark.parametrize("kinds", [("random", "greedy"), ("sampling", "strong"),
                                   ("strong", "random"), ("greedy", "sampling")])
def test_bots_play_legal_moves_to_the_end_of_a_match(kinds):
    s, _ = play_match(kinds[0], kinds[1], seed=3, target=7)
    assert ss.winner(s) in NAMES


def test_bots_are_deterministic_from_their_seed():
    _, a = play_match("strong", "sampling", seed=11)
    _, b = play_match("strong", "sampling", seed=11)
    assert a == b


def view_with_points(points):
    """Seat 0 on lead, two cards each, stock exhausted, with about ``points`` in its tricks."""
    pile, total = [], 0
    for c in sorted(ss.DECK, key=lambda c: -ss.VALUES[c]):
        if 0 < ss.VALUES[c] and total + ss.VALUES[c] <= points:
            pile.append(c)
            total += ss.VALUES[c]
    if len(pile) % 2:
        pile.append(next(c for c in ss.DECK if ss.VALUES[c] == 0 and c not in pile))
    others = [c for c in ss.DECK if c not in pile]
    state = dataclasses.replace(
        ss.new_game(NAMES, seed=4), won=(tuple(pile), tuple(others[4:])),
        hands=(tuple(others[:2]), tuple(others[2:4])), stock=(), trump_card=others[4],
        trump_suit=others[4][-1], leader=0, turn=0, table=None)
    ss._check_consistent(state)
    assert ss.card_points(state, 0) == total
    return ss.view(state, 0)


@pytest.mark.parametrize("kind", ["random", "greedy", "sampling", "strong"])
def test_every_bot_claims_with_66_and_strong_not_below(kind):
    assert view_with_points(66).my_points == 66
    assert make_bot(kind, 1).choose(view_with_points(66)) == ss.Claim()
    assert view_with_points(65).my_points == 64
    assert make_bot("strong", 1).choose(view_with_points(65)) != ss.Claim()


def test_greedy_plays_trump_else_follows_else_highest():
    deck = ["9S", "JS", "AH", "KD", "9D", "JD", "AS", "10S", "KS", "QS", "QC", "JC", "9C"]
    s = ss.new_game(NAMES, seed=2, deck=deck)  # trump clubs
    s, _ = ss.apply(s, ss.Play("9S"))
    greedy = make_bot("greedy", 0)
    assert greedy.choose(ss.view(s, 1)) == ss.Play("QC")  # has trumps: highest trump
    s2 = ss.new_game(NAMES, seed=2, deck=["9S", "JS", "AH", "KD", "9D", "JD",
                                          "AS", "10S", "KS", "QS", "9H", "JH", "9C"])
    s2, _ = ss.apply(s2, ss.Play("9S"))
    assert greedy.choose(ss.view(s2, 1)) == ss.Play("AS")  # no trump: highest of the suit led
    s3, _ = ss.apply(ss.new_game(NAMES, seed=2, deck=["AS", "10S", "KS", "QS", "QC", "JC",
                                                      "AH", "KD", "9D", "JD", "9H", "JH", "9C"]),
                     ss.Play("AS"))
    assert greedy.choose(ss.view(s3, 1)) == ss.Play("AH")  # neither: highest card


# ----------------------------------------------------------------------------- exact endgame


def oracle(state, me):
    """Minimax over the real engine: value of the hand for ``me`` in capped game points."""
    seat = ss.current_player(state)
    if ss.card_points(state, seat) >= 66:
        _, events = ss.apply(state, ss.Claim())
        return outcome(events, state, me)
    values = []
    for action in ss.legal_actions(state):
        if action.type != "play":
            continue
        nxt, events = ss.apply(state, action)
        if any(e.type == "hand_end" for e in events):
            values.append(outcome(events, state, me))
        else:
            values.append(oracle(nxt, me))
    return max(values) if seat == me else min(values)


def outcome(events, state, me):
    end = [e for e in events if e.type == "hand_end"][0]
    target = state.options.target
    seat = state.players.index(end.winner)
    need = target - state.score[seat]
    gp = min(end.game_points, need)
    return gp if seat == me else -gp


def random_endgame(seed, cards_left, close=False, options=ss.Options()):
    """Play a random hand until each side holds ``cards_left`` cards in the strict phase."""
    rng = random.Random(seed)
    s = ss.new_game(NAMES, options, seed=seed)
    if close:
        s, _ = ss.apply(s, ss.Close())
    while True:
        if not ss.stock_open(s) and s.table is None and len(s.hands[s.turn]) == cards_left:
            return s
        acts = [a for a in ss.legal_actions(s) if a.type in ("play", "marriage", "play_on")]
        s, events = ss.apply(s, rng.choice(acts))
        if any(e.type == "hand_end" for e in events):
            return None


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(2, 4))
def test_strong_bot_plays_an_optimal_card_once_the_stock_is_exhausted(seed, cards_left):
    s = random_endgame(seed, cards_left)
    if s is None or ss.card_points(s, s.turn) >= 66:
        return
    me = s.turn
    choice = make_bot("strong", seed).choose(ss.view(s, me))
    best = oracle(s, me)
    after, events = ss.apply(s, choice)
    got = outcome(events, s, me) if any(e.type == "hand_end" for e in events) else oracle(after, me)
    assert got == best


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(1, 4), st.booleans(), st.booleans(), st.booleans())
def test_solver_agrees_with_the_engine_on_every_endgame(seed, cards_left, close, no_bonus,
                                                        must_win):
    """The bot's fast simulated hand and alpha-beta give the engine's minimax value."""
    options = ss.Options(no_last_trick_bonus_after_close=no_bonus, must_win_trick=must_win)
    s = random_endgame(seed, cards_left, close=close, options=options)
    if s is None:
        return
    me = s.turn
    v = ss.view(s, me)
    know = bots.Knowledge(v)
    world = know.deal(random.Random(0))
    # give the simulated world the opponent's true hand (a perfect-information check)
    world.hands[1 - me] = sum(1 << bots.INDEX[c] for c in s.hands[1 - me])
    need = (s.options.target - s.score[0], s.options.target - s.score[1])
    assert bots.Solver(me, need).value(world) == oracle(s, me)


# ----------------------------------------------------------------------------- sampling


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(0, 30))
def test_deals_are_consistent_with_what_the_seat_has_seen(seed, steps):
    rng = random.Random(seed)
    s = ss.new_game(NAMES, seed=seed)
    for _ in range(steps):
        acts = [a for a in ss.legal_actions(s) if a.type != "claim"]
        s, events = ss.apply(s, rng.choice(acts))
        if any(e.type == "hand_end" for e in events):
            break
    me = s.turn
    v = ss.view(s, me)
    know = bots.Knowledge(v)
    world = know.deal(random.Random(seed))
    theirs = {bots.CODE[c] for c in bots._bits(world.hands[1 - me])}
    stock = [bots.CODE[c] for c in world.stock]
    assert len(theirs) == len(s.hands[1 - me]) and len(stock) == len(s.stock)
    assert set(v.opponent_known) <= theirs
    assert not theirs & set(v.hand) and not theirs & set(v.played)
    if s.stock:
        assert stock[-1] == s.stock[-1]  # the known trump card stays at the bottom
    assert sorted(theirs | set(stock) | set(v.hand) | set(v.played)) == sorted(ss.DECK)
    for suit in v.voids[1 - me]:
        assert all(c[-1] != suit for c in theirs if c not in v.opponent_known)


# ----------------------------------------------------------------------------- playout policy


def open_stock_sim(hands, pts, tricks, leader, table=-1):
    """A simulated hand with the stock open, trump clubs, cards given as codes."""
    sim = bots.Sim.__new__(bots.Sim)
    sim.hands = [sum(1 << bots.INDEX[c] for c in h) for h in hands]
    held = set(hands[0]) | set(hands[1])
    sim.stock = [bots.INDEX[c] for c in ss.DECK if c not in held][:6]
    sim.trump, sim.closed, sim.leader, sim.table = 3, -1, leader, table
    sim.pts, sim.tricks, sim.pending = list(pts), list(tricks), [0, 0]
    sim.must_win, sim.close_bonus, sim.result, sim.last = False, True, None, leader
    return sim


def test_playout_leader_near_33_leads_what_a_trickless_opponent_cannot_take():
    sim = open_stock_sim([["AS", "9H", "JD"], ["9S", "JH", "QD"]], pts=(40, 0), tricks=(3, 0),
                         leader=0)
    assert bots.heuristic_move(sim) == ("play", bots.INDEX["AS"])
    sim.pts = [20, 0]  # far from 66: the cheapest card, as before
    assert bots.heuristic_move(sim) == ("play", bots.INDEX["9H"])


def test_playout_trickless_follower_takes_a_trick_when_the_opponent_nears_33():
    sim = open_stock_sim([["9C", "JS", "QD"], ["AS", "10S", "KH"]], pts=(0, 35), tricks=(0, 3),
                         leader=1, table=bots.INDEX["9H"])
    assert bots.heuristic_move(sim) == ("play", bots.INDEX["9C"])
    sim.pts = [0, 20]
    assert bots.heuristic_move(sim) == ("play", bots.INDEX["JS"])


@pytest.mark.parametrize("no_bonus, result", [(False, (0, 1)), (True, (1, 2))])
def test_sim_gives_the_last_trick_bonus_after_a_close_unless_the_house_rule_says_no(
        no_bonus, result):
    won0 = ("10S", "KS", "QS", "JS", "AH", "10H", "KH", "QH", "KD", "QD")  # 54, 65 after AS
    won1 = tuple(c for c in ss.DECK if c not in won0 + ("AS", "9S", "JC", "9C"))
    state = dataclasses.replace(
        ss.new_game(NAMES, ss.Options(no_last_trick_bonus_after_close=no_bonus), seed=4),
        hands=(("AS",), ("9S",)), won=(won0, won1), stock=("JC", "9C"), trump_card="9C",
        trump_suit="C", closed_by=0, leader=0, turn=0, table=None)
    ss._check_consistent(state)
    sim = bots.Knowledge(ss.view(state, 0)).deal(random.Random(0))
    sim.lead(bots.INDEX["AS"])
    sim.follow(bots.INDEX["9S"])
    assert sim.result == result and sim.pts[0] == (65 if no_bonus else 75)


def marriage_to_66():
    """Ada has 49 points in tricks and leads the KH of a hearts marriage: 69, stock open."""
    won0, won1 = ("AS", "10S", "AD", "10D", "KS", "QS"), ("JS", "9S")
    hands = (("KH", "QH", "AH", "9D", "JD", "QD"), ("10H", "9H", "JH", "KD", "AC", "10C"))
    stock = tuple(c for c in ss.DECK if c not in won0 + won1 + hands[0] + hands[1] + ("9C",))
    state = dataclasses.replace(
        ss.new_game(NAMES, seed=4), hands=hands, won=(won0, won1), stock=stock + ("9C",),
        trump_card="9C", trump_suit="C", leader=0, turn=0, table=None)
    ss._check_consistent(state)
    return state


@pytest.mark.parametrize("kind", ["random", "greedy", "sampling", "strong"])
def test_every_bot_claims_in_the_claim_window(kind):
    s, _ = ss.apply(marriage_to_66(), ss.Marriage("KH"))
    v = ss.view(s, 0)
    assert v.claim_window and v.legal == (ss.PlayOn(), ss.Claim())
    assert make_bot(kind, 1).choose(v) == ss.Claim()


def test_sim_claims_right_after_a_marriage_that_reaches_66():
    sim = bots.Knowledge(ss.view(marriage_to_66(), 0)).deal(random.Random(0))
    sim.marry(bots.INDEX["KH"])
    window, _ = ss.apply(marriage_to_66(), ss.Marriage("KH"))
    _, events = ss.apply(window, ss.Claim())
    end = [e for e in events if e.type == "hand_end"][0]
    assert sim.result == (0, end.game_points) == (0, 2)
