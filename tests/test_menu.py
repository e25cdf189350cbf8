"""The start menu of ``talking-cards`` with no game options, driven through the real command
line by keyboard (a pipe), and the opening line every new game starts with."""
from __future__ import annotations

import json
import os

from cli_runner import talking_cards

WELCOME = "Welcome to Talking Cards: card games you play by voice or keyboard."
GAME_QUESTION = ("Which game: Doksan Dokuz, Classic Ninety-Nine, Sixty-Six or a game at a "
                 "real table? Enter for Doksan Dokuz.")


def env_for(folder):
    return {**os.environ, "TALKING_CARDS_CONFIG": str(folder)}


def run(folder, *args, stdin=""):
    result = talking_cards(*args, stdin=stdin, env=env_for(folder), timeout=60)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout.splitlines()


def test_the_menu_by_keyboard_sets_up_the_game_asked_for(tmp_path):
    lines = run(tmp_path, "--mute", stdin="2\n1\nAnn\n\nquit\nyes\n")
    assert lines[:6] == [
        WELCOME,
        GAME_QUESTION,
        "How many computer players, 1 to 9? Enter for 2.",
        "Your name? Enter for Player.",
        "How many chips? Enter for 5.",
        "Classic Ninety-Nine. Everyone starts with 5 chips. Say help at any time.",
    ]
    assert lines[6].startswith("Round 1. Strong 2 deals; Ann plays first.")
    assert "Ann, your turn." in lines
    assert lines[-1] == "Goodbye."


def test_the_menu_sets_up_a_real_table(tmp_path):
    """The last choice is table mode: which game is played there, then the players' names."""
    lines = run(tmp_path, "--mute", stdin="table\n2\nAnn\nBob\nCem\n\n\n\n\nquit\nyes\n")
    assert lines[:9] == [
        WELCOME, GAME_QUESTION,
        "Which game at the table: Doksan Dokuz, Classic Ninety-Nine or Sixty-Six? "
        "Enter for Doksan Dokuz.",
        "Who is playing? Type each name in seating order, clockwise, then an empty line.",
        "Players: Ann, Bob and Cem.",
        "How many chips? Enter for 5.",
        "Who deals first? Type a name or a seat number, or Enter for Cem.",
        "Any house rules: 1: total may go negative? Enter for none.",
        "Classic Ninety-Nine. Everyone starts with 5 chips. Say help at any time.",
    ]
    assert lines[9].startswith("Round 1: Cem deals")
    assert "Ann, your turn." in lines


def test_enter_takes_every_default(tmp_path):
    lines = run(tmp_path, "play", "--mute", stdin="\n\n\n\nquit\nyes\n")
    assert lines[:5] == [WELCOME, GAME_QUESTION,
                         "How many computer players, 1 to 9? Enter for 2.",
                         "Your name? Enter for Player.", "How many lives? Enter for 10."]
    assert lines[5] == "Doksan Dokuz. Everyone starts with 10 lives. Say help at any time."
    assert lines[6] == "Round 1. Strong 3 deals; Player plays first."


def test_an_unknown_answer_gets_one_sentence_and_the_question_again(tmp_path):
    lines = run(tmp_path, "--mute", stdin="poker\nsixty six\n\neleven\n")
    assert lines[1:4] == [GAME_QUESTION, "Sorry, that is not one of the choices.",
                          GAME_QUESTION]
    # Sixty-Six has one opponent: that question is not asked
    assert lines[4:6] == ["Your name? Enter for Player.",
                          "How many game points to win: 7, 11, 15 or 16? Enter for 7."]
    assert lines[6] == "Sixty-Six, first to 11 game points. Say help at any time."


def test_three_unknown_answers_take_the_default(tmp_path):
    lines = run(tmp_path, "--mute", stdin="x\ny\nz\n200\n")
    assert lines.count("Sorry, that is not one of the choices.") == 4  # 3 games, 1 players
    assert "I will take Doksan Dokuz." in lines
    assert "Doksan Dokuz. Everyone starts with 10 lives. Say help at any time." in lines


def test_the_end_of_input_takes_the_defaults_and_starts(tmp_path):
    lines = run(tmp_path, "--mute", "--input", "keyboard", stdin="")
    assert lines[:3] == [WELCOME, GAME_QUESTION,
                         "Doksan Dokuz. Everyone starts with 10 lives. Say help at any time."]
    assert lines[3].startswith("Round 1.")
    # the end came before any answer: nothing was chosen, so nothing new is remembered
    saved = json.loads((tmp_path / "settings.json").read_text())
    assert saved["game"] == "doksan" and saved["names"] == ["Player"]


def test_quit_in_the_menu_ends_without_a_game(tmp_path):
    lines = run(tmp_path, "--mute", stdin="quit\n")
    assert lines == [WELCOME, GAME_QUESTION, "Goodbye."]


def test_help_repeats_the_question(tmp_path):
    lines = run(tmp_path, "--mute", stdin="help\n1\n")
    assert lines[1:3] == [GAME_QUESTION, GAME_QUESTION]


def test_game_options_skip_the_menu_and_the_game_opens_with_its_name(tmp_path):
    lines = run(tmp_path, "play", "--players", "Ann", "--bots", "strong", "--lives", "3",
                "--seed", "4", "--mute", stdin="quit\nyes\n")
    assert lines[0] == "Doksan Dokuz. Everyone starts with 3 lives. Say help at any time."
    assert lines[1].startswith("Round 1.")
    assert WELCOME not in lines
    lines = run(tmp_path, "--game", "sixty-six", "--mute", stdin="quit\nyes\n")
    assert lines[0] == "Sixty-Six, first to 7 game points. Say help at any time."


def test_a_resumed_game_has_no_opening_line(tmp_path):
    save = tmp_path / "game.json"
    run(tmp_path, "play", "--players", "Ann", "--bots", "strong", "--seed", "4", "--mute",
        "--save", str(save), stdin="")
    lines = run(tmp_path, "play", "--resume", str(save), "--mute", stdin="")
    assert lines[0] == "Game resumed."
    assert not any("Say help at any time" in line for line in lines)


def test_the_menu_speaks_korean(tmp_path):
    lines = run(tmp_path, "--lang", "ko", "--mute", stdin="둘\n\n앤\n3\n")
    assert lines[0] == "토킹 카드에 오신 것을 환영합니다. 목소리나 키보드로 하는 카드 게임입니다."
    assert lines[1] == ("어떤 게임을 할까요? 도크산 도쿠즈, 클래식 나인티나인, 실제 카드로 하는 테이블 "
                        "게임 중에서 고르세요. "
                        "Enter를 누르면 도크산 도쿠즈입니다.")
    assert "클래식 나인티나인. 모두 칩 3개로 시작합니다. 언제든지 도움말이라고 말하세요." in lines
