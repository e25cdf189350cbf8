"""The set-up of a real table (``talking-cards table`` without ``--players``, or the start
menu's "a game at a real table"): the players' names in seating order, the starting lives,
chips or match target, who deals first and the house rules, by voice or by key.

Typed, each name is one line and an empty line ends the list. By voice each seat's name is
said from a list of first names (``voice/lang/names.json``, or the language's own; the
recognizer hears only what it has a pronunciation for) and read back for a yes; a name that
is not in the list is spelled one letter an utterance (``setup.letters`` in the language's
``grammar.table.json``), read back, or typed. "done" ends the list once the game has enough
players; "okay" keeps a seat's default name, "Player 2". Then, unless the command line gave
them, the lives (the start menu's question), the first dealer (by name or seat number; the
default is the last seat, so the first starts) and the house rules (the game's own, from the
registry; none by default). Every word is the language's data.
"""
from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from voice.cli.menu import MAX_NAME, TRIES, Menu, _Ended, _Quit, lives_question
from voice.errors import UserError
from voice.games.spec import GameSpec
from voice.lang import LANG_DIR, Language

@dataclass(frozen=True)
class KnownName:
    name: str                   # as written and said back: "Ayşe"
    spoken: Tuple[str, ...]     # the recognizer's spellings: "ayse"


@dataclass
class TableSetup:
    names: List[str]
    lives: Optional[int] = None
    target: Optional[int] = None
    dealer: Optional[int] = None        # a seat; None: the game's default (the last seat)
    house_rules: List[str] = field(default_factory=list)


def names_of(language: Language) -> List[KnownName]:
    """The first names a recognizer can hear in ``language``: its own list if it has one
    (Korean writes them in Hangul), else the shared one."""
    path = LANG_DIR / language.code / "names.json"
    if not path.exists():
        path = LANG_DIR / "names.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    return [KnownName(entry["name"], tuple(entry["spoken"])) for entry in data["names"]]


def setup_words(language: Language, spoken_only: bool = True) -> Dict[str, List[str]]:
    """The set-up's words ("default", "done", "spell", "back"), as grammar keys."""
    section = language.grammar.data.get("setup", {})
    key = language.grammar.key
    return {name: [key(w) for w in section.get(name, {}).get("spoken", [])
                   + ([] if spoken_only else section.get(name, {}).get("typed", []))]
            for name in ("default", "done", "spell", "back")}


def letters_of(language: Language) -> List[Tuple[str, List[str]]]:
    """(letter, its spoken words) for spelling a name; empty: the language spells nothing."""
    letters = language.grammar.data.get("setup", {}).get("letters", {})
    return [(letter, [language.grammar.key(w) for w in entry.get("spoken", [])])
            for letter, entry in letters.items()]


def capital(language: Language, name: str) -> str:
    """A spelled name with its first letter capital ("upper" in the letter's data when it is
    not Python's upper case: Turkish i -> İ)."""
    if not name:
        return name
    entry = language.grammar.data.get("setup", {}).get("letters", {}).get(name[0], {})
    return entry.get("upper", name[0].upper()) + name[1:]


class TableSetupDialog(Menu):
    """The questions, asked with the start menu's machinery (defaults, retries, quit, help)."""

    def __init__(self, language: Language, listener, speaker, spec: GameSpec,
                 virtual: GameSpec) -> None:
        """``virtual``: the game played on the device whose options the table uses (its
        lives question and allowed targets)."""
        super().__init__(language, listener, speaker, [], None)
        self.spec, self.virtual = spec, virtual
        grammar = language.grammar
        self.setup = grammar.data.get("setup", {})
        self.say = setup_words(language)
        self.typed_words = setup_words(language, spoken_only=False)
        self.known = {key: known for known in names_of(language)
                      for key in map(grammar.key, known.spoken)}
        self.letters = {}
        for letter, spoken in letters_of(language):
            for word in spoken:
                self.letters.setdefault(word, letter)
        self._doubtable = set(self.known) | set(self.letters)   # taken even when doubted
        self._names_so_far: List[str] = []   # the seats named so far (kept when input ends)
        self.spoken |= set(self.known) | set(self.letters) | set(
            w for words in self.say.values() for w in words)
        for entry in grammar.data.get("numbers", {}).values():
            self.spoken.update(self._entry_words(entry, spoken_only=True))
        for entry in self.setup.get("house_rules", {}).values():
            self.spoken.update(self._entry_words(entry, spoken_only=True))

    def _default_words(self, spoken_only: bool = False) -> List[str]:
        """The start menu's "okay" words and the set-up's own (Spanish "siguiente")."""
        return (super()._default_words(spoken_only)
                + self._entry_words(self.setup.get("default", {}), spoken_only))

    def _number_words(self, number: int) -> List[str]:
        """The number's words: the table grammar's numbers (0 to 99)."""
        entry = self.language.grammar.data.get("numbers", {}).get(str(number), {})
        return [str(number)] + self._entry_words(entry)

    # --- the whole set-up ------------------------------------------------------------

    def run(self, ask_lives: bool = True, ask_dealer: bool = True,
            ask_house_rules: bool = True) -> Optional[TableSetup]:
        """The table, or None when someone said quit. The questions whose answer the
        command line gave are not asked; when the input ends, the defaults are taken."""
        fewest, most = self.spec.players
        setup = TableSetup([])
        try:
            setup.names = self.ask_names(fewest, most)
        except _Quit:
            self.speaker.say(self.p.text("answers.quit_yes"))
            return None
        except _Ended:
            setup.names = list(self._names_so_far)
            setup.names += [self.p.text("menu.seat_name", n=n)
                            for n in range(len(setup.names) + 1, fewest + 1)]
            self.speaker.say(self.p.text("table.names_read_back", names=self.p.join(setup.names)))
            return setup
        try:
            if ask_lives:
                self.ask_lives(setup)
            if ask_dealer:
                setup.dealer = self.ask_dealer(setup.names)
            if ask_house_rules:
                setup.house_rules = self.ask_house_rules()
        except _Quit:
            self.speaker.say(self.p.text("answers.quit_yes"))
            return None
        except _Ended:
            pass  # the defaults for what was not answered yet
        return setup

    # --- names -------------------------------------------------------------------------

    def ask_names(self, fewest: int, most: int) -> List[str]:
        names = self._names_so_far
        if self.typed_only:
            self._typed_names(names, fewest, most)
        else:
            self.speaker.say(self.p.text("table.ask_names_voice"))
            while len(names) < most:
                name = self._spoken_name(len(names) + 1, can_end=len(names) >= fewest)
                if name is None:
                    break
                self._add_name(names, name)
        self.speaker.say(self.p.text("table.names_read_back", names=self.p.join(names)))
        return list(names)

    def _add_name(self, names: List[str], name: str) -> None:
        """A seat's name, unless another seat has it already (said so)."""
        taken = [n for n in names if self._name_key(n) == self._name_key(name)]
        if taken:
            self.speaker.say(self.p.text("table.name_taken", name=taken[0]))
        else:
            names.append(name)

    def _typed_names(self, names: List[str], fewest: int, most: int) -> None:
        """One typed line each, an empty line ends (as the table always asked)."""
        self.speaker.say(self.p.text("table.ask_names"))
        while len(names) < most:
            heard = self.listener.listen([], self.p.text("table.name_prompt",
                                                         n=len(names) + 1) + " ")
            name = typed_name(heard.text if heard else "")
            if not name:
                if len(names) >= fewest or heard is None:
                    break
                self.speaker.say(self.p.text("table.need_players", n=fewest))
                continue
            self._add_name(names, name)
        if len(names) < fewest:
            raise UserError(f"At least {fewest} players are needed; give them with --players.")

    def _spoken_name(self, n: int, can_end: bool) -> Optional[str]:
        """Seat ``n``'s name by voice (None: "done", the list is complete)."""
        default = self.p.text("menu.seat_name", n=n)
        taken = self._taken_keys()
        vocabulary = [w for w in self.known if w not in taken] + self.say["spell"]
        if can_end:
            vocabulary += self.say["done"]
        question = self.p.text("table.name_question_or_done" if can_end
                               else "table.name_question", n=n, default=default)
        for _ in range(TRIES):
            text = self._unsure(question, vocabulary)
            if text is None:
                return default
            key = self.language.grammar.key(text)
            if key in self.typed_words["done"]:
                if can_end:
                    return None
                self.speaker.say(self.p.text("table.need_players", n=self.spec.players[0]))
                continue
            if key in self.known:
                name = self.known[key].name
                # the next guess is read now, while the recognizer has the names' vocabulary
                other = self._second_reading(self.last_heard, vocabulary, key)
                if self._confirm(self.p.text("table.name_read_back", name=name)):
                    return name
                if other is not None and self._confirm(
                        self.p.text("table.name_read_back", name=other)):
                    return other
            elif key in self.typed_words["spell"]:
                pass
            elif text != "\0":  # a typed line: the name as written
                name = typed_name(text)
                if name:
                    return name
                continue
            else:
                self.speaker.say(self.p.text("menu.unknown"))
                continue
            if self.letters:
                spelled = self._spelled(default)
                if spelled is not None:
                    return spelled
        self.speaker.say(self.p.text("menu.taking_default", default=default))
        return default

    def _second_reading(self, heard, vocabulary: Sequence[str], wrong: str) -> Optional[str]:
        """The name the same words sound most like once ``wrong`` is left out: read back
        when the player says no to ``wrong``."""
        ask = getattr(heard, "second_opinion", None)
        if ask is None or getattr(heard, "typed", True):
            return None
        names = [w for w in vocabulary if w in self.known and w != wrong]
        key = self.language.grammar.key(ask(names) or "") if names else ""
        return self.known[key].name if key in self.known else None

    def _unsure(self, question: str, vocabulary: Sequence[str]) -> Optional[str]:
        """A name or a letter: even a reading the recognizer doubts is taken, because a
        name is read back for a yes and each letter is said back as it comes (a doubted
        "done", "okay" or "quit" is not: it would end something unasked)."""
        return self._hear(question, vocabulary, take_doubted=self._doubtable)

    def _taken_keys(self) -> List[str]:
        taken = {self._name_key(n) for n in self._names_so_far}
        return [key for key, known in self.known.items() if self._name_key(known.name) in taken]

    def _name_key(self, name: str) -> str:
        """Two names are the same seat's when equal so: "Ayşe" and a typed "ayse" (the
        language's folding, then no accents, since a table's names come from anywhere)."""
        text = unicodedata.normalize("NFKD", self.language.grammar.key(name).replace("ı", "i"))
        return "".join(c for c in text if not unicodedata.combining(c))

    def _spelled(self, default: str) -> Optional[str]:
        """A name spelled one letter an utterance, read back; None when it was not right."""
        vocabulary = list(self.letters) + self.say["done"] + self.say["back"]
        letters: List[str] = []
        comma = self.p.data.get("list_comma", ", ")   # the language's comma: Arabic "، "
        while True:  # each time the letters so far are said back ("A, Y")
            so_far = comma.join(capital(self.language, c) for c in letters)
            text = self._unsure(so_far or self.p.text("table.spell_intro"), vocabulary)
            if text is None or self.language.grammar.key(text) in self.typed_words["done"]:
                if not letters:
                    self.speaker.say(self.p.text("table.spell_nothing"))
                    return None
                name = capital(self.language, "".join(letters))
                said = comma.join(capital(self.language, c) for c in letters)
                if self._confirm(self.p.text("table.spelled_read_back", letters=said,
                                             name=name)):
                    return name
                return None
            key = self.language.grammar.key(text)
            if key in self.typed_words["back"]:
                letters = letters[:-1]
            elif key in self.letters:
                if len(letters) < MAX_NAME:
                    letters.append(self.letters[key])
            elif text != "\0":  # typed: the name itself
                name = typed_name(text)
                if name:
                    return name
            else:
                self.speaker.say(self.p.text("menu.unknown"))

    # --- lives, dealer, house rules ----------------------------------------------------

    def ask_lives(self, setup: TableSetup) -> None:
        kind = lives_question(self.virtual, len(setup.names))
        if kind is None:
            return
        name, default, allowed = kind
        fields = {"choices": self._or([str(n) for n in allowed])} if name == "target" else {}
        question = self.p.text(f"menu.lives.{self.virtual.id}", hint=self._hint(default),
                               **fields)
        value = self._ask(question, self._numbers(allowed), default, str(default), said=str)
        if name == "lives":
            setup.lives = value
        else:
            setup.target = value

    def ask_dealer(self, names: Sequence[str]) -> Optional[int]:
        """The first dealer's seat, by name or seat number; None: the last seat (default)."""
        answers: Dict[str, int] = {}
        for seat, name in enumerate(names):
            for word in self._number_words(seat + 1):
                answers[word] = seat
        for seat, name in enumerate(names):
            answers.setdefault(self.language.grammar.key(name), seat)
            for key, known in self.known.items():
                if self._name_key(known.name) == self._name_key(name):
                    answers.setdefault(key, seat)
        last = len(names) - 1
        key = "table.ask_dealer_typed" if self.typed_only else "table.ask_dealer"
        seat = self._ask(self.p.text(key, default=names[last]), answers, last, names[last],
                         said=lambda seat: names[seat])
        return None if seat == last else seat

    def ask_house_rules(self) -> List[str]:
        """The house rules switched on, one answer each; "okay" (Enter) ends: none at first."""
        rules = list(self.spec.house_rules)
        chosen: List[str] = []
        words = self.setup.get("house_rules", {})
        while rules:
            answers: Dict[str, str] = {}
            for number, rule in enumerate(rules, 1):  # by number, by its words, by its id
                for word in self._number_words(number) + self._entry_words(words.get(rule, {})):
                    answers[word] = rule
                answers[self.language.grammar.key(rule)] = rule
            titles = self._or([self.p.text("table.numbered", n=number,
                                           item=self.p.text(f"house_rules.{rule}"))
                               for number, rule in enumerate(rules, 1)])
            key = "table.another_house_rule" if chosen else "table.ask_house_rules"
            default = self.p.text("table.no_more" if chosen else "table.no_house_rules")
            answers.setdefault(self.language.grammar.key(default), None)  # typed "none"
            rule = self._ask(self.p.text(key, rules=titles, hint=self._hint(default)),
                             answers, None, default)
            if rule is None:
                break
            chosen.append(rule)
            rules.remove(rule)
            self.speaker.say(self.p.text("table.house_rule_on",
                                         rule=self.p.text(f"house_rules.{rule}")))
        return chosen


def typed_name(text: str) -> str:
    """A typed name without control characters or commas, its spaces single, at most
    ``MAX_NAME`` characters."""
    kept = "".join(c for c in text if c.isprintable() and c != ",")
    return " ".join(kept.split())[:MAX_NAME]
