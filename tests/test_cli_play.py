"""Whole games through the real command line, with stacked decks and piped input."""
from __future__ import annotations

import json

from cli_runner import Game, read_events, talking_cards

run_cli = talking_cards


# Ann: 10S 3S 5S; Bob: KH 10H 6H; then the stock, first card drawn first.
DECK = "10S,3S,5S,KH,10H,6H,9C,9D,8C,8D"


def test_a_whole_two_player_game_from_piped_input(tmp_path):
    events = tmp_path / "events.jsonl"
    typed = "\n".join([
        "seven",          # not in hand: refused
        "ten minus",      # below zero: refused
        "banana",         # not a command at all
        "total",          # a question: answered, nothing changes
        "ten",            # only plus is legal at 0: used, and said so
        "king",           # Bob: 20
        "3",              # Ann: 23
        "10",             # Bob: plus or minus? (both legal)
        "plus",           # Bob: 33 -> Ann loses her only life: Bob wins
    ]) + "\n"
    result = run_cli("play", "--players", "Ann,Bob", "--lives", "1", "--seed", "5",
                     "--deck", DECK, "--mute", "--events", str(events), stdin=typed)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "You have no seven" in out
    assert "below zero" in out
    assert "did not understand 'banana'" in out
    assert "The total is 0." in out
    assert "Ten counts plus 10" in out
    assert "Ten: plus or minus?" in out
    assert "Game over. Bob wins the game!" in out
    log = read_events(events)
    rejected = [(e["player"], e["input"], e["reason"]) for e in log if e["type"] == "rejected"]
    assert rejected == [("Ann", "seven", "not_in_hand"), ("Ann", "ten minus", "below_zero"),
                        ("Ann", "banana", "not_understood")]
    plays = [(e["player"], e["card"], e["value"], e["total_before"], e["total"])
             for e in log if e["type"] == "play"]
    assert plays == [("Ann", "10S", 10, 0, 10), ("Bob", "KH", 10, 10, 20),
                     ("Ann", "3S", 3, 20, 23), ("Bob", "10H", 10, 23, 33)]
    tail = [e for e in log if e["type"] in ("lives", "eliminated", "game_over")]
    assert tail == [
        {"type": "lives", "player": "Ann", "delta": -1, "lives": 0, "reason": "hit_33"},
        {"type": "eliminated", "player": "Ann", "reason": "no_lives"},
        {"type": "game_over", "winner": "Bob"},
    ]


def test_save_after_every_move_and_resume_exactly(tmp_path):
    save = tmp_path / "game.json"
    first = run_cli("play", "--players", "Ann,Bob", "--seed", "5", "--deck", DECK, "--mute",
                    "--save", str(save), stdin="ten\n")
    assert first.returncode == 0, first.stderr
    assert f"Game saved to {save}" in first.stdout
    saved = json.loads(save.read_text())
    assert saved["state"]["total"] == 10 and saved["state"]["turn"] == 1
    events = tmp_path / "events.jsonl"
    second = run_cli("play", "--resume", str(save), "--mute", "--events", str(events),
                     stdin="king\nhand\n")
    assert second.returncode == 0, second.stderr
    assert "Game resumed.\nThe total is 10." in second.stdout
    assert "Bob: king of hearts. Total 20." in second.stdout
    assert json.loads(save.read_text())["state"]["total"] == 20


def test_a_damaged_or_foreign_save_is_refused_with_a_sentence(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = run_cli("play", "--resume", str(bad), "--mute")
    assert result.returncode == 2
    assert "damaged" in result.stderr and "Traceback" not in result.stderr
    bad.write_text(json.dumps({"format": "talking-cards-save", "version": 99}))
    result = run_cli("play", "--resume", str(bad), "--mute")
    assert result.returncode == 2 and "another version" in result.stderr
    result = run_cli("play", "--resume", str(tmp_path / "missing.json"), "--mute")
    assert result.returncode == 2 and "no save file" in result.stderr


def test_bad_options_are_refused_with_a_sentence():
    result = run_cli("play", "--players", "Ann", "--bots", "genius", "--mute")
    assert result.returncode == 2 and "Unknown bot 'genius'" in result.stderr
    result = run_cli("play", "--players", "Ann,Bob", "--deck", "AS,ZZ", "--mute")
    assert result.returncode == 2 and "not a card code" in result.stderr
    result = run_cli("play", "--players", "Ann,Bob", "--deck", "AS,AS", "--mute")
    assert result.returncode == 2 and "more often" in result.stderr
    assert "Traceback" not in result.stderr


def test_bots_play_between_human_turns_and_quit_asks_first(tmp_path):
    events = tmp_path / "events.jsonl"
    result = run_cli("play", "--players", "Ann", "--bots", "strong,random", "--seed", "2",
                     "--mute", "--events", str(events), stdin="lives\nquit\nno\nquit\nyes\n")
    assert result.returncode == 0, result.stderr
    assert "Quit the game? Say yes or no." in result.stdout
    assert "All right, carry on." in result.stdout and "Goodbye." in result.stdout
    assert "Ann 10 lives, Strong 2 10 lives and Random 3 10 lives." in result.stdout


def test_simulate_prints_json_with_wins_per_seat():
    result = run_cli("simulate", "--game", "doksan", "--bots", "strong,random,random",
                     "--games", "30", "--seed", "1", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["games"] == 30 and sum(data["wins"].values()) == 30
    assert set(data["wins"]) == {"Strong 1", "Random 2", "Random 3"}
    assert data["games_per_second"] > 0


def test_33_doubled_to_66_costs_everyone_else_and_the_house_rule_charges_the_player(tmp_path):
    """Bob's three makes 33, Ann's nine keeps it, Bob's two doubles it to 66: Ann loses a
    life each time and Bob nothing; with charge_passing_33_on_66 Bob also pays for 33."""
    deck = "KS,QD,9S,QS,3H,2H,9C,9D,9H,8C,8D,8H"
    typed = "king\nqueen\nqueen\nthree\nnine\ntwo\nquit\nyes\n"
    for house, bob in (([], []), (["--house-rule", "charge_passing_33_on_66"],
                                   [("Bob", "exceed_33")])):
        events = tmp_path / f"events{len(house)}.jsonl"
        result = run_cli("play", "--players", "Ann,Bob", "--seed", "1", "--deck", deck,
                         "--mute", "--events", str(events), *house, stdin=typed)
        assert result.returncode == 0, result.stderr
        lives = [(e["player"], e["reason"]) for e in read_events(events) if e["type"] == "lives"]
        assert lives == [("Ann", "hit_33")] + bob + [("Ann", "hit_66")], result.stdout
        assert "Bob hits 66: everyone else loses a life." in result.stdout


RANKS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten plus", "jack",
         "queen", "king", "ace one")


def play_any_card(game: Game) -> None:
    """Ranks typed until one is in hand (each other one gets "You have no ...")."""
    for rank in RANKS:
        game.type(rank)
        if game.wait_for("You play", "You have no").startswith("You play"):
            return
    raise AssertionError("no card could be played")


def test_repeat_what_happened_and_my_lives_typed(tmp_path):
    """"repeat" replays what was said since your move, "what happened" the last
    announcements, "my lives" your own count; none of them changes the game."""
    game = Game(["--players", "Ann", "--bots", "strong", "--seed", "3", "--mute",
                 "--deck", "7S,10H,AD,5C,5D,5H,9S,9H"])
    try:
        game.wait_for("Ann, your turn.")
        game.type("seven")
        game.wait_for("Ann, your turn.")
        game.type("repeat")
        assert [game.wait_for("") for _ in range(4)] == [
            "You play seven of spades. Total 7.", "You draw the nine of spades.",
            "Strong 2: five of clubs. Total 12.", "Ann, your turn."]
        game.type("what happened")
        assert game.wait_for("") == "Round 1. Strong 2 deals; Ann plays first."
        game.type("my lives")
        game.wait_for("Ann, you have 10 lives.")
        game.type("total")
        game.wait_for("The total is 12.")
    finally:
        game.end()


def test_once_you_are_out_finish_says_only_the_result(tmp_path):
    events = tmp_path / "events.jsonl"
    game = Game(["--players", "Ann", "--bots", "strong,strong,strong", "--lives", "2",
                 "--seed", "2", "--mute", "--events", str(events)])
    try:
        while "your turn" in game.wait_for("Ann, your turn.", "You are out of the game."):
            play_any_card(game)
        game.type("finish")
        game.wait_for("Finishing the game without announcements.")
        result = game.wait_for("Game over.")
    finally:
        game.end()
    said = game.seen[game.seen.index("Finishing the game without announcements."):]
    assert len(said) < 8 and result == said[-1]
    assert read_events(events)[-1]["type"] == "game_over"
