"""Setting up a game from the command line's options: the composition root.

One ``Language`` and one ``GameSpec`` are chosen here; the seats, bots, input, speech,
events file and save file are made from them and handed to the session.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import List, Optional, Tuple

from engine.cards import parse_cards
from voice.cli import settings as settings_file
from voice.cli.menu import Choice, Menu, default_opponents, lives_question
from voice.cli.native_log import native_output_to_log
from voice.cli.options import GAME_SETTING_OPTIONS, profile_paths, split_list
from voice.cli.settings import Settings
from voice.cli.speech import open_speaker
from voice.dialog.record import (Recorder, SaveError, Seat, check_save_target, close_events,
                                 open_events, read_save)
from voice.dialog.session import Session
from voice.errors import AudioError, UserError, sentence
from voice.games import DEFAULT_GAME, GAMES, VIRTUAL_GAMES, find_game, find_table_game
from voice.games.spec import GameSpec
from voice.hear.keyboard import KeyboardListener
from voice.lang import Language


# Options that set up a new game; a resumed game keeps its own.
NEW_GAME_OPTIONS = ("players", "bots", "seed", "lives", "target", "deck", "house_rule",
                    "dealer")
MAX_LIVES = 99


def _check_options(args: argparse.Namespace) -> None:
    """Refuse odd values in one sentence (a billion lives; the rules refuse a target of 0)."""
    if args.lives is not None and not 1 <= args.lives <= MAX_LIVES:
        raise UserError(f"--lives must be between 1 and {MAX_LIVES}.")
    if args.pace is not None and not 0 <= args.pace <= 60:
        raise UserError("--pace must be between 0 and 60 seconds.")
    if args.volume is not None and not 0 <= args.volume <= 1:
        raise UserError("--volume must be between 0 and 1.")
    if args.trailing_silence is not None and not 0.1 <= args.trailing_silence <= 5:
        raise UserError("--trailing-silence must be between 0.1 and 5 seconds.")


def _seats(args: argparse.Namespace, spec: GameSpec, settings: Settings) -> List[Seat]:
    """The table from --players and --bots; without either, the remembered names and
    number of computer players (strong ones), or the game's own. At a real table every
    seat is a person, in the order given (none given: asked one by one)."""
    if spec.table_of:
        if args.bots:
            raise UserError("At a real table every seat is a person: --bots is for 'play'.")
        return [Seat(name) for name in split_list(args.players)]
    if args.players is None and args.bots is None:
        return _table(spec, settings.names,
                      ["strong"] * default_opponents(spec, settings.opponents, len(settings.names))
                      if settings.opponents is not None else list(spec.default_bots))
    humans = split_list(args.players) or (["Player"] if not args.bots else [])
    return _table(spec, humans, split_list(args.bots))


def _table(spec: GameSpec, humans: List[str], bots: List[str]) -> List[Seat]:
    for kind in bots:
        if kind not in spec.bots:
            raise UserError(f"Unknown bot {kind!r}; choose from {', '.join(spec.bots)}.")
    seats = [Seat(name) for name in humans]
    for kind in bots:
        seats.append(Seat(f"{kind.capitalize()} {len(seats) + 1}", kind))
    return seats


def _new_state(spec: GameSpec, args: argparse.Namespace, seats: List[Seat], seed: int):
    try:
        deck = parse_cards(args.deck) if args.deck else None
        options = spec.make_options(lives=args.lives, target=args.target,
                                   house_rules=args.house_rule)
        return spec.rules.new_game([s.name for s in seats], options, seed=seed, deck=deck,
                                   **_first_dealer(args, seats))
    except ValueError as exc:
        raise UserError(sentence(exc)) from None


def _first_dealer(args: argparse.Namespace, seats: List[Seat]) -> dict:
    """``new_game``'s dealer from --dealer NAME (a real table only); none: the game's own
    (the last seat). UserError when nobody of that name is at the table."""
    name = getattr(args, "dealer", None)
    if name is None:
        return {}
    for seat, s in enumerate(seats):
        if s.name.lower() == name.strip().lower():
            return {"dealer": seat}
    raise UserError(f"--dealer names {name}, who is not at the table.")


def _resumed(args: argparse.Namespace):
    """(spec, state, the SavedGame) of the save file, or UserError saying why not."""
    try:
        saved = read_save(args.resume)
    except SaveError as exc:
        raise UserError(str(exc)) from None
    if saved.game_id not in GAMES:
        raise UserError(f"The save file {args.resume} is for an unknown game {saved.game_id!r}.")
    spec = GAMES[saved.game_id]
    try:
        state = spec.rules.State.from_json(saved.state_json)
    except ValueError as exc:
        raise UserError(f"The save file {args.resume} cannot be used: {exc}.") from None
    if not spec.accepts(state) or [s.name for s in saved.seats] != list(state.players) \
            or any(s.bot is not None and s.bot not in spec.bots for s in saved.seats) \
            or saved.bot_seed is None:
        raise UserError(f"The save file {args.resume} is damaged (its seats do not match).")
    return spec, state, saved


def _load_settings() -> Tuple[Settings, bool]:
    """(settings, whether they may be written); every problem said once, on stderr."""
    try:
        loaded, notice = settings_file.load()
    except UserError as exc:  # not a regular file: left alone, the defaults used
        print(str(exc), file=sys.stderr)
        return Settings(), False
    if notice:
        print(notice, file=sys.stderr)
    return loaded, True


def _apply_settings(args: argparse.Namespace, settings: Settings) -> None:
    """Options given on the command line win; the settings fill in the rest."""
    if args.rate is None:
        args.rate = settings.rate
    if args.volume is None:
        args.volume = settings.volume
    if args.voice is None:
        args.voice = settings.voice
    if args.input is None:
        args.input = settings.input


def wants_menu(args: argparse.Namespace) -> bool:
    """The start menu runs when no option setting up the game was given."""
    return all(getattr(args, name) in (None, []) for name in GAME_SETTING_OPTIONS)


def _offered(language: Language) -> List[GameSpec]:
    """The games the start menu offers: the language's own, with virtual cards."""
    return [spec for spec in VIRTUAL_GAMES.values() if spec.id in language.games]


def _offered_tables(language: Language) -> List[GameSpec]:
    """The table modes the start menu offers: those the language has words for."""
    return [spec for spec in GAMES.values() if spec.table_of and spec.id in language.games]


def _remembered_game(settings: Settings, language: Language) -> GameSpec:
    offered = _offered(language)
    return next((spec for spec in offered if spec.id == settings.game),
                GAMES[DEFAULT_GAME] if DEFAULT_GAME in language.games else offered[0])


def opening_line(language: Language, spec: GameSpec, state) -> str:
    """"Doksan Dokuz. Everyone starts with 10 lives. Say help at any time." for a new game."""
    p = language.phrases
    game = spec.table_of or spec.id  # a real table opens as its game does
    fields = {"game": p.text(f"games.{game}")}
    unit = p.data.get("lives_unit", {}).get(game)
    lives = getattr(state, "lives", None)
    if unit and lives:
        fields["lives"] = p.count(max(lives), unit)
    target = getattr(getattr(state, "options", None), "target", None)
    if target is not None:
        fields["target"] = target
    return p.text(f"opening.{game}", **fields)


def load_language(tag: str, spec: Optional[GameSpec] = None) -> Language:
    """The language with the words of ``spec`` only (none: the start menu's, with spoken
    enrollment), as one sentence when there is no such language."""
    try:
        return Language.load(tag, parts=spec.words if spec is not None else ("enroll",))
    except ValueError as exc:
        raise UserError(sentence(exc)) from None


def start_play(args: argparse.Namespace) -> int:
    language = load_language(args.lang)

    _check_options(args)
    args.voice_profiles = voice_profiles(args, language)
    settings, writable = _load_settings()
    _apply_settings(args, settings)
    menu = wants_menu(args)
    opening: list = []
    moves, events_length = 0, None
    spec = state = seats = None
    bot_seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    if args.resume:
        spec, state, saved = _resumed(args)
        seats, bot_seed, moves = saved.seats, saved.bot_seed, saved.moves
        events_length = saved.events_length
        save_path = args.save or args.resume
        ignored = [f"--{name.replace('_', '-')}" for name in NEW_GAME_OPTIONS
                   if getattr(args, name, None) not in (None, [])]
        if ignored:
            print(f"{', '.join(ignored)} ignored: a resumed game keeps its own settings.",
                  file=sys.stderr)
    else:
        save_path = args.save
        if getattr(args, "table", False):
            try:
                spec = find_table_game(args.game)
            except ValueError as exc:
                raise UserError(sentence(exc)) from None
            seats = _seats(args, spec, settings)
            if seats:  # else the names are asked first
                state = _new_state(spec, args, seats, bot_seed)
        elif not menu:
            spec = find_game(args.game) if args.game else _remembered_game(settings, language)
            seats = _seats(args, spec, settings)
            state = _new_state(spec, args, seats, bot_seed)
    if spec is not None and spec.words:
        language = load_language(args.lang, spec)
    if state is not None:
        _check_table(spec, seats, language)
        _check_profile_names(args.voice_profiles, seats)

    try:  # the files are checked before anything is said or written
        if save_path:  # a file other than the one resumed is only replaced with --force
            other = not args.resume or os.path.realpath(save_path) != os.path.realpath(args.resume)
            check_save_target(save_path, new_game=other, force=args.force)
        events_file = open_events(args.events, bool(args.resume), events_length) \
            if args.events else None
    except SaveError as exc:
        raise UserError(str(exc)) from None

    with ExitStack() as stack:
        if events_file is not None:
            stack.callback(close_events, events_file)
        stack.enter_context(native_output_to_log())  # before any sound library starts
        speaker = open_speaker(args, language, stack)
        listener, voice_failure = open_listener(args, language, speaker, stack)
        if menu:
            choice = Menu(language, listener, speaker, _offered(language), settings,
                          _offered_tables(language),
                          _menu_enrollment(args, language, listener, speaker)).run()
            if choice is None:  # quit in the menu
                speaker.wait_until_quiet(10.0)
                return 0
            spec = GAMES[choice.game]
            if spec.words:
                language = load_language(args.lang, spec)
            args.lives, args.target = choice.lives, choice.target
            if not spec.table_of:  # a real table: its names are asked next
                seats = _table(spec, choice.names, ["strong"] * choice.opponents)
                state = _new_state(spec, args, seats, bot_seed)
                _check_table(spec, seats, language)
                if writable:
                    _remember(settings, choice)
        if state is None:  # a real table without --players: its set-up is asked
            _check_words(spec, language)   # before anyone answers a question
            seats = _ask_table(args, listener, speaker, language, spec)
            if seats is None:  # quit before the game began
                speaker.wait_until_quiet(10.0)
                return 0
            state = _new_state(spec, args, seats, bot_seed)
            _check_table(spec, seats, language)
        if not args.resume:
            opening = spec.rules.opening_events(state)
            speaker.say(opening_line(language, spec, state))
        talk = spec.talk(language, strict_memory=strict_memory(args, spec),
                         verbose=args.verbose or settings.verbosity == "verbose")
        bots = {i: spec.bots[s.bot] for i, s in enumerate(seats) if s.bot}
        pace = args.pace if args.pace is not None else (
            0.0 if args.mute and not listener.live else 0.8)
        rate, volume = speaker.rate_wpm, speaker.volume
        while True:
            record = Recorder(spec.id, seats, bot_seed, events_file, save_path, moves)
            session = Session(talk, spec.rules, state, bots, listener, speaker, record,
                              pace=pace, on_voice_failure=voice_failure)
            _listen_for_whose_turn(listener, session, args.voice_profiles)
            code = session.run(opening)
            if writable and talk.verbose != (settings.verbosity == "verbose"):
                _remember_verbosity(talk.verbose)  # "shorter", "more detail": kept
            if not session.restart:
                break
            # "new game" after everyone at the table was knocked out: the same table, a new deal
            bot_seed, moves = random.randrange(1 << 30), 0
            state = spec.rules.new_game([s.name for s in seats], state.options, seed=bot_seed,
                                        **_first_dealer(args, seats))
            opening = spec.rules.opening_events(state)
            speaker.say(opening_line(language, spec, state))
            talk = spec.talk(language, strict_memory=strict_memory(args, spec),
                             verbose=talk.verbose)
        speaker.wait_until_quiet(30.0)
        if writable and (speaker.rate_wpm, speaker.volume) != (rate, volume):
            _remember_voice(speaker)  # "slower", "louder" in the game: kept for next time
        return code


def strict_memory(args: argparse.Namespace, spec: GameSpec) -> bool:
    """No reminders of points: asked with --strict-memory in play, and the rule at a real
    table unless --assist asks for them."""
    if spec.table_of:
        return not getattr(args, "assist", False)
    return args.strict_memory


def _check_words(spec: GameSpec, language: Language) -> None:
    if spec.id not in language.games:
        raise UserError(f"There are no {language.name} words for {spec.title} yet; "
                        f"play it with --lang en.")


def _check_table(spec: GameSpec, seats: List[Seat], language: Language) -> None:
    _check_words(spec, language)
    if not any(s.bot is None for s in seats):
        raise UserError("Nobody to play: give at least one player with --players "
                        "(bot-only games are for 'talking-cards simulate').")


def _remember(settings: Settings, choice: Choice) -> None:
    """The menu's answers are the next game's defaults."""
    spec = GAMES[choice.game]
    settings.game, settings.names = choice.game, list(choice.names)
    settings.opponents = None if choice.opponents == len(spec.default_bots) else \
        choice.opponents
    kind = lives_question(spec, len(choice.names) + choice.opponents)
    builtin = kind[1] if kind else None  # the game's own default is not pinned down
    if choice.lives is not None:
        settings.lives = {k: v for k, v in settings.lives.items() if k != choice.game}
        if choice.lives != builtin:
            settings.lives[choice.game] = choice.lives
    if choice.target is not None:
        settings.target = choice.target if choice.target != builtin else None
    try:
        settings_file.save(settings)
    except UserError as exc:
        print(str(exc), file=sys.stderr)


def _remember_voice(speaker) -> None:
    """The rate and volume the player chose in the game, over the file as it is now."""
    try:
        current, _ = settings_file.load()
        current.rate, current.volume = speaker.rate_wpm, round(speaker.volume, 2)
        settings_file.save(current)
    except UserError as exc:
        print(str(exc), file=sys.stderr)


def _remember_verbosity(verbose: bool) -> None:
    try:
        current, _ = settings_file.load()
        current.verbosity = "verbose" if verbose else "concise"
        settings_file.save(current)
    except UserError as exc:
        print(str(exc), file=sys.stderr)


def _ask_table(args: argparse.Namespace, listener, speaker, language: Language,
               spec: GameSpec) -> Optional[List[Seat]]:
    """A real table's set-up, by voice or key: the names in seating order, then what the
    command line did not give (lives or target, the first dealer, the house rules); the
    answers go into ``args`` as if given there. None when someone said quit."""
    from voice.cli.table_setup import TableSetupDialog
    dialog = TableSetupDialog(language, listener, speaker, spec, GAMES[spec.table_of])
    setup = dialog.run(ask_lives=args.lives is None and args.target is None,
                       ask_dealer=getattr(args, "dealer", None) is None,
                       ask_house_rules=not args.house_rule)
    if setup is None:
        return None
    if setup.lives is not None:
        args.lives = setup.lives
    if setup.target is not None:
        args.target = setup.target
    if setup.dealer is not None:
        args.dealer = setup.names[setup.dealer]
    if setup.house_rules:
        args.house_rule = list(setup.house_rules)
    return [Seat(name) for name in setup.names]


def open_listener(args: argparse.Namespace, language: Language, speaker, stack: ExitStack):
    """The input the player asked for; without a microphone, the keyboard with a notice."""
    def keyboard_notice(exc: Exception) -> str:
        return language.phrases.text("notices.keyboard", problem=sentence(exc))

    if args.wav:
        from voice.hear.listeners import WavFilesListener
        from voice.hear.segmenter import Segmenter
        recognizer, notice = _recognizer(args, language)
        if notice:
            speaker.say(notice)
        try:
            return WavFilesListener(args.wav, Segmenter, recognizer), None
        except AudioError as exc:
            raise UserError(sentence(exc)) from None
    wants_voice = args.input == "voice" or (args.input == "auto" and sys.stdin.isatty())
    if not wants_voice:
        return KeyboardListener(), None
    try:
        from voice.hear.listeners import open_voice_input

        def recognizer():
            made, notice = _recognizer(args, language)
            if notice:
                speaker.say(notice)
            return made
        prompts = (language.phrases.text("prompts.push_to_talk"),
                   language.phrases.text("prompts.listening"))
        listener = open_voice_input(recognizer, speaker, push_to_talk=args.push_to_talk,
                                    trailing_silence_s=args.trailing_silence, prompts=prompts,
                                    barge_in=getattr(args, "barge_in", False))
        stack.callback(listener.close)
        return listener, keyboard_notice
    except Exception as exc:  # no microphone, no model: say it once, play by keyboard
        speaker.say(keyboard_notice(exc))
        return KeyboardListener(), None


def _recognizer(args: argparse.Namespace, language: Language):
    from voice.hear.choose import make_recognizer, with_profiles
    try:
        recognizer, notice = make_recognizer(language, args.backend, args.model,
                                             push_to_talk=getattr(args, "push_to_talk", False))
    except Exception as exc:
        raise UserError(sentence(exc)) from None
    return with_profiles(recognizer, getattr(args, "voice_profiles", {}), language), notice


def voice_profiles(args: argparse.Namespace, language: Language):
    """The players' voice profiles (--profile), read before anything is said or written;
    without one, the profile the start menu made, if any (a damaged one is said once and
    left aside: nobody named it)."""
    from voice.hear.choose import read_profiles
    if args.profile:
        return read_profiles(profile_paths(args.profile), language)
    from voice.cli.enroll import default_profile_path
    remembered = default_profile_path(language)
    if getattr(args, "table", False) or not remembered.is_file():
        return {}
    try:
        return read_profiles({"": str(remembered)}, language)
    except UserError as exc:
        print(str(exc), file=sys.stderr)
        return {}


def _check_profile_names(profiles, seats: List[Seat]) -> None:
    strangers = [name for name in profiles if name and name not in [s.name for s in seats]]
    if strangers:
        raise UserError(f"--profile names {strangers[0]}, who is not at the table.")


def _menu_enrollment(args: argparse.Namespace, language: Language, listener, speaker):
    """The start menu's "my voice": spoken enrollment into the --profile file (or the
    config folder's), heard from this game on; None when the menu is typed."""
    if listener.typed_only:
        return None
    from voice.cli.enroll import default_profile_path, enroll_by_voice
    from voice.hear.choose import with_profiles
    named = profile_paths(args.profile)
    path = named.get("", str(default_profile_path(language)))

    def enroll() -> None:
        if "" not in named:  # the program's own folder: made if need be, as for settings
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        profile, _ = enroll_by_voice(listener, language, speaker, path)
        if profile is not None:
            args.voice_profiles = {**args.voice_profiles, "": profile}
            plain = getattr(listener.recognizer, "grammar", listener.recognizer)
            listener.recognizer = with_profiles(plain, args.voice_profiles, language)
    return enroll


def _listen_for_whose_turn(listener, session: Session, profiles) -> None:
    """A voice profile is one person's: the recognizer uses the player's whose turn it is
    (at a real table, each turn another voice)."""
    _check_profile_names(profiles, session.seats)
    named = [name for name in profiles if name]
    recognizer = getattr(listener, "recognizer", None)
    people = sum(1 for seat in session.seats if seat.bot is None)
    if "" in getattr(recognizer, "profiles", {}) and people > 1:
        # a profile named for nobody is one person's voice: with several people it would
        # vouch for the others' words as if they were theirs
        del recognizer.profiles[""]
        print("The voice profile is not used: several people play here; give each one's "
              "with --profile NAME=FILE.", file=sys.stderr, flush=True)
    if named and hasattr(recognizer, "whose_turn"):
        recognizer.whose_turn = lambda: session.seats[session.state_turn()].name
