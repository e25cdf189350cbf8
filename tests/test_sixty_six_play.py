"""Sixty-Six by keyboard and by voice: the dialog, the announcer, and whole hands through the CLI."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cli_runner import ROOT, read_events, talking_cards
from engine import sixty_six as ss
from voice.lang import Language
from voice.games.sixty_six import SixtySixTalk
from voice.understand.grammar import Intent

# Ann (seat 0, leads): every heart but the jack, and the ace of spades. The bot: no hearts.
# The jack of hearts lies face up; the stock (drawn first to last) has no heart above it.
HAND_DECK = ("AH,10H,KH,QH,9H,AS,9S,JS,9D,JD,9C,JC,JH,"
             "QS,KS,QD,KD,QC,KC,10S,10D,10C,AD,AC")


def run_cli(*args: str, stdin: str = "", timeout: float = 120):
    return talking_cards("play", "--game", "sixty-six", *args, stdin=stdin, timeout=timeout)


def make_talk(strict_memory: bool = False) -> SixtySixTalk:
    return SixtySixTalk(Language.load("en"), strict_memory=strict_memory)


def parse(talk: SixtySixTalk, text: str) -> Intent:
    intent = talk.grammar.parse(text)
    assert intent is not None, text
    return intent


# --------------------------------------------------------------------------- the whole hand


def test_a_whole_stacked_hand_through_the_cli(tmp_path):
    events = tmp_path / "events.jsonl"
    typed = "\n".join([
        "queen of spades",  # not in hand
        "xyzzy",            # not a phrase at all
        "the ace",          # hearts or spades?
        "spades",           # -> ace of spades; the bot has no trump: Ann wins
        "my points",
        "exchange",         # the nine of hearts for the face-up jack
        "my cards",
        "marry hearts",     # 40, led with the queen
        "trump",
        "close",
        "cards left",
        "ace of hearts",
        "last trick",
        "10h",
        "sixty six",        # at least 11 + 40 + 3 + 11 + 10
        "score",
    ]) + "\n"
    result = run_cli("--players", "Ann", "--bots", "random", "--seed", "4", "--deck",
                     HAND_DECK, "--mute", "--events", str(events), stdin=typed)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Hand 1. Random 2 deals; Ann leads. Trump is hearts: the jack of hearts lies face up." in out
    assert "Ann, your cards: hearts, trump: ace, ten, king, queen and nine; spades: ace." in out
    assert "You do not have the queen of spades." in out
    assert "did not understand 'xyzzy'" in out
    assert "Which ace: hearts or spades?" in out
    assert "You take the trick, ace of spades and nine of spades: 11 points for you." in out
    assert "You draw the queen of spades." in out
    assert "You have 11 points." in out
    assert "Ann exchanges the trump nine for the jack of hearts." in out
    assert "hearts, trump: ace, ten, king, queen and jack; spades: queen." in out
    assert "Ann declares a marriage in hearts: 40 points." in out
    assert "Trump is hearts; the nine of hearts lies face up under the stock." in out
    assert "Ann closes the stock" in out
    assert "The stock is closed by Ann; 8 cards under it." in out
    assert "Last trick: Ann's ace of hearts and Random 2's" in out
    assert "Ann wins the hand and scores 3 game points: the other player took no trick." in out
    assert "Score in game points: Ann 3, Random 2 0. First to 7 wins." in out
    assert out.count("Ann, your turn.") >= 5

    log = read_events(events)
    kinds = [e["type"] for e in log]
    assert kinds[0] == "deal" and log[0]["trump_card"] == "JH"
    rejected = [(e["player"], e["input"], e["reason"]) for e in log if e["type"] == "rejected"]
    assert rejected == [("Ann", "queen of spades", "not_in_hand"),
                        ("Ann", "xyzzy", "not_understood")]
    ann_plays = [e["card"] for e in log if e["type"] == "play" and e["player"] == "Ann"]
    assert ann_plays[:4] == ["AS", "QH", "AH", "10H"]
    assert {"type": "exchange", "player": "Ann", "card": "JH"} in log
    assert {"type": "marriage", "player": "Ann", "suit": "H", "points": 40,
            "credited": True} in log
    assert {"type": "close", "player": "Ann"} in log
    tricks = [e for e in log if e["type"] == "trick"]
    assert len(tricks) == 4 and all(t["winner"] == "Ann" for t in tricks)
    claim = next(e for e in log if e["type"] == "claim")
    assert claim["player"] == "Ann" and claim["success"] and claim["points"] >= 75
    end = next(e for e in log if e["type"] == "hand_end")
    assert (end["winner"], end["game_points"], end["reason"]) == ("Ann", 3, "claim")
    assert end["score"] == {"Ann": 3, "Random 2": 0}
    assert kinds[kinds.index("hand_end") + 1] == "deal"  # the next hand is dealt


# --------------------------------------------------------------------------- the dialog

# Ann: 9D JS KD QC 9C JC; Bo: AD AS 10S KS QS 10D; the nine of hearts is trump.
FOLLOW_DECK = "9D,JS,KD,QC,9C,JC,AD,AS,10S,KS,QS,10D,9H".split(",")


def strict_phase_state() -> ss.State:
    """Bo has won a trick, closed the stock and led the ace of spades; Ann must follow."""
    state = ss.new_game(["Ann", "Bo"], seed=2, deck=FOLLOW_DECK)
    for action in (ss.Play("9D"), ss.Play("AD"), ss.Close(), ss.Play("AS")):
        state, _ = ss.apply(state, action)
    assert state.turn == 0 and state.table == "AS"
    return state


def test_the_ace_asks_which_when_two_can_be_played_and_the_answer_completes_it():
    talk = make_talk()
    state = ss.new_game(["Ann", "Bo"], seed=1, deck=HAND_DECK.split(","))
    outcome = talk.turn(state, 0, None).resolve(parse(talk, "the ace"))
    assert outcome.action is None and outcome.question == "Which ace: hearts or spades?"
    for answer in ("hearts", "in hearts", "heart"):
        done = talk.turn(state, 0, outcome.pending).resolve(parse(talk, answer))
        assert done.action == ss.Play("AH")
    assert talk.turn(state, 0, outcome.pending).resolve(parse(talk, "ace of spades")).action \
        == ss.Play("AS")
    # a suit with nothing asked is refused, not guessed
    assert talk.turn(state, 0, None).resolve(parse(talk, "hearts")).reason == "unexpected_answer"


def test_a_rank_with_one_playable_card_is_played_without_asking():
    talk = make_talk()
    state = strict_phase_state()
    hand = state.hands[0]
    jacks = [c for c in hand if c[0] == "J"]
    assert "JS" in jacks and len(jacks) >= 2
    assert talk.turn(state, 0, None).resolve(parse(talk, "the jack")).action == ss.Play("JS")


def test_must_follow_suit_is_refused_with_the_engines_reason():
    talk = make_talk()
    state = strict_phase_state()
    outcome = talk.turn(state, 0, None).resolve(parse(talk, "king of diamonds"))
    assert outcome.action is None and outcome.reason == "must_follow_suit"
    assert outcome.refusal == "You cannot do that: you must follow suit: you have a spade."
    assert talk.turn(state, 0, None).resolve(parse(talk, "js")).action == ss.Play("JS")


def test_a_card_not_in_hand_is_refused_with_the_hand_read_out():
    talk = make_talk()
    state = ss.new_game(["Ann", "Bo"], seed=1, deck=HAND_DECK.split(","))
    outcome = talk.turn(state, 0, None).resolve(parse(talk, "qs"))
    assert outcome.reason == "not_in_hand"
    assert outcome.refusal == ("You do not have the queen of spades. Your cards: hearts, "
                               "trump: ace, ten, king, queen and nine; spades: ace.")
    assert talk.turn(state, 0, None).resolve(parse(talk, "play the jack")).reason == "not_in_hand"


def test_moves_marriage_exchange_close_claim():
    talk = make_talk()
    state = ss.new_game(["Ann", "Bo"], seed=1, deck=HAND_DECK.split(","))
    # the only marriage: "marriage" alone declares it, leading the queen
    assert talk.turn(state, 0, None).resolve(parse(talk, "marriage")).action == ss.Marriage("QH")
    assert talk.turn(state, 0, None).resolve(parse(talk, "m")).action == ss.Marriage("QH")
    assert talk.turn(state, 0, None).resolve(parse(talk, "marry hearts")).action == ss.Marriage("QH")
    refused = talk.turn(state, 0, None).resolve(parse(talk, "marry spades"))
    assert refused.refusal == "You cannot do that: you need both the king and queen of spades."
    # no trick won yet: the exchange is refused with the engine's reason
    assert "only after winning a trick" in talk.turn(state, 0, None).resolve(parse(talk, "swap the nine")).refusal
    assert talk.turn(state, 0, None).resolve(parse(talk, "close the stock")).action == ss.Close()
    assert talk.turn(state, 0, None).resolve(parse(talk, "66")).action == ss.Claim()
    assert talk.turn(state, 0, None).resolve(parse(talk, "stop")).action == ss.Claim()
    # two marriages: ask which
    two = ss.new_game(["Ann", "Bo"], seed=1,
                      deck="KH,QH,KS,QS,9H,AS,9S,JS,9D,JD,9C,JC,JH".split(","))
    asked = talk.turn(two, 0, None).resolve(parse(talk, "marriage"))
    assert asked.question == "Which marriage: hearts or spades?"
    assert talk.turn(two, 0, asked.pending).resolve(parse(talk, "spades")).action == ss.Marriage("QS")


def test_strict_memory_refuses_own_points_and_tricks():
    state = strict_phase_state()
    helpful, strict = make_talk(), make_talk(strict_memory=True)
    assert helpful.answer("points", state, 1) == "You have 11 points."
    assert helpful.answer("tricks", state, 1) == "You have won 1 trick."
    for command in ("points", "tricks"):
        assert strict.answer(command, state, 1) == "Strict memory is on: keep count yourself."
    # what anyone at the table can see is still told
    assert strict.answer("table", state, 0) == "On the table: Bo's ace of spades."
    assert strict.answer("score", state, 0) == "Score in game points: Ann 0, Bo 0. First to 7 wins."


def test_vocabulary_holds_the_hand_and_the_legal_moves_only():
    talk = make_talk()
    state = ss.new_game(["Ann", "Bo"], seed=1, deck=HAND_DECK.split(","))
    vocabulary = set(talk.grammar.vocabulary(talk.turn(state, 0, None).allowed))
    assert {"queen of hearts", "the ace", "marry hearts", "close the stock", "sixty six",
            "my cards", "trump", "cards left", "last trick"} <= vocabulary
    assert not {"queen of spades", "ace eleven", "ten minus", "total", "marry spades",
                "exchange", "hearts", "stock", "seven"} & vocabulary
    asked = talk.turn(state, 0, None).resolve(parse(talk, "the ace")).pending
    answers = set(talk.grammar.vocabulary(talk.turn(state, 0, asked).allowed))
    assert {"hearts", "spades"} <= answers and "clubs" not in answers


def test_announcements_of_a_played_out_hand_and_the_match():
    talk = make_talk()
    state = ss.new_game(["Ann", "Bo"], ss.Options(target=7), seed=9)
    said = []
    while not ss.is_over(state):
        action = ss.legal_actions(state)[0]
        state, events = ss.apply(state, action)
        said += talk.announce(events, state, [0])
    text = " ".join(said)
    assert "wins the hand and scores" in text and "Score: Ann" in text
    assert text.endswith("wins the match!")


# --------------------------------------------------------------------------- real audio


def sphinx_recognizer():
    pytest.importorskip("pocketsphinx")
    from tests.speech_clips import espeak_available
    if not espeak_available():
        pytest.skip("espeak-ng is not installed")
    from voice.hear.sphinx import SphinxRecognizer
    return SphinxRecognizer(Language.load("en").sphinx_pronunciations)


def test_spoken_cards_and_moves_are_recognized_in_the_games_vocabulary():
    from tests.speech_clips import load, synthesize
    recognizer = sphinx_recognizer()
    talk = make_talk()
    state = ss.new_game(["Ann", "Bo"], seed=1, deck=HAND_DECK.split(","))
    recognizer.set_vocabulary(talk.grammar.vocabulary(talk.turn(state, 0, None).allowed))
    for text, intent in (("queen of hearts", Intent("play", rank="Q", suit="H")),
                         ("marry hearts", Intent("move", name="marriage", suit="H"))):
        pcm = load(synthesize(text))
        heard = recognizer.recognize(pcm.astype("<i2").tobytes())
        assert talk.grammar.parse(heard.text) == intent, heard



# --------------------------------------------------------------------------- simulation


def test_simulation_replays_from_its_seed_and_alternates_the_first_lead():
    from cli_runner import simulate_game
    from engine.simulate import SimulationError, to_json
    from voice.cli.simulate import format_table
    first = simulate_game("sixty-six", ["greedy", "random"], games=12, seed=3)
    again = simulate_game("sixty-six", ["greedy", "random"], games=12, seed=3)
    assert (first.wins, first.turns) == (again.wins, again.turns)
    assert sum(first.wins.values()) == 12 and first.seats == ("Greedy 1", "Random 2")
    assert first.wins["Greedy 1"] > first.wins["Random 2"]
    assert "Greedy 1" in format_table(first)
    assert list(to_json(first))[:3] == ["games", "wins", "games_per_second"]
    with pytest.raises(SimulationError, match="exactly 2"):
        simulate_game("sixty-six", ["greedy"], games=1, seed=0)
    with pytest.raises(SimulationError, match="unknown bot"):
        simulate_game("sixty-six", ["greedy", "clever"], games=1, seed=0)


def test_simulate_command_prints_the_table():
    result = subprocess.run([sys.executable, "-m", "voice", "simulate", "--game", "sixty-six",
                             "--bots", "greedy,random", "--games", "4", "--seed", "1"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "4 games of sixty-six" in result.stdout and "Greedy 1" in result.stdout


def test_playing_by_voice_from_wav_files_through_the_cli(tmp_path):
    """Real espeak-ng speech through --wav and PocketSphinx. A card the backend is unsure
    of is read back ("Queen of hearts?") and the "yes" clip after it confirms it; after a
    card it accepted outright, the unasked "yes" is refused harmlessly."""
    from tests.speech_clips import synthesize
    sphinx_recognizer()
    events = tmp_path / "events.jsonl"
    said = ["queen of hearts", "yes", "ace of spades", "yes"]
    result = run_cli("--players", "Ann", "--bots", "random", "--seed", "4", "--deck",
                     HAND_DECK, "--mute", "--events", str(events), "--backend", "sphinx",
                     "--wav", *[str(synthesize(text)) for text in said])
    assert result.returncode == 0, result.stderr
    log = read_events(events)
    ann_plays = [e["card"] for e in log if e["type"] == "play" and e["player"] == "Ann"]
    rejected = [(e["input"], e["reason"]) for e in log if e["type"] == "rejected"]
    assert ann_plays == ["QH", "AS"], (result.stdout, rejected)
    # the unasked "yes" is outside the vocabulary: "say that again" or "nothing to answer"
    assert all(reason in ("nothing_to_answer", "not_understood") for _, reason in rejected), rejected


def test_simulate_sixty_six_works_with_its_default_bots():
    result = subprocess.run([sys.executable, "-m", "voice", "simulate", "--game", "sixty-six",
                             "--games", "2", "--seed", "1"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "2 games of sixty-six" in result.stdout and "Strong 1" in result.stdout


def test_listen_uses_the_games_own_vocabulary():
    """Spoken "close the stock": a Sixty-Six move (it was heard as "slower" in Ninety-Nine's
    vocabulary, which has no such move)."""
    from tests.speech_clips import synthesize
    sphinx_recognizer()
    result = subprocess.run([sys.executable, "-m", "voice", "listen", "--game", "sixty-six",
                             "--backend", "sphinx", "--json", str(synthesize("close the stock"))],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    heard = json.loads(result.stdout.strip().splitlines()[-1])
    assert heard["action"] == {"type": "move", "name": "close", "suit": None}, heard


def test_the_claim_window_after_a_marriage_into_66_is_said_and_answered():
    from test_sixty_six import marriage_position
    talk = make_talk()
    state, events = ss.apply(marriage_position(), ss.Marriage("QH"))
    said = talk.announce(events, state, [0])
    assert said[-1] == "Ada, you have 69 points: say sixty six to claim now, or play on."
    menu = talk.turn(state, 0, None)
    assert menu.resolve(parse(talk, "play on")).action == ss.PlayOn()
    assert menu.resolve(parse(talk, "sixty six")).action == ss.Claim()
    refused = menu.resolve(parse(talk, "ace of hearts"))
    assert refused.reason == "claim_window" and "only claim or play on" in refused.refusal
    vocabulary = set(talk.grammar.vocabulary(menu.allowed))
    assert {"play on", "sixty six", "stop"} <= vocabulary and "close" not in vocabulary
    state, events = ss.apply(state, ss.PlayOn())
    assert talk.announce(events, state, [0]) == ["Ada plays on without claiming."]


def test_strict_memory_also_keeps_the_last_trick_to_yourself():
    talk = make_talk(strict_memory=True)
    assert talk.answer("last_trick", strict_phase_state(), 0) == \
        "Strict memory is on: keep count yourself."


def test_house_rules_come_from_the_command_line_and_are_saved_with_the_game(tmp_path):
    save = tmp_path / "game.json"
    result = run_cli("--players", "Ann", "--bots", "strong", "--seed", "2", "--mute",
                     "--house-rule", "no_last_trick_bonus_after_close",
                     "--house-rule", "must_win_trick", "--save", str(save),
                     stdin="my cards\n")
    assert result.returncode == 0, result.stderr
    options = json.loads(save.read_text())["state"]["options"]
    assert options["no_last_trick_bonus_after_close"] is True and options["must_win_trick"] is True
    wrong = run_cli("--players", "Ann", "--mute", "--house-rule", "charge_passing_33_on_66")
    assert wrong.returncode == 2 and "no house rule 'charge_passing_33_on_66'" in wrong.stderr
