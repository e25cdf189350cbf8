"""A guided practice round of Doksan Dokuz: each step says what to try, the player says it,
and the program answers with what the engine's own arithmetic makes of it (no game state,
nothing counts). Run by ``talking-cards practice``.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from engine import ninety_nine as nn
from voice.hear.recognizer import REJECT
from voice.lang import LANG_DIR, Language
from voice.understand.grammar import Intent

# (step, what the player must say, the total before it)
STEPS: Tuple[Tuple[str, Intent, int], ...] = (
    ("seven", Intent("play", rank="7"), 0),
    ("ten_plus", Intent("play", rank="10", value=10), 7),
    ("total", Intent("command", name="total"), 17),
    ("three", Intent("play", rank="3"), 30),
    ("two", Intent("rules", rank="2"), 33),
    ("ace_one", Intent("play", rank="A", value=1), 33),
)
TRIES = 3
OPTIONS = nn.Options("doksan")


def has_practice(language: Language) -> bool:
    """Only a language with its own practice sentences (no English ones underneath)."""
    return (LANG_DIR / language.code / "phrases.practice.json").exists()


def run_practice(language: Language, listener, speaker) -> int:
    """The round, through the game's own listener and speaker; 0 when done or quit."""
    p, grammar = language.phrases, language.grammar
    speaker.say(p.text("practice.intro"))
    for step, wanted, total in STEPS:
        instruction = p.data["practice"]["steps"][step]
        speaker.say(instruction)
        vocabulary = grammar.vocabulary(lambda i, w=wanted: i == w or (
            i.kind == "command" and i.name in ("quit", "repeat", "help")))
        mistakes = 0
        while mistakes < TRIES:
            heard = listener.listen(vocabulary, "> ")
            if heard is None:
                return 0
            said = grammar.parse(heard.text) if heard.text and heard.verdict != REJECT else None
            if said == Intent("command", name="quit"):
                return 0
            if said in (Intent("command", name="repeat"), Intent("command", name="help")):
                speaker.say(instruction)  # not a mistake: the step again
                continue
            if said == wanted:
                for line in _answer(language, wanted, total):
                    speaker.say(line)
                break
            mistakes += 1
            speaker.say(p.text("practice.again", step=instruction)
                        if mistakes < TRIES else p.text("practice.skipped"))
    speaker.say(p.text("practice.done"))
    return 0


def _answer(language: Language, said: Intent, total: int) -> List[str]:
    """What the rules make of the move at ``total``: the new total and what it costs."""
    p = language.phrases
    if said.kind == "command":
        return [p.text("answers.total", total=total)]
    if said.kind == "rules":
        return [p.data["rules"]["doksan"][said.rank]]
    after, _ = nn.card_effect("doksan", said.rank, total, said.value)
    costs, _ = nn.penalties(OPTIONS, total, after)
    line: Optional[str] = None
    for cost in costs:
        if cost.reason.startswith("hit_"):
            line = p.text("practice.hit", total=after)
        elif cost.reason.startswith("exceed_"):
            line = p.text("practice.passed", total=after, threshold=cost.reason[-2:])
    return [line or p.text("practice.total_now", total=after)]
