"""Faults and abuse, through the real command line where a user would meet them: save and
events paths that are devices, folders or missing; damaged and hostile save files; resumes
that must replay exactly; garbage input; unreadable WAV files; odd option values; native
libraries' lines. Every case ends in one sentence (or goes on), never a traceback."""
from __future__ import annotations

import json
import os
import random
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cli_runner import ROOT, read_events, talking_cards
from engine import ninety_nine as nn
from engine import sixty_six as ss
from engine.ninety_nine_bots import BOTS as NN_BOTS
from engine.sixty_six_bots import BOTS as SS_BOTS
from voice.dialog.record import Recorder, Seat, read_save
from voice.dialog.session import Session
from voice.games.ninety_nine import NinetyNineTalk
from voice.hear.audio import read_wav
from voice.hear.keyboard import Heard
from voice.errors import AudioError
from voice.lang import Language
from voice.speak.speaker import Speaker

BOTS_GAME = ["play", "--players", "Ann", "--bots", "strong,strong", "--seed", "7", "--mute"]


def no_traceback(result):
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    return result


def refused(result, *words):
    no_traceback(result)
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and all(w in lines[0] for w in words), result.stderr
    return lines[0]


# ------------------------------------------------------------------ save and events paths

def test_a_device_is_never_replaced_by_a_save():
    before = os.stat("/dev/null")
    refused(talking_cards(*BOTS_GAME, "--save", "/dev/null", stdin="total\n"),
            "/dev/null is not a regular file")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


def test_a_new_game_never_overwrites_a_file_without_force(tmp_path):
    precious = tmp_path / "letter.txt"
    precious.write_text("my letter")
    refused(talking_cards(*BOTS_GAME, "--save", str(precious), stdin="total\n"),
            "already exists", "--force")
    assert precious.read_text() == "my letter"
    result = no_traceback(talking_cards(*BOTS_GAME, "--save", str(precious), "--force",
                                        stdin="total\n"))
    assert result.returncode == 0 and read_save(str(precious)).game_id == "doksan"


@pytest.mark.parametrize("where, words", [
    ("missing/folder/game.json", ("does not exist",)),
    ("a-folder", ("is not a regular file",)),
])
def test_bad_save_and_events_paths_are_refused_before_the_game(tmp_path, where, words):
    (tmp_path / "a-folder").mkdir()
    target = str(tmp_path / where)
    for option in ("--save", "--events"):
        result = talking_cards(*BOTS_GAME, option, target, stdin="total\n")
        refused(result, *words)
        assert "Round 1" not in result.stdout  # nothing was said: the game never started
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-folder"]


def test_an_events_device_that_fails_is_said_once_and_the_game_goes_on():
    result = no_traceback(talking_cards(*BOTS_GAME, "--events", "/dev/full",
                                        stdin="total\nwhose turn\n"))
    assert result.returncode == 0
    assert result.stdout.count("The events could not be written to /dev/full") == 1
    assert "The total is" in result.stdout


def test_a_save_that_fails_mid_game_is_said_once_keeps_the_last_save_and_no_temp_file(tmp_path):
    folder = tmp_path / "saves"
    folder.mkdir()
    path = folder / "game.json"
    problems = []
    record = Recorder("doksan", [Seat("Ann"), Seat("Bo", "strong")], 1, save_path=str(path))
    record.on_problem = lambda kind, where: problems.append((kind, where))
    state = nn.new_game(["Ann", "Bo"], seed=1)
    record.save(state)
    good = path.read_text()
    os.chmod(folder, 0o500)
    try:
        if os.access(folder, os.W_OK):  # root writes anyway: take the folder away instead
            os.chmod(folder, 0o700)
            os.rename(folder, tmp_path / "gone")
            folder.mkdir()
            os.chmod(folder, 0o500)
            path = tmp_path / "gone" / "game.json"
            record.save_path = str(folder / "nested" / "game.json")
        for _ in range(3):
            record.save(state)
    finally:
        os.chmod(folder, 0o700)
    assert len(problems) == 1 and problems[0][0] == "save"
    assert path.read_text() == good
    leftovers = [p for p in tmp_path.rglob(".save-*")]
    assert leftovers == []


# ------------------------------------------------------------------ damaged and hostile saves

def a_save(tmp_path, *extra) -> Path:
    path = tmp_path / "game.json"
    result = talking_cards(*BOTS_GAME, "--save", str(path), *extra, stdin="total\n")
    assert result.returncode == 0, result.stderr
    return path


def edited(path: Path, change) -> Path:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    return path


def nested(depth):
    return "[" * depth + "]" * depth


HOSTILE = {
    "deep-nesting": lambda p: p.write_text('{"format": "talking-cards-save", "x": '
                                           + nested(100000) + "}"),
    "huge-number": lambda p: p.write_text('{"format": "talking-cards-save", "version": 1, '
                                          '"bot_seed": ' + "9" * 5000 + "}"),
    "unknown-bot": lambda p: edited(p, lambda d: d["seats"][1].update(bot="genius")),
    "card-as-number": lambda p: edited(p, lambda d: d["state"]["hands"][0].__setitem__(0, 7)),
    "duplicated-card": lambda p: edited(p, lambda d: d["state"]["hands"][0].__setitem__(
        0, d["state"]["hands"][1][0])),
    "total-500": lambda p: edited(p, lambda d: d["state"].update(total=500)),
    "negative-lives": lambda p: edited(p, lambda d: d["state"]["lives"].__setitem__(0, -3)),
    "classic-holding-doksan": lambda p: edited(p, lambda d: d.update(game="classic")),
    "seat-names": lambda p: edited(p, lambda d: d["seats"][0].update(name="Mallory")),
    "not-json": lambda p: p.write_bytes(b"\xff\xfe garbage"),
    "empty": lambda p: p.write_text(""),
}


@pytest.mark.parametrize("damage", list(HOSTILE))
def test_a_damaged_save_is_refused_in_one_sentence(tmp_path, damage):
    path = a_save(tmp_path)
    HOSTILE[damage](path)
    refused(talking_cards("play", "--resume", str(path), "--mute", stdin="total\n"),
            str(path))


def test_resume_reads_only_regular_files_and_never_hangs(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo)):
        refused(talking_cards("play", "--resume", path, "--mute", timeout=30),
                "not a regular file")
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(50 * 1024 * 1024)
    refused(talking_cards("play", "--resume", str(big), "--mute", timeout=30), "too large")


def mutations(data, rng):
    """One random damage to a state's JSON: a field changed, a card moved or duplicated."""
    key = rng.choice(sorted(data))
    value = data[key]
    if isinstance(value, list) and value and isinstance(value[0], list) and value[0]:
        side = rng.randrange(len(value))
        if value[side]:
            value[side][rng.randrange(len(value[side]))] = rng.choice(
                ["AS", "9H", "QC", 7, None, "ZZ", value[1 - side][0] if value[1 - side] else "KD"])
    elif isinstance(value, list) and value:
        value[rng.randrange(len(value))] = rng.choice([0, -1, 99, "x", None, True, [1]])
    elif isinstance(value, bool) or value is None:
        data[key] = rng.choice([True, False, None, 1, "no"])
    elif isinstance(value, int):
        data[key] = rng.choice([-1, 0, 1, 2, 5, 500, 10 ** 30])
    else:
        data[key] = rng.choice([None, 3, "x", [], {}])
    return data


@pytest.mark.parametrize("rules, bots, players", [(nn, NN_BOTS, ["A", "B", "C"]),
                                                  (ss, SS_BOTS, ["A", "B"])],
                         ids=["ninety-nine", "sixty-six"])
def test_fuzzed_states_are_refused_or_play_on_with_every_bot(rules, bots, players):
    """300 damaged mid-game states per game: each is refused with ValueError, or every bot
    can play on from it through the protocol (no crash in bots or rules)."""
    rng = random.Random(5)
    accepted = 0
    for trial in range(300):
        state = rules.new_game(players, seed=trial)
        for _ in range(rng.randrange(1, 12)):
            if rules.is_over(state):
                break
            state, _ = rules.apply(state, rng.choice(rules.legal_actions(state)))
        data = mutations(json.loads(json.dumps(state.to_json())), rng)
        try:
            loaded = rules.State.from_json(data)
        except ValueError:
            continue
        accepted += 1
        for step in range(6):
            if rules.is_over(loaded):
                break
            seat = rules.current_player(loaded)
            kind = sorted(bots)[step % len(bots)]
            if kind == "strong" and rules is ss:
                kind = "greedy"  # the strong bot's playouts are slow; its Sim is tested apart
            action = bots[kind](trial).choose(rules.view(loaded, seat))
            loaded, _ = rules.apply(loaded, action)
    assert accepted < 300  # the damage was mostly caught


# ------------------------------------------------------------------ resuming exactly

class Typist:
    """A player at the keyboard who types the first card of the turn's vocabulary."""

    typed_only, live = True, False

    def __init__(self, grammar, moves: int) -> None:
        self.grammar, self.moves = grammar, moves

    def listen(self, vocabulary, prompt, timeout=None):
        if self.moves == 0:
            return None  # the end of the input: the game is saved
        self.moves -= 1
        if "watch" in vocabulary:  # knocked out: watch the bots play on
            return Heard("watch")
        intents = [(p, self.grammar.parse(p)) for p in vocabulary]
        cards = [p for p, i in intents if i.kind == "play"  # a value said where one is due
                 and (i.value is not None) == (i.rank in ("A", "10"))]
        return Heard(cards[0])


def play_session(tmp_path, name, moves, resume_from=None):
    """(events of this run) for a Doksan game of Ann and two strong bots."""
    language = Language.load("en")
    talk = NinetyNineTalk(language)
    seats = [Seat("Ann"), Seat("Strong 2", "strong"), Seat("Strong 3", "strong")]
    events = tmp_path / f"{name}.jsonl"
    save = tmp_path / f"{name}.save"
    if resume_from is None:
        state, moves_made, opening = nn.new_game([s.name for s in seats], seed=3), 0, None
        opening = nn.opening_events(state)
        save_path = str(save)
    else:
        saved = read_save(str(resume_from))
        state, moves_made, opening = nn.State.from_json(saved.state_json), saved.moves, []
        save_path = str(resume_from)
    record = Recorder("doksan", seats, 11, open(events, "w"), save_path, moves_made)
    session = Session(talk, nn, state, {1: NN_BOTS["strong"], 2: NN_BOTS["strong"]},
                      Typist(language.grammar, moves), Speaker(muted=True, on_text=lambda t: 0),
                      record)
    session.run(opening)
    record.events_file.close()
    return read_events(events), save


def test_a_resumed_game_plays_exactly_as_the_unbroken_one(tmp_path):
    unbroken, _ = play_session(tmp_path, "whole", 40)
    first, save = play_session(tmp_path, "first", 6)
    rest, _ = play_session(tmp_path, "rest", 34, resume_from=save)
    assert first + rest == unbroken
    assert any(e["type"] == "play" and e["player"].startswith("Strong") for e in rest)


def test_events_written_after_the_last_save_are_cut_back_on_resume(tmp_path):
    """A kill -9 between the events line and the save: the resumed file has no extra move."""
    save, events = tmp_path / "game.json", tmp_path / "events.jsonl"
    talking_cards(*BOTS_GAME, "--save", str(save), "--events", str(events), stdin="total\n")
    kept = events.read_text()
    with open(events, "a") as f:  # as if the next move was logged and then the power went
        f.write(json.dumps({"type": "play", "player": "Ann", "card": "AS"}) + "\n")
    result = no_traceback(talking_cards("play", "--resume", str(save), "--events", str(events),
                                        "--mute", stdin="total\n"))
    assert result.returncode == 0
    assert events.read_text() == kept  # nothing happened after the resume but a question


def test_a_finished_game_resumed_says_who_won_and_stops(tmp_path):
    save = a_save(tmp_path)
    data = json.loads(save.read_text())
    state = nn.State.from_json(data["state"])
    bots = [NN_BOTS["random"](i) for i in range(3)]
    while not nn.is_over(state):
        seat = nn.current_player(state)
        state, _ = nn.apply(state, bots[seat].choose(nn.view(state, seat)))
    data["state"] = state.to_json()
    save.write_text(json.dumps(data))
    result = no_traceback(talking_cards("play", "--resume", str(save), "--mute", stdin="total\n"))
    assert result.returncode == 0
    assert result.stdout.strip() == f"This game is over: {nn.winner(state)} won."


def test_options_given_with_resume_are_said_to_be_ignored(tmp_path):
    save = a_save(tmp_path)
    result = no_traceback(talking_cards("play", "--resume", str(save), "--lives", "3",
                                        "--mute", stdin="total\n"))
    assert result.returncode == 0 and "--lives ignored" in result.stderr


# ------------------------------------------------------------------ garbage input

def test_garbage_lines_are_echoed_as_a_few_clean_words():
    long_line = "banana " * 1500  # about 10,000 characters
    control = "\x1b[2J\x07wipe\x00 the screen"
    result = no_traceback(talking_cards(*BOTS_GAME, stdin=long_line + "\n" + control + "\n"))
    assert result.returncode == 0
    echoes = [line for line in result.stdout.splitlines() if "did not understand" in line]
    assert len(echoes) == 2 and all(len(line) < 140 for line in echoes), echoes
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout and "\x00" not in result.stdout


def test_random_garbage_never_changes_the_game_or_crashes_it():
    rng = random.Random(3)
    lines = ["".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(0, 80)))
             for _ in range(300)]
    result = no_traceback(talking_cards(*BOTS_GAME, "--events", "/dev/null",
                                        stdin="\n".join(lines) + "\ntotal\n", timeout=240))
    assert result.returncode == 0 and "The total is 0." in result.stdout


def test_no_drawn_card_is_heard_before_the_chance_to_undo_is_over(tmp_path):
    from test_session import live_session
    session, lines = live_session("seven\nundo\nace eleven\n", tmp_path)
    session.run(nn.opening_events(session.state))
    undone = lines.index("Ann takes the move back.")
    assert not any(line.startswith("You draw") for line in lines[:undone]), lines
    assert any(line.startswith("You draw") for line in lines[undone:]), lines


# ------------------------------------------------------------------ WAV files and options

def write_raw_wav(path: Path, rate: int, width: int, tag: int = 1, frames: bytes = b"\0" * 3200,
                  extensible: bool = False):
    """A WAV header written by hand (what the wave module would refuse to write)."""
    fmt = (tag if not extensible else 0xFFFE).to_bytes(2, "little") + (1).to_bytes(2, "little") \
        + rate.to_bytes(4, "little") + (rate * width).to_bytes(4, "little") \
        + width.to_bytes(2, "little") + (8 * width).to_bytes(2, "little")
    if extensible:
        fmt += (22).to_bytes(2, "little") + (8 * width).to_bytes(2, "little") + bytes(4) \
            + tag.to_bytes(2, "little") + bytes(14)
    body = b"WAVE" + b"fmt " + len(fmt).to_bytes(4, "little") + fmt \
        + b"data" + len(frames).to_bytes(4, "little") + frames
    path.write_bytes(b"RIFF" + len(body).to_bytes(4, "little") + body)
    return path


def test_24_bit_and_float_wavs_are_read(tmp_path):
    tone = (np.sin(np.arange(1600) / 5) * 0.5)
    as24 = (tone * (1 << 23)).astype("<i4")
    raw24 = b"".join(int(v).to_bytes(3, "little", signed=True) for v in as24)
    for path in (write_raw_wav(tmp_path / "a.wav", 16000, 3, frames=raw24, extensible=True),
                 write_raw_wav(tmp_path / "b.wav", 16000, 4, tag=3,
                               frames=tone.astype("<f4").tobytes())):
        pcm, rate = read_wav(path)
        assert rate == 16000 and len(pcm) == 1600
        assert abs(int(pcm.max()) - 16384) < 200  # half of full scale


def test_impossible_or_unreadable_wavs_are_one_sentence_at_once(tmp_path):
    one_hz = write_raw_wav(tmp_path / "slow.wav", 1, 2)
    with pytest.raises(AudioError, match="1 Hz"):
        read_wav(one_hz)
    junk = tmp_path / "junk.wav"
    junk.write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunk")
    for wav in (one_hz, junk, tmp_path / "absent.wav"):
        refused(talking_cards(*BOTS_GAME, "--backend", "sphinx", "--wav", str(wav),
                              timeout=60), str(wav))


@pytest.mark.parametrize("option, value", [("--lives", "1000000000"), ("--lives", "0"),
                                           ("--target", "0"), ("--volume", "7")])
def test_odd_option_values_are_refused(option, value):
    game = ["--game", "sixty-six", "--players", "Ann"] if option == "--target" else []
    refused(talking_cards("play", *game, "--mute", option, value, stdin="total\n"),
            option.strip("-") if option != "--target" else "Target must be")


def test_native_library_lines_go_to_the_log_not_the_terminal(tmp_path):
    code = ("import os, sys\n"
            "from voice.cli.native_log import native_output_to_log\n"
            "with native_output_to_log() as log:\n"
            "    os.write(2, b'ALSA lib pcm.c:2664: Unknown PCM\\n')\n"
            "    print('One plain sentence.', file=sys.stderr)\n"
            "print(log)\n")
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path))
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.stderr == "One plain sentence.\n"
    log = Path(result.stdout.strip())
    assert "ALSA lib" in log.read_text() and str(tmp_path) in str(log)


def test_resuming_never_wipes_an_events_file(tmp_path):
    """A save made without --events knows no length to cut back to: the file is appended to."""
    save, events = tmp_path / "game.json", tmp_path / "events.jsonl"
    talking_cards(*BOTS_GAME, "--save", str(save), stdin="total\n")
    events.write_text('{"type": "note", "from": "an earlier evening"}\n')
    result = no_traceback(talking_cards("play", "--resume", str(save), "--events", str(events),
                                        "--mute", stdin="total\n"))
    assert result.returncode == 0
    assert events.read_text().startswith('{"type": "note", "from": "an earlier evening"}\n')
