"""Setting up a game from the command line's options: seats, bots, input, speech, saves."""
from __future__ import annotations

import argparse
import random
import sys
from contextlib import ExitStack
from typing import List

from .cli import GAMES, _split
from .errors import UserError, sentence
from .phrasebook import Phrasebook
from .saves import SaveError, Seat, read_save
from .understanding import Grammar



def _game_parts(game: str, grammar: Grammar, phrases: Phrasebook, strict_memory: bool = False):
    """(engine module, talk, bot factory) for a game name."""
    if game == "sixty-six":
        from engine import sixty_six, sixty_six_bots
        from .sixty_six_talk import SixtySixTalk
        talk = SixtySixTalk(grammar, phrases, strict_memory=strict_memory)
        return sixty_six, talk, sixty_six_bots.make_bot
    from engine import ninety_nine, ninety_nine_bots
    from .ninety_nine_talk import NinetyNineTalk
    return ninety_nine, NinetyNineTalk(grammar, phrases), ninety_nine_bots.make_bot


def _bot_kinds(game: str):
    if game == "sixty-six":
        from engine.sixty_six_bots import BOTS
        return tuple(BOTS)
    from engine.ninety_nine_bots import KINDS
    return KINDS


def _seats(args: argparse.Namespace) -> List[Seat]:
    humans = _split(args.players) or (["Player"] if not args.bots else [])
    bots = _split(args.bots)
    if args.players is None and args.bots is None:
        bots = ["strong"] if args.game == "sixty-six" else ["strong", "strong"]
    kinds = _bot_kinds(args.game)
    for kind in bots:
        if kind not in kinds:
            raise UserError(f"Unknown bot {kind!r}; choose from {', '.join(kinds)}.")
    seats = [Seat(name) for name in humans]
    for kind in bots:
        seats.append(Seat(f"{kind.capitalize()} {len(seats) + 1}", kind))
    return seats


def _new_state(engine, args: argparse.Namespace, seats: List[Seat], seed: int):
    from engine.cards import parse_cards
    try:
        deck = parse_cards(args.deck) if args.deck else None
        names = [s.name for s in seats]
        if args.game == "sixty-six":
            options = engine.Options(**({"target": args.target} if args.target else {}))
        else:
            options = engine.Options(variant=args.game, lives=args.lives)
        return engine.new_game(names, options, seed=seed, deck=deck)
    except ValueError as exc:
        raise UserError(sentence(exc)) from None


def start_play(args: argparse.Namespace) -> int:
    lang = args.lang
    try:
        grammar, phrases = Grammar.load(lang), Phrasebook.load(lang)
    except ValueError as exc:
        raise UserError(sentence(exc)) from None

    opening: list = []
    if args.resume:
        try:
            game, state_json, seats, bot_seed = read_save(args.resume)
        except SaveError as exc:
            raise UserError(str(exc)) from None
        if game not in GAMES:
            raise UserError(f"The save file {args.resume} is for an unknown game {game!r}.")
        args.game = game
        engine, talk, make_bot = _game_parts(game, grammar, phrases, args.strict_memory)
        try:
            state = engine.State.from_json(state_json)
        except ValueError as exc:
            raise UserError(f"The save file {args.resume} cannot be used: {exc}.") from None
        if [s.name for s in seats] != list(state.players):
            raise UserError(f"The save file {args.resume} is damaged (seats do not match).")
        save_path = args.save or args.resume
    else:
        engine, talk, make_bot = _game_parts(args.game, grammar, phrases, args.strict_memory)
        seats = _seats(args)
        bot_seed = args.seed if args.seed is not None else random.randrange(1 << 30)
        state = _new_state(engine, args, seats, bot_seed)
        opening = engine.opening_events(state)
        save_path = args.save

    bots = {i: make_bot(s.bot, bot_seed * 101 + i) for i, s in enumerate(seats) if s.bot}
    if not any(s.bot is None for s in seats):
        raise UserError("Nobody to play: give at least one player with --players "
                        "(bot-only games are for 'talking-cards simulate').")

    with ExitStack() as stack:
        speaker = _speaker(args, stack)
        listener, voice_failure = _listener(args, grammar, speaker, stack)
        events_file = stack.enter_context(open(args.events, "w", encoding="utf-8")) \
            if args.events else None
        pace = args.pace if args.pace is not None else (
            0.0 if args.mute and not listener.live else 0.8)
        from .session import Session
        session = Session(talk, grammar, state, seats, bots, listener, speaker, args.game,
                          bot_seed=bot_seed, events_file=events_file, save_path=save_path,
                          pace=pace, on_voice_failure=voice_failure)
        code = session.run(opening)
        speaker.wait_until_quiet(30.0)
        return code


def _speaker(args: argparse.Namespace, stack: ExitStack):
    from .speaker import Speaker, SpeakerError, print_line
    kwargs = {}
    if args.rate:
        kwargs["rate_wpm"] = args.rate
    if args.volume is not None:
        kwargs["volume"] = args.volume
    voice = args.voice or (None if args.lang == "en" else args.lang)  # speak the language
    try:
        speaker = Speaker(muted=args.mute, on_text=print_line, voice=voice, **kwargs)
    except SpeakerError as exc:  # no such voice: say so, speak with the default one
        print(sentence(exc), file=sys.stderr)
        speaker = Speaker(muted=args.mute, on_text=print_line, **kwargs)
    stack.callback(speaker.close)
    return speaker


def _listener(args: argparse.Namespace, grammar: Grammar, speaker, stack: ExitStack):
    """The input the player asked for; without a microphone, the keyboard with a notice."""
    from .listener import KeyboardListener
    if args.wav:
        from .listener import WavFilesListener
        from .segmenter import Segmenter
        recognizer, notice = _recognizer(args)
        if notice:
            speaker.say(notice)
        return WavFilesListener(args.wav, Segmenter, recognizer), None
    wants_voice = args.input == "voice" or (args.input == "auto" and sys.stdin.isatty())
    if not wants_voice:
        return KeyboardListener(), None
    try:
        from .voice_input import open_voice_input

        def recognizer():
            made, notice = _recognizer(args)
            if notice:
                speaker.say(notice)
            return made
        listener = open_voice_input(recognizer, speaker, push_to_talk=args.push_to_talk,
                                    trailing_silence_s=args.trailing_silence)
        stack.callback(listener.close)
        return listener, _keyboard_notice
    except Exception as exc:  # no microphone, no model: say it once, play by keyboard
        speaker.say(_keyboard_notice(exc))
        return KeyboardListener(), None


def _keyboard_notice(exc: Exception) -> str:
    message = sentence(exc)
    return message if "keyboard" in message else f"{message} Play continues from the keyboard."


def _recognizer(args: argparse.Namespace):
    from .backends import make_recognizer
    try:
        return make_recognizer(args.lang, args.backend, args.model,
                               push_to_talk=getattr(args, "push_to_talk", False))
    except Exception as exc:
        raise UserError(sentence(exc)) from None
