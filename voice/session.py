"""The session loop, the same for keyboard, microphone and WAV files:

listen -> understand -> dialog (ask / confirm / refuse) -> apply -> announce -> bots play.

Only this module knows all the parts. The game is reached through its "talk" object
(``talk.game`` is the engine module; ``talk`` turns intents into actions and events into
sentences), so Ninety-Nine and Sixty-Six share the loop.
"""
from __future__ import annotations

import json
import time
from typing import IO, Callable, Dict, List, Optional, Sequence

from .errors import UserError, sentence
from .listener import Heard, KeyboardListener
from .recognition import CONFIRM, REJECT
from .saves import Seat, write_save
from .understanding import Grammar, Intent


class Session:
    def __init__(self, talk, grammar: Grammar, state, seats: Sequence[Seat], bots: Dict,
                 listener, speaker, game_name: str, bot_seed: int = 0,
                 events_file: Optional[IO[str]] = None, save_path: Optional[str] = None,
                 pace: float = 0.0, on_voice_failure: Optional[Callable[[Exception], str]] = None
                 ) -> None:
        self.talk = talk
        self.game = talk.game
        self.grammar = grammar
        self.state = state
        self.seats = list(seats)
        self.bots = bots                      # seat -> bot
        self.humans = [i for i, s in enumerate(seats) if s.bot is None]
        self.listener = listener
        self.speaker = speaker
        self.game_name = game_name
        self.bot_seed = bot_seed
        self.events_file = events_file
        self.save_path = save_path
        self.pace = pace
        self.on_voice_failure = on_voice_failure
        self.last_said: List[str] = []
        self.pending_value: Optional[Intent] = None    # "Ten: plus or minus?" was asked
        self.pending_confirm: Optional[Intent] = None  # "Seven?" was asked
        self.pending_quit = False
        self.undo_point = None  # (state, seat) before a person's move, until anyone else moves
        self.paused = False
        self.finished = False

    # --- output -----------------------------------------------------------------------

    def say(self, sentences: Sequence[str], remember: bool = True) -> None:
        sentences = [line for line in sentences if line]
        for line in sentences:
            self.speaker.say(line)
        if remember and sentences:
            self.last_said = list(sentences)

    def log(self, records: Sequence) -> None:
        if self.events_file is None:
            return
        for record in records:
            data = record if isinstance(record, dict) else record.to_json()
            self.events_file.write(json.dumps(data) + "\n")
        self.events_file.flush()

    def save(self) -> None:
        if self.save_path:
            write_save(self.save_path, self.game_name, self.state.to_json(), self.seats,
                       self.bot_seed)

    # --- the loop ---------------------------------------------------------------------

    def start(self, opening_events: Sequence = ()) -> None:
        """Announce the opening (a new game's first deal, or a resumed game's position)."""
        self.log(opening_events)
        said = self.talk.announce(opening_events, self.state, self.humans)
        if not opening_events:  # a resumed game: where things stand
            said.append(self.talk.p.say("answers.resumed"))
            said += [self.talk.answer(name, self.state, self.humans[0])
                     for name in ("total", "trump", "score") if name in self.talk.commands]
        said += self.talk.deal_notice(self.state, self.humans)
        seat = self.state_turn()
        key = "events.turn_you" if seat in self.humans else "events.turn"
        said.append(self.talk.p.say(key, player=self.seats[seat].name))
        self.say(said)

    def state_turn(self) -> int:
        return self.game.current_player(self.state)

    def run(self, opening_events: Sequence = ()) -> int:
        self.start(opening_events)
        while not self.finished and not self.game.is_over(self.state):
            seat = self.state_turn()
            if seat in self.bots:
                self.bot_turn(seat)
                continue
            heard = self.listen(seat)
            if heard is None:
                self.end_of_input()
                return 0
            self.handle(heard, seat)
        self.save()
        return 0

    def allowed(self, intent: Intent, seat: int) -> bool:
        """Whether a phrase is in the vocabulary now: "yes" and "no" only answer a question
        (fewer words to confuse), everything else as the game says."""
        if intent.kind == "command" and intent.name in ("yes", "no"):
            return self.pending_confirm is not None or self.pending_quit
        if intent.kind == "command" and intent.name == "undo":
            return self.undo_point is not None and self.undo_point[1] == seat
        return self.talk.allowed(intent, self.state, seat, self.pending_value)

    def listen(self, seat: int) -> Optional[Heard]:
        vocabulary = self.grammar.vocabulary(lambda intent: self.allowed(intent, seat))
        prompt = f"{self.seats[seat].name}> "
        try:
            return self.listener.listen(vocabulary, prompt)
        except Exception as exc:  # a microphone unplugged mid-game: keep the game, go on typing
            if isinstance(self.listener, KeyboardListener):
                raise
            if self.on_voice_failure is None:  # recorded input (WAV files): stop, saved
                self.save()
                raise UserError(sentence(exc)) from None
            self.say([self.on_voice_failure(exc)])
            self.listener = KeyboardListener()
            return self.listener.listen(vocabulary, prompt)

    def end_of_input(self) -> None:
        self.save()
        if self.save_path:
            self.say([self.talk.p.say("answers.saved", path=self.save_path)])

    def bot_turn(self, seat: int) -> None:
        if self.pace > 0:  # before the move: time to follow, to ask, or to undo one's own
            self.speaker.wait_until_quiet(30.0)
            self.pause_between_moves(self.pace)
            if self.state_turn() != seat:
                return  # a player took their move back
        bot = self.bots[seat]
        self.apply(bot.choose(self.game.view(self.state, seat)), [])

    def pause_between_moves(self, seconds: float) -> None:
        """Let people follow the bots; a live player may ask "total" or "repeat" meanwhile."""
        if not self.listener.live or not self.humans:
            time.sleep(seconds)
            return
        seat = self.undo_point[1] if self.undo_point else self.humans[0]
        vocabulary = self.grammar.vocabulary(
            lambda intent: intent.kind == "command" and (
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
            if intent is not None and intent.kind == "command" and intent.name != "quit":
                self.command(intent.name, seat, heard)
                if intent.name == "undo":
                    return
            elif heard.text:
                player = self.seats[self.state_turn()].name
                self.say([self.talk.p.say("dialog.not_your_turn", player=player)],
                         remember=False)
            self.speaker.wait_until_quiet(30.0)

    def apply(self, action, notes: Sequence[str], by_person: bool = False) -> None:
        before = self.state
        self.state, events = self.game.apply(self.state, action)
        self.undo_point = (before, self.game.current_player(before)) \
            if by_person and not self.game.is_over(self.state) else None
        self.log(events)
        said = list(notes) + self.talk.announce(events, self.state, self.humans)
        if any(e.type in ("round_start", "deal") for e in events):
            said += self.talk.deal_notice(self.state, self.humans)
        for kind, earcon in (("eliminated", "eliminated"), ("lives", "penalty")):
            if any(e.type == kind for e in events):
                self.speaker.earcon(earcon)  # heard first: something went wrong for someone
                break
        self.say(said)
        if (isinstance(self.listener, KeyboardListener) and not self.game.is_over(self.state)
                and self.state_turn() in self.humans):
            self.speaker.earcon("your_turn")  # voice input has its own "listening" sound
        self.save()

    # --- one utterance or typed line --------------------------------------------------

    def reject(self, seat: int, heard: Heard, reason: str, message: str) -> None:
        self.log([{"type": "rejected", "player": self.seats[seat].name, "input": heard.text,
                   "reason": reason}])
        self.say([message], remember=False)

    def handle(self, heard: Heard, seat: int) -> None:
        p = self.talk.p
        if self.paused:
            self.paused = False
        intent = self.grammar.parse(heard.text) if heard.verdict != REJECT else None
        if intent is None:
            if heard.typed and heard.text:
                message = p.say("dialog.not_understood", text=heard.text)
            else:
                message = p.say("dialog.sorry")
            self.reject(seat, heard, "not_understood", message)
            return
        if self.pending_confirm is not None:
            asked, self.pending_confirm = self.pending_confirm, None
            if intent == Intent("command", name="yes"):
                self.act(asked, seat, heard)
                return
            if intent == Intent("command", name="no"):
                self.say([p.say("answers.cancelled")], remember=False)
                return
        if heard.verdict == CONFIRM and intent.kind not in ("command", "rules"):
            # only moves are confirmed: a question is harmless and cheaper to just answer
            self.pending_confirm = intent
            self.say([p.say("dialog.confirm", phrase=self.talk.phrase(intent))], remember=False)
            return
        self.act(intent, seat, heard)

    def act(self, intent: Intent, seat: int, heard: Heard) -> None:
        p = self.talk.p
        if self.pending_quit:
            self.pending_quit = False
            if intent.name == "yes":
                self.say([p.say("answers.quit_yes")], remember=False)
                self.finished = True
                return
            if intent.name == "no":
                self.say([p.say("answers.cancelled")], remember=False)
                return
        if intent.kind == "command":
            self.command(intent.name, seat, heard)
            return
        if intent.kind == "rules":
            self.say([self.talk.rules(intent.rank, self.state)])
            return
        outcome = self.talk.resolve(intent, self.state, seat, self.pending_value)
        if outcome.question:
            self.pending_value = outcome.pending
            self.say([outcome.question], remember=False)
            return
        self.pending_value = None
        if outcome.refusal:
            self.reject(seat, heard, outcome.reason, outcome.refusal)
            return
        self.apply(outcome.action, outcome.notes, by_person=True)

    def command(self, name: str, seat: int, heard: Heard) -> None:
        p = self.talk.p
        if name == "repeat":
            self.say(self.last_said or [p.say("answers.nothing_to_repeat")], remember=False)
        elif name == "quit":
            self.pending_quit = True
            self.say([p.say("answers.quit_confirm")], remember=False)
        elif name in ("slower", "faster"):
            getattr(self.speaker, name)()
            self.say([p.say(f"answers.{name}")], remember=False)
        elif name in ("louder", "quieter"):
            step = 0.2 if name == "louder" else -0.2
            self.speaker.set_volume(self.speaker.volume + step)
            self.say([p.say(f"answers.{name}")], remember=False)
        elif name == "pause":
            self.paused = True
            self.speaker.stop()
            self.say([p.say("answers.paused")], remember=False)
        elif name == "undo" and self.undo_point is not None and self.undo_point[1] == seat:
            self.state, _ = self.undo_point
            self.undo_point = None
            player = self.seats[seat].name
            self.log([{"type": "undo", "player": player}])
            self.say([p.say("answers.undone", player=player),
                      self.talk.answer("total", self.state, seat)
                      if "total" in self.talk.commands else "",
                      p.say("events.turn_you", player=player)])
            self.save()
        elif name == "undo":
            self.reject(seat, heard, "nothing_to_undo", p.say("dialog.nothing_to_undo"))
        elif name in ("yes", "no"):
            self.reject(seat, heard, "nothing_to_answer", p.say("dialog.sorry"))
        elif name in self.talk.commands or name in getattr(self.talk, "aliases", {}):
            self.say([self.talk.answer(name, self.state, seat)], remember=name != "help")
        else:  # another game's command ("trump" in Ninety-Nine)
            self.reject(seat, heard, "not_understood",
                        p.say("dialog.not_understood", text=heard.text) if heard.typed
                        else p.say("dialog.sorry"))
