"""The speaker of a command that talks (play, table, practice, enroll), from its options."""
from __future__ import annotations

import argparse
from contextlib import ExitStack

from voice.lang import Language


def open_speaker(args: argparse.Namespace, language: Language, stack: ExitStack):
    from voice.speak.speaker import Speaker, print_line
    kwargs = {}
    if args.rate:
        kwargs["rate_wpm"] = args.rate
    if args.volume is not None:
        kwargs["volume"] = args.volume
    voice = args.voice or language.tts_voice  # speak the language (a wrong one is said once)
    speaker = Speaker(muted=args.mute, on_text=print_line, voice=voice, **kwargs)
    stack.callback(speaker.close)
    return speaker
