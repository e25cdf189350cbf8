"""Settings kept in the user's config folder (here always a test folder named by
TALKING_CARDS_CONFIG): remembered menu answers, options over settings, ``talking-cards
settings`` and ``--reset``, damaged files reported once and replaced, and only one regular
file ever touched."""
from __future__ import annotations

import json
import os

import pytest

from cli_runner import talking_cards

DEFAULTS = ["rate: default", "volume: default", "voice: default", "verbosity: concise",
            "names: Player", "game: doksan", "opponents: default", "lives: default",
            "target: default", "input: auto"]


def env_for(folder):
    return {**os.environ, "TALKING_CARDS_CONFIG": str(folder)}


def run(folder, *args, stdin="", code=0):
    result = talking_cards(*args, stdin=stdin, env=env_for(folder), timeout=60)
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    return result


def saved(folder):
    return json.loads((folder / "settings.json").read_text(encoding="utf-8"))


def test_the_menus_answers_are_the_next_defaults(tmp_path):
    run(tmp_path, "--mute", stdin="3\nAnn\n11\nquit\nyes\n")
    assert saved(tmp_path)["game"] == "sixty-six" and saved(tmp_path)["target"] == 11
    assert saved(tmp_path)["names"] == ["Ann"]
    lines = run(tmp_path, "--mute", stdin="\n\n\nquit\nyes\n").stdout.splitlines()
    assert lines[1].endswith("Enter for Sixty-Six.")
    assert lines[2:4] == ["Your name? Enter for Ann.",
                          "How many game points to win: 7, 11, 15 or 16? Enter for 11."]
    assert lines[4] == "Sixty-Six, first to 11 game points. Say help at any time."
    assert any(line.startswith("Ann") for line in lines[5:])
    # a number of lives is remembered per game; the game's own default is not pinned down
    run(tmp_path, "--mute", stdin="1\n4\nBea\n7\nquit\nyes\n")
    assert saved(tmp_path)["lives"] == {"doksan": 7} and saved(tmp_path)["opponents"] == 4
    lines = run(tmp_path, "--mute", stdin="").stdout.splitlines()
    assert "Doksan Dokuz. Everyone starts with 7 lives. Say help at any time." in lines
    assert "Round 1. Strong 5 deals; Bea plays first." in lines


def test_options_override_settings_and_settings_override_defaults(tmp_path):
    run(tmp_path, "--mute", stdin="2\n1\nAnn\n4\nquit\nyes\n")
    # no --game: the remembered game and table; --lives given on the command line wins
    lines = run(tmp_path, "play", "--lives", "2", "--mute", stdin="").stdout.splitlines()
    assert lines[0] == "Classic Ninety-Nine. Everyone starts with 2 chips. Say help at any time."
    assert lines[1] == "Round 1. Strong 2 deals; Ann plays first."
    lines = run(tmp_path, "play", "--game", "doksan", "--players", "Cem", "--bots", "random",
                "--mute", stdin="").stdout.splitlines()
    assert lines[0].startswith("Doksan Dokuz. Everyone starts with 10 lives.")
    assert lines[1] == "Round 1. Random 2 deals; Cem plays first."
    assert saved(tmp_path)["names"] == ["Ann"]  # a game set up by options changes nothing


def test_settings_shows_changes_and_resets(tmp_path):
    out = run(tmp_path, "settings").stdout.splitlines()
    assert out[0] == f"Settings file: {tmp_path / 'settings.json'}"
    assert out[1:] == DEFAULTS
    out = run(tmp_path, "settings", "--rate", "220", "--verbosity", "verbose",
              "--input", "keyboard").stdout.splitlines()
    assert "rate: 220" in out and "verbosity: verbose" in out and "input: keyboard" in out
    assert saved(tmp_path)["rate"] == 220 and saved(tmp_path)["verbosity"] == "verbose"
    result = run(tmp_path, "settings", "--rate", "5", code=2)
    assert result.stderr.strip() == "That setting cannot be used: its rate is 5."
    out = run(tmp_path, "settings", "--reset").stdout.splitlines()
    assert out == [f"Settings reset to the defaults in {tmp_path / 'settings.json'}."]
    assert run(tmp_path, "settings").stdout.splitlines()[1:] == DEFAULTS
    assert sorted(os.listdir(tmp_path)) == ["settings.json"]  # no temporary file left


def test_the_rate_chosen_in_a_game_is_kept(tmp_path):
    run(tmp_path, "play", "--players", "Ann", "--bots", "strong", "--mute",
        stdin="slower\nslower\nquit\nyes\n")
    assert saved(tmp_path)["rate"] == 130


@pytest.mark.parametrize("content, why", [
    (b"{not json", "it is not valid JSON"),
    (b'{"rate": "fast"}', "its rate is 'fast'"),
    (b'{"names": []}', "its names is []"),
    (b'{"game": "poker"}', "its game is 'poker'"),
    (b"[1, 2]", "it is not a JSON object"),
    (b"\xff\xfe", "it is not valid JSON"),
    (b'{"voice": "' + b"x" * 70000 + b'"}', "it is larger than 64 KB"),
])
def test_a_damaged_file_is_reported_once_and_replaced(tmp_path, content, why):
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    result = run(tmp_path, "--mute", stdin="")
    assert result.stderr.strip() == (f"The settings file {path} was damaged ({why}), so the "
                                     f"defaults are used and written over it.")
    assert "Doksan Dokuz. Everyone starts with 10 lives." in result.stdout
    assert saved(tmp_path)["version"] == 1
    again = run(tmp_path, "settings")
    assert again.stderr == "" and again.stdout.splitlines()[1:] == DEFAULTS


def test_a_settings_path_that_is_not_a_regular_file_is_left_alone(tmp_path):
    path = tmp_path / "settings.json"
    path.mkdir()
    result = run(tmp_path, "settings", code=2)
    assert result.stderr.strip() == (
        f"The settings file {path} is not a regular file, so it is left alone; remove it or "
        f"name another folder with TALKING_CARDS_CONFIG.")
    result = run(tmp_path, "--mute", stdin="1\n1\nAnn\n\n")  # the game is played, defaults
    assert result.stderr.count("is not a regular file") == 1
    assert "Round 1. Strong 2 deals; Ann plays first." in result.stdout
    assert path.is_dir() and list(path.iterdir()) == []
    path.rmdir()
    os.mkfifo(path)  # never opened, so nothing hangs
    run(tmp_path, "settings", "--reset", code=2)
    assert not path.is_file()
    path.unlink()
    path.symlink_to("/dev/null")  # a link is followed only to a regular file
    before = os.stat("/dev/null")
    run(tmp_path, "settings", code=2)
    run(tmp_path, "settings", "--reset", code=2)
    assert path.is_symlink() and os.stat("/dev/null").st_mode == before.st_mode


def test_a_settings_folder_that_is_a_file_is_refused(tmp_path):
    folder = tmp_path / "config"
    folder.write_text("mine")
    result = talking_cards("settings", env=env_for(folder), timeout=60)
    assert result.returncode == 2 and "is not a folder" in result.stderr
    assert folder.read_text() == "mine"
