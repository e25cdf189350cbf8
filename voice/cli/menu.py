"""The start menu: a few short spoken questions before a game, answered by voice or key.

Which game, how many computer players, the player's name (typed only: by voice the
remembered name is kept) and the starting lives, chips or match target.  The last choice of
games is "a game at a real table" (table mode): then which game is played there, and the
table's own set-up (``table_setup.py``) asks the names, lives, dealer and house rules; by
voice the player may also say "my voice" first, to teach the game their voice (spoken
enrollment). Every question says
its default, and an empty line (or "okay") takes it. An answer that is not one of the
choices gets one short sentence and the question again, at most three times, then the
default. When the input ends, the defaults are taken for everything left.

The words are data: the questions are phrases (``menu.*`` in ``voice/lang/<code>/phrases.json``),
the answers come from the ``menu`` section of the language's grammar.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Collection, Dict, List, Optional, Sequence, Tuple

from voice.games.spec import GameSpec
from voice.hear.recognizer import CONFIRM, REJECT
from voice.lang import Language

TRIES = 3
TABLE = "table"  # the game question's answer for "a game at a real table"
PROMPT = "> "
MAX_LIVES = 99
MAX_NAME = 40
ENROLL = "enroll"   # the game question's other answer: teach the game your voice


@dataclass(frozen=True)
class Choice:
    game: str
    names: List[str]
    opponents: int
    lives: Optional[int] = None     # Ninety-Nine games: starting lives or chips
    target: Optional[int] = None    # Sixty-Six: game points to win the match


class _Ended(Exception):
    """The input has ended: take the defaults for everything still to be asked."""


class _Quit(Exception):
    pass


def opponent_range(spec: GameSpec, humans: int = 1) -> Tuple[int, int]:
    fewest, most = spec.players
    return max(1, fewest - humans), max(1, most - humans)


def default_opponents(spec: GameSpec, remembered: Optional[int], humans: int = 1) -> int:
    low, high = opponent_range(spec, humans)
    wanted = remembered if remembered is not None else len(spec.default_bots)
    return min(high, max(low, wanted))


def lives_question(spec: GameSpec, players: int) -> Optional[Tuple[str, int, Sequence[int]]]:
    """('lives' or 'target', the built-in default, the allowed values) for a game's start."""
    options = spec.make_options()
    if hasattr(options, "starting_lives"):
        return "lives", options.starting_lives(players), range(1, MAX_LIVES + 1)
    if hasattr(options, "target"):
        allowed = tuple(getattr(spec.rules, "ALLOWED_TARGETS", (options.target,)))
        return "target", options.target, allowed
    return None


class Menu:
    def __init__(self, language: Language, listener, speaker, games: Sequence[GameSpec],
                 settings, tables: Sequence[GameSpec] = (),
                 enroll: Optional[Callable[[], None]] = None) -> None:
        """``games``: with virtual cards; ``tables``: the table modes offered; ``enroll``:
        spoken enrollment of the player's voice, offered after them when the menu is heard
        by voice (the language's ``enroll`` words, or the number after the choices')."""
        self.language = language
        self.p = language.phrases
        self.listener = listener
        self.speaker = speaker
        self.games = list(games)
        self.tables = list(tables)
        self.settings = settings
        menu = language.grammar.data.get("menu", {})
        self.words = menu
        self.commands = {name: language.grammar.data["commands"][name]
                         for name in ("quit", "help", "repeat")
                         if name in language.grammar.data["commands"]}
        self.typed_only = getattr(listener, "typed_only", True)
        self.last_heard = None    # the Heard of the last answer (its second opinion)
        self.enroll = enroll if not self.typed_only else None
        self.spoken = set()  # the answers a recognizer may hear (typed spellings left out)
        for section in ("games", "numbers"):  # "games" has the words of TABLE too
            for entry in menu.get(section, {}).values():
                self.spoken.update(self._entry_words(entry, spoken_only=True))
        self.spoken.update(self._entry_words(menu.get(ENROLL, {}), spoken_only=True))
        commands = language.grammar.data["commands"]
        self.yes, self.no = (self._entry_words(commands[w]) for w in ("yes", "no"))
        for word in ("yes", "no"):   # for reading a doubted answer back
            self.spoken.update(self._entry_words(commands[word], spoken_only=True))

    # --- the questions ----------------------------------------------------------------

    def run(self) -> Optional[Choice]:
        """The player's choice, or None when they said quit."""
        self.speaker.say(self.p.text("menu.welcome"))
        remembered = self.settings
        default_game = remembered.game if remembered.game in [g.id for g in self.games] \
            else self.games[0].id
        names = list(remembered.names) or ["Player"]
        game, opponents = default_game, None
        try:
            game = self.ask_game(default_game)
            while game == ENROLL:
                game = default_game  # should the input end meanwhile
                self.enroll()
                game = self.ask_game(default_game)
            if game == TABLE:
                return Choice(self.ask_table_game(), [], 0)
            spec = self._spec(game)
            opponents = self.ask_opponents(spec, default_opponents(spec, remembered.opponents))
            if self.typed_only:
                names = [self.ask_name(names[0])]
            return self.ask_start(spec, names, opponents)
        except _Quit:
            self.speaker.say(self.p.text("answers.quit_yes"))
            return None
        except _Ended:  # the defaults for what was not answered yet
            if game == TABLE:
                return Choice(self.tables[0].id, [], 0)
            spec = self._spec(game)
            if opponents is None:
                opponents = default_opponents(spec, remembered.opponents)
            return self._with_defaults(spec, names, opponents)

    def _spec(self, game: str) -> GameSpec:
        return next(g for g in self.games if g.id == game)

    def _with_defaults(self, spec: GameSpec, names: List[str], opponents: int) -> Choice:
        kind = lives_question(spec, len(names) + opponents)
        value = self._remembered_start(spec, kind)
        return Choice(spec.id, names, opponents,
                      lives=value if kind and kind[0] == "lives" else None,
                      target=value if kind and kind[0] == "target" else None)

    def _remembered_start(self, spec: GameSpec, kind) -> Optional[int]:
        if kind is None:
            return None
        name, builtin, allowed = kind
        value = self.settings.lives.get(spec.id) if name == "lives" else self.settings.target
        return value if value in allowed else builtin

    def ask_game(self, default: str) -> str:
        choices = [(g.id, self.p.text(f"games.{g.id}")) for g in self.games]
        if self.tables:
            choices.append((TABLE, self.p.text("menu.table_choice")))
        answers = self._choices(choices)
        question = self.p.text("menu.game", games=self._or([title for _, title in choices]),
                               hint=self._hint(self.p.text(f"games.{default}")))
        if self.enroll is not None:
            number = len(choices) + 1
            for word in self._number_words(number) + self._entry_words(self.words.get(ENROLL, {})):
                answers[word] = ENROLL
            question += " " + self.p.text("enroll.menu_offer", number=number)
        return self._ask(question, answers, default, self.p.text(f"games.{default}"),
                         said=self._game_title)

    def _game_title(self, game: str) -> Optional[str]:
        """A game's name as read back (none for "my voice": that can be left at once)."""
        if game == ENROLL:
            return None
        return self.p.text("menu.table_choice" if game == TABLE else f"games.{game}")

    def ask_table_game(self) -> str:
        """Which game is played at the real table (its table mode's id)."""
        choices = [(t.id, self.p.text(f"games.{t.table_of}")) for t in self.tables]
        answers = self._choices(choices, [t.table_of for t in self.tables])
        default, title = choices[0]
        question = self.p.text("menu.table_game", games=self._or([t for _, t in choices]),
                               hint=self._hint(title))
        return self._ask(question, answers, default, title)

    def _choices(self, choices, word_ids=None) -> Dict[str, str]:
        """Answers naming each choice: its number and its words (under ``word_ids``)."""
        answers: Dict[str, str] = {}
        ids = word_ids or [value for value, _ in choices]
        for number, ((value, _), words_of) in enumerate(zip(choices, ids), 1):
            for word in self._number_words(number):
                answers[word] = value
            for word in self._entry_words(self.words.get("games", {}).get(words_of, {})):
                answers[word] = value
        return answers

    def ask_opponents(self, spec: GameSpec, default: int) -> int:
        low, high = opponent_range(spec)
        if low == high:
            return low
        answers = self._numbers(range(low, high + 1))
        question = self.p.text("menu.opponents", low=low, high=high, hint=self._hint(default))
        return self._ask(question, answers, default, str(default), said=str)

    def ask_name(self, default: str) -> str:
        question = self.p.text("menu.name", hint=self._hint(default))
        for _ in range(TRIES):
            text = self._hear(question)
            if text is None:
                return default
            name = " ".join(text.split())
            if 0 < len(name) <= MAX_NAME and name.isprintable() and "," not in name:
                return name
            self.speaker.say(self.p.text("menu.bad_name"))
        self.speaker.say(self.p.text("menu.taking_default", default=default))
        return default

    def ask_start(self, spec: GameSpec, names: List[str], opponents: int) -> Choice:
        kind = lives_question(spec, len(names) + opponents)
        if kind is None:
            return Choice(spec.id, names, opponents)
        name, _, allowed = kind
        default = self._remembered_start(spec, kind)
        fields = {"choices": self._or([str(n) for n in allowed])} if name == "target" else {}
        question = self.p.text(f"menu.lives.{spec.id}", hint=self._hint(default), **fields)
        value = self._ask(question, self._numbers(allowed), default, str(default), said=str)
        return Choice(spec.id, names, opponents,
                      lives=value if name == "lives" else None,
                      target=value if name == "target" else None)

    # --- asking -----------------------------------------------------------------------

    def _ask(self, question: str, answers: Dict[str, object], default, default_text: str,
             said: Optional[Callable[[object], str]] = None):
        """The answer to a closed question: ``answers`` maps normalized words to values.
        ``said(value)``: how the answer is read back for a yes when the recognizer doubted
        it, in a language whose spoken moves are all read back (its real speakers are
        unmeasured); elsewhere, and typed, the answers are few and taken as heard."""
        for _ in range(TRIES):
            text = self._hear(question, [w for w in answers if w in self.spoken])
            if text is None:
                return default
            key = self.language.grammar.key(text)
            if key in answers:
                back = said(answers[key]) if said is not None else None
                if back is not None and self._doubted() and not self._confirm(
                        self.p.text("menu.read_back", answer=back)):
                    continue
                return answers[key]
            self.speaker.say(self.p.text("menu.unknown"))
        self.speaker.say(self.p.text("menu.taking_default", default=default_text))
        return default

    def _hear(self, question: str, vocabulary: Sequence[str] = (),
              take_doubted: Collection[str] = ()) -> Optional[str]:
        """The answer's text; None for "take the default". Raises _Ended or _Quit.
        ``take_doubted``: answers taken even when the recognizer rejects its reading of
        them (they are read back for a yes); any other rejected reading is an unknown answer."""
        while True:
            self.speaker.say(question)
            spoken = list(vocabulary) + self._default_words(spoken_only=True)
            for entry in self.commands.values():
                spoken += entry.get("spoken", [])
            heard = self.listener.listen(sorted(set(w for w in spoken if w)), PROMPT)
            if heard is None:
                raise _Ended()
            self.last_heard = heard
            text = heard.text.strip()
            if (heard.verdict == REJECT and not heard.typed
                    and self.language.grammar.key(text) not in take_doubted):
                text = "\0"  # speech that was not understood: an unknown answer
            # (an unsure reading is taken: the answers are few and the game opens by naming them)
            key = self.language.grammar.key(text)
            if not text or key in self._default_words():
                return None
            command = self._command(key)
            if command == "quit":
                raise _Quit()
            if command in ("help", "repeat"):
                continue
            return text

    def _doubted(self) -> bool:
        heard = self.last_heard
        return (heard is not None and not heard.typed and heard.verdict == CONFIRM
                and self.language.confirm_every_move)

    def _confirm(self, question: str) -> bool:
        """A yes or a no; unanswered, a no (nothing is taken that was not said)."""
        answers = {w: True for w in self.yes}
        answers.update({w: False for w in self.no})
        no = self.language.grammar.data["commands"]["no"]["spoken"][0]
        return self._ask(question, answers, False, no)

    def _command(self, key: str) -> Optional[str]:
        for name, entry in self.commands.items():
            if key in self._entry_words(entry):
                return name
        return None

    # --- words ------------------------------------------------------------------------

    def _default_words(self, spoken_only: bool = False) -> List[str]:
        """The words that take a question's default ("okay")."""
        return self._entry_words(self.words.get("default", {}), spoken_only)

    def _entry_words(self, entry, spoken_only: bool = False) -> List[str]:
        words = list(entry.get("spoken", [])) + ([] if spoken_only else entry.get("typed", []))
        return [self.language.grammar.key(w) for w in words]

    def _number_words(self, number: int) -> List[str]:
        words = [str(number)]
        words += self._entry_words(self.words.get("numbers", {}).get(str(number), {}))
        return words

    def _numbers(self, values) -> Dict[str, int]:
        answers: Dict[str, int] = {}
        for n in values:
            for word in self._number_words(n):
                answers[word] = n
        return answers

    def _hint(self, default) -> str:
        key = "menu.enter_for" if self.typed_only else "menu.say_okay_for"
        return self.p.text(key, default=default)

    def _or(self, items: Sequence[str]) -> str:
        return self.p.join(items, "menu.list_or")
