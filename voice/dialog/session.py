"""The session loop, the same for every game and for keyboard, microphone and WAV files:

listen -> understand -> dialog (ask / confirm / refuse) -> apply -> announce -> bots play.

The game is reached through its rules module (the protocol of ``engine/api.py``) and its
talk adapter (``voice/games/spec.py``): the loop never names a game, an event type or a
speaker method, and knows one listener class only to fall back to the keyboard.
"""
from __future__ import annotations

import time
import unicodedata
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from voice.dialog.record import Recorder
from voice.errors import UserError, sentence
from voice.games.spec import (OUT_CHOICES, REVEALING_QUESTIONS, SHARED_COMMANDS, GameTalk,
                              TurnMenu)
from voice.hear.keyboard import Heard, KeyboardListener
from voice.hear.recognizer import CONFIRM, REJECT
from voice.understand.grammar import Intent

# Spoken speech controls: the speaker call each one makes.
VOICE_CONTROLS: Dict[str, Callable] = {
    "slower": lambda mouth: mouth.slower(),
    "faster": lambda mouth: mouth.faster(),
    "louder": lambda mouth: mouth.set_volume(mouth.volume + 0.2),
    "quieter": lambda mouth: mouth.set_volume(mouth.volume - 0.2),
}
ECHO_WORDS, ECHO_CHARS = 4, 40   # what is read back of input that was not understood
HISTORY_LINES = 12               # "what happened": the last announcements


def echo(text: str) -> str:
    """A few words of what a player typed, with control characters removed: never a
    10,000-character line read aloud or raw escape codes in the terminal.

    >>> echo("play the\x1b[31m seven of   hearts now please")
    'play the [31m seven…'
    """
    clean = "".join(" " if unicodedata.category(c)[0] == "C" else c for c in text)
    words = clean.split()
    short = " ".join(words[:ECHO_WORDS])[:ECHO_CHARS]
    return short + "…" if len(words) > ECHO_WORDS or len(short) < len(" ".join(words)) else short


def phrase_allowed(intent: Intent, menu: Callable[[], TurnMenu], asking: bool = False,
                   can_undo: bool = False) -> bool:
    """Whether a phrase belongs in the recognizer's vocabulary: "yes" and "no" only while a
    question waits (fewer words to confuse), "undo" only while a person's move can be taken
    back (any person at the device may say it), the other shared commands always, everything
    else as the turn's ``menu()`` says."""
    if intent.kind == "command" and intent.name in ("yes", "no"):
        return asking
    if intent.kind == "command" and intent.name == "undo":
        return can_undo
    if intent.kind == "command" and intent.name in SHARED_COMMANDS:
        return True
    return menu().allowed(intent)


def bot_seed(base: int, seat: int, moves: int) -> int:
    """The seed of a bot's choice: from the game's bot seed, the seat and how many moves
    were made, so a resumed game plays exactly as the unbroken one."""
    return (base * 1_000_003 + moves * 131 + seat) % (1 << 62)


class Session:
    def __init__(self, talk: GameTalk, rules, state, bots: Dict[int, Callable[[int], object]],
                 ears, mouth, record: Recorder, pace: float = 0.0,
                 on_voice_failure: Optional[Callable[[Exception], str]] = None) -> None:
        self.talk = talk
        self.rules = rules
        self.p = talk.language.phrases
        self.grammar = talk.language.grammar
        self.state = state
        self.seats = record.seats
        self.bots = bots                      # seat -> bot factory(seed)
        self.humans = [i for i, s in enumerate(self.seats) if s.bot is None]
        self.listener = ears
        self.speaker = mouth
        self.record = record
        self.pace = pace
        self.on_voice_failure = on_voice_failure
        self.since_move: List[str] = []  # said since a person last moved: "repeat"
        self.history: List[str] = []     # every announcement: "what happened"
        self.pending_value: Optional[Intent] = None    # "Ten: plus or minus?" was asked
        self.pending_confirm: Optional[Intent] = None  # "Seven?" or "are you sure?" was asked
        self.pending_quit = False
        self.undo_point = None  # (state, seat) before a person's move, until anyone else moves
        self.held: List[str] = []  # what only the player may hear, while they may undo
        self.paused = False
        self.finished = False
        self.restart = False     # "new game" was asked: the command line starts another
        self.quiet = False       # "finish": the bots play on unannounced to the result
        self.asked_out = False   # everyone at the table is out: asked what to do, once
        self._menu: Optional[Tuple[object, int, Optional[Intent], TurnMenu]] = None
        record.on_problem = lambda kind, path: self.tell(
            [self.p.text(f"notices.{kind}_failed", path=path)], remember=False)

    # --- output -----------------------------------------------------------------------

    def tell(self, sentences: Sequence[str], remember: bool = True) -> None:
        """Speak (and print) sentences; ``remember`` keeps them for "repeat"."""
        sentences = [line for line in sentences if line]
        for line in sentences:
            self.speaker.say(line)
        if remember:
            self.since_move += sentences
            self.history = (self.history + sentences)[-HISTORY_LINES:]

    def turn_line(self, seat: int) -> str:
        key = "events.turn_you" if seat in self.humans else "events.turn"
        return self.p.text(key, player=self.seats[seat].name)

    # --- the loop ---------------------------------------------------------------------

    def start(self, opening_events: Sequence = ()) -> None:
        """Announce the opening (a new game's first deal, or a resumed game's position)."""
        self.record.log(opening_events)
        if self.rules.is_over(self.state):  # a finished game resumed: who won, and stop
            self.tell([self.p.text("answers.finished", winner=self.rules.winner(self.state))])
            self.finished = True
            return
        said = self.talk.announce(opening_events, self.state, self.humans)
        said += self.talk.secret(opening_events, self.state, self.humans)
        if not opening_events:  # a resumed game: where things stand
            said = [self.p.text("answers.resumed")]
            said += self.talk.where_we_are(self.state, self.humans[0])
            said += self.talk.deal_notice(self.state, self.humans)
        said.append(self.turn_line(self.state_turn()))
        self.tell(said)

    def state_turn(self) -> int:
        return self.rules.current_player(self.state)

    def menu(self, seat: int) -> TurnMenu:
        """The talk's menu for this state, seat and pending question, computed once."""
        cached = self._menu
        if cached is None or cached[0] is not self.state or cached[1:3] != (seat,
                                                                             self.pending_value):
            cached = self._menu = (self.state, seat, self.pending_value,
                                   self.talk.turn(self.state, seat, self.pending_value))
        return cached[3]

    def run(self, opening_events: Sequence = ()) -> int:
        self.start(opening_events)
        if self.finished:
            return 0
        while not self.finished and not self.rules.is_over(self.state):
            seat = self.state_turn()
            if seat in self.bots:
                if not self.asked_out and all(self.talk.is_out(self.state, s) for s in self.humans):
                    self.asked_out = True
                    if not self.ask_when_out():
                        return 0
                    continue
                self.bot_turn(seat)
                continue
            heard = self.listen(seat)
            if heard is None:
                self.end_of_input()
                return 0
            self.handle(heard, seat)
        self.record.save(self.state)
        return 0

    def ask_when_out(self) -> bool:
        """Everyone at the table is out: finish quickly, watch, or a new game? False when the
        input has ended (the game is saved)."""
        self.tell([self.p.text("dialog.out_choice")], remember=False)
        vocabulary = self.grammar.vocabulary(
            lambda i: i.kind == "command" and i.name in OUT_CHOICES + ("repeat", "quit"))
        for _ in range(3):
            heard = self.listener.listen(vocabulary, f"{self.seats[self.humans[0]].name}> ")
            if heard is None:
                self.end_of_input()
                return False
            intent = self.grammar.parse(heard.text) if heard.verdict != REJECT else None
            name = intent.name if intent is not None and intent.kind == "command" else None
            if name in OUT_CHOICES:
                self.quiet = name == "finish"
                self.restart = self.finished = name == "new_game"
                if self.quiet:
                    self.pace = 0.0
                key = {"finish": "finishing", "watch": "watching", "new_game": "new_game"}[name]
                self.tell([self.p.text(f"answers.{key}")], remember=False)
                return True
            self.tell([self.p.text("dialog.out_choice")], remember=False)
        return True  # no clear answer: watch

    def allowed(self, intent: Intent, seat: int) -> bool:
        """Whether a phrase is in the vocabulary now (see ``phrase_allowed``)."""
        return phrase_allowed(intent, lambda: self.menu(seat),
                              asking=self.pending_confirm is not None or self.pending_quit,
                              can_undo=self.undo_point is not None)

    def close_undo(self) -> None:
        """The chance to take the move back is over: say what was held back."""
        self.undo_point = None
        held, self.held = self.held, []
        # "repeat" may replay it when nobody else shares the device
        self.tell(held, remember=len(self.humans) == 1)

    def listen(self, seat: int) -> Optional[Heard]:
        if self.held:  # the same player moves again: they need to know their cards
            self.close_undo()
        vocabulary = self.grammar.vocabulary(lambda intent: self.allowed(intent, seat))
        prompt = f"{self.seats[seat].name}> "
        try:
            return self.listener.listen(vocabulary, prompt)
        except Exception as exc:  # a microphone unplugged mid-game: keep the game, go on typing
            if self.listener.typed_only:
                raise
            if self.on_voice_failure is None:  # recorded input (WAV files): stop, saved
                self.record.save(self.state)
                raise UserError(sentence(exc)) from None
            self.tell([self.on_voice_failure(exc)])
            self.listener = KeyboardListener()
            return self.listener.listen(vocabulary, prompt)

    def end_of_input(self) -> None:
        self.record.save(self.state)
        if self.record.save_path:
            self.tell([self.p.text("answers.saved", path=self.record.save_path)])

    def bot_turn(self, seat: int) -> None:
        if self.pace > 0:  # before the move: time to follow, to ask, or to undo one's own
            self.speaker.wait_until_quiet(30.0)
            self.pause_between_moves(self.pace)
            if self.state_turn() != seat:
                return  # a player took their move back
        self.close_undo()
        bot = self.bots[seat](bot_seed(self.record.bot_seed, seat, self.record.moves))
        self.apply(bot.choose(self.rules.view(self.state, seat)), [])

    def pause_between_moves(self, seconds: float) -> None:
        """Let people follow the bots; a live player may ask "total" or "repeat" meanwhile."""
        if not self.listener.live or not self.humans:
            time.sleep(seconds)
            return
        seat = self.undo_point[1] if self.undo_point else self.humans[0]
        vocabulary = self.grammar.vocabulary(
            lambda intent: intent.kind == "command" and intent.name != "quit" and (
                intent.name in self.talk.commands or self.allowed(intent, seat)))
        deadline = time.monotonic() + seconds
        while self.paused or time.monotonic() < deadline:
            wait = 1.0 if self.paused else deadline - time.monotonic()
            heard = self.listener.listen(vocabulary, "", timeout=wait)
            if heard is None:
                if self.paused:
                    continue  # paused: the bots wait until someone speaks
                return
            if self.paused:  # anything said ends the pause
                self.paused = False
                continue
            intent = self.grammar.parse(heard.text) if heard.verdict != REJECT else None
            if intent is not None and intent.kind == "command":
                self.command(intent.name, seat, heard)
                if intent.name == "undo":
                    return
            elif heard.text:
                player = self.seats[self.state_turn()].name
                self.tell([self.p.text("dialog.not_your_turn", player=player)], remember=False)
            self.speaker.wait_until_quiet(30.0)

    def apply(self, action, notes: Sequence[str], by_person: bool = False) -> None:
        before = self.state
        self.state, events = self.rules.apply(self.state, action)
        self.undo_point = (before, self.rules.current_player(before)) \
            if by_person and not self.rules.is_over(self.state) else None
        self.record.moves += 1
        self.record.log(events)
        if by_person:
            self.since_move = []  # "repeat" now replays from this move on
        said = list(notes) + self.talk.announce(events, self.state, self.humans)
        secret = self.talk.secret(events, self.state, self.humans)
        if self.undo_point is not None:
            self.held = secret       # said when the chance to undo is over
        else:
            said += secret
        if self.quiet and not self.rules.is_over(self.state):
            self.record.save(self.state)
            return  # "finish": only the result is said
        for cue in self.talk.cues(events)[:1]:
            self.speaker.earcon(cue)  # heard first: something went wrong for someone
        self.tell(said)
        if (self.listener.typed_only and not self.rules.is_over(self.state)
                and self.state_turn() in self.humans):
            self.speaker.earcon("your_turn")  # voice input has its own "listening" sound
        self.record.save(self.state)

    # --- one utterance or typed line --------------------------------------------------

    def reject(self, seat: int, heard: Heard, reason: str, message: str) -> None:
        self.record.rejected(self.seats[seat].name, heard.text, reason)
        self.tell([message], remember=False)

    def handle(self, heard: Heard, seat: int) -> None:
        p = self.p
        if self.paused:
            self.paused = False
        intent = self.grammar.parse(heard.text) if heard.verdict != REJECT else None
        if intent is None:
            if heard.typed and heard.text:
                message = p.text("dialog.not_understood", text=echo(heard.text))
            else:
                message = p.text("dialog.sorry")
            self.reject(seat, heard, "not_understood", message)
            return
        if self.pending_confirm is not None:
            asked, self.pending_confirm = self.pending_confirm, None
            if intent == Intent("command", name="yes"):
                if heard.verdict == CONFIRM and not self.sure_of_yes(heard):
                    self.pending_confirm = asked  # an unsure "yes" confirms nothing: again
                    self.tell([p.text("dialog.confirm", phrase=self.talk.phrase(asked))],
                              remember=False)
                    return
                self.act(asked, seat, heard, confirmed=True)
                return
            if intent == Intent("command", name="no"):
                self.tell([p.text("answers.cancelled")], remember=False)
                return
            if intent == asked:  # the move said again after the read-back: that is a yes
                self.act(asked, seat, heard, confirmed=True)
                return
        # a language whose recognizer is unmeasured on real speakers reads every spoken move
        # back, unless the player's own voice profile vouches for it
        doubtful = heard.verdict == CONFIRM or (
            not heard.typed and not heard.vouched and self.talk.language.confirm_every_move)
        if doubtful and intent.kind not in ("command", "rules"):
            # only moves are confirmed: a question is harmless and cheaper to just answer
            self.read_back(intent, seat, heard, unsure=heard.verdict == CONFIRM)
            return
        self.act(intent, seat, heard)

    def read_back(self, intent: Intent, seat: int, heard: Heard, unsure: bool = True) -> None:
        """"Six? Say yes, or say it again." — unless a second listening says the player
        answered a question nobody asked ("yes"), or (when the recognizer itself was
        ``unsure``, not only its language's verdict unfitted) named a card they do not hold."""
        second = heard.second_opinion(self.second_vocabulary()) if heard.second_opinion else ""
        other = self.grammar.parse(second) if second else None
        if other is not None and other.kind == "command" and other.name in ("yes", "no"):
            self.reject(seat, heard, "nothing_to_answer", self.p.text("dialog.nothing_asked"))
            return
        # only a card said by its rank: a move such as "sesenta y seis" holds a rank word
        if unsure and intent.kind == "play" and intent.suit is None and other is not None \
                and other.kind == "play" and other.rank != intent.rank \
                and not self.menu(seat).allowed(Intent("play", rank=other.rank)):
            outcome = self.menu(seat).resolve(Intent("play", rank=other.rank))
            if outcome.refusal:  # "You have no seven. Your cards: ..."
                self.reject(seat, heard, outcome.reason, outcome.refusal)
                return
        self.pending_confirm = intent
        self.tell([self.p.text("dialog.confirm", phrase=self.talk.phrase(intent))],
                  remember=False)

    def sure_of_yes(self, heard: Heard) -> bool:
        """An unsure "yes", heard again between yes and no only, is still a yes."""
        if heard.second_opinion is None:
            return False
        answer = heard.second_opinion(self.grammar.vocabulary(
            lambda i: i.kind == "command" and i.name in ("yes", "no")))
        return self.grammar.parse(answer) == Intent("command", name="yes") if answer else False

    def second_vocabulary(self) -> List[str]:
        """Every card by its rank (and with its suit, as Sixty-Six names cards), and yes and
        no: what a doubtful utterance is heard against."""
        return self.grammar.vocabulary(
            lambda i: (i.kind == "play" and i.value is None)
            or (i.kind == "command" and i.name in ("yes", "no")))

    def act(self, intent: Intent, seat: int, heard: Heard, confirmed: bool = False) -> None:
        p = self.p
        if self.pending_quit:
            self.pending_quit = False
            if intent.name == "yes":
                self.tell([p.text("answers.quit_yes")], remember=False)
                self.finished = True
                return
            if intent.name == "no":
                self.tell([p.text("answers.cancelled")], remember=False)
                return
        if intent.kind == "command":
            self.command(intent.name, seat, heard)
            return
        if intent.kind == "rules":
            self.tell([self.talk.rules(intent.rank, self.state)])
            return
        outcome = self.menu(seat).resolve(intent)
        if outcome.question:
            self.pending_value = outcome.pending
            self.tell([outcome.question], remember=False)
            return
        self.pending_value = None
        if outcome.refusal:
            self.reject(seat, heard, outcome.reason, outcome.refusal)
            return
        if outcome.caution and not confirmed and (not heard.typed or outcome.caution_typed):
            # a decisive move (a claim, a close, a play that costs lives when another would
            # not): by voice it is always read back; typed, only when it cannot succeed
            self.pending_confirm = intent
            self.tell([outcome.caution], remember=False)
            return
        self.apply(outcome.action, outcome.notes, by_person=True)

    def command(self, name: str, seat: int, heard: Heard) -> None:
        p = self.p
        if name == "repeat":
            self.tell(self.since_move or self.history[-1:]
                      or [p.text("answers.nothing_to_repeat")], remember=False)
        elif name == "history":
            self.tell(self.history or [p.text("answers.nothing_to_repeat")], remember=False)
        elif name in ("shorter", "more_detail"):
            self.talk.verbose = name == "more_detail"  # the command line remembers it
            self.tell([p.text(f"answers.{name}")], remember=False)
        elif name == "quit":
            self.pending_quit = True
            self.tell([p.text("answers.quit_confirm")], remember=False)
        elif name in VOICE_CONTROLS:
            VOICE_CONTROLS[name](self.speaker)
            self.tell([p.text(f"answers.{name}")], remember=False)
        elif name == "pause":
            self.paused = True
            self.speaker.stop()
            self.tell([p.text("answers.paused")], remember=False)
        elif name == "undo" and self.undo_point is not None:
            self.state, mover = self.undo_point  # the last move by a person, whoever says it
            seat = mover
            self.undo_point = None
            self.held = []           # never heard: the next card stays unknown
            self.record.moves -= 1
            player = self.seats[seat].name
            self.record.undo(player)
            self.tell([p.text("answers.undone", player=player)]
                      + self.talk.where_we_are(self.state, seat)[:1]
                      + [p.text("events.turn_you", player=player)])
            self.record.save(self.state)
        elif name == "undo":
            self.reject(seat, heard, "nothing_to_undo", p.text("dialog.nothing_to_undo"))
        elif name in ("yes", "no"):
            self.reject(seat, heard, "nothing_to_answer", p.text("dialog.sorry"))
        elif name in self.talk.commands or name in self.talk.typed_aliases:
            if name in REVEALING_QUESTIONS and self.held:
                self.close_undo()    # their cards include the one held back: no undo now
            self.tell([self.talk.answer(name, self.state, seat)], remember=name != "help")
        else:  # another game's command ("trump" in Ninety-Nine)
            self.reject(seat, heard, "not_understood",
                        p.text("dialog.not_understood", text=echo(heard.text)) if heard.typed
                        else p.text("dialog.sorry"))
