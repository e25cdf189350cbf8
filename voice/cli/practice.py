"""talking-cards practice: the guided practice round, by voice or keyboard."""
from __future__ import annotations

import argparse
from contextlib import ExitStack

from voice.cli.native_log import native_output_to_log
from voice.cli.play import open_listener, voice_profiles
from voice.cli.speech import open_speaker
from voice.errors import UserError, sentence
from voice.games.practice import has_practice, run_practice
from voice.lang import Language


def run(args: argparse.Namespace) -> int:
    try:
        language = Language.load(args.lang, parts=("practice",))
    except ValueError as exc:
        raise UserError(sentence(exc)) from None
    if not has_practice(language):
        raise UserError(f"There is no practice round in {language.name} yet; "
                        f"try it with --lang en.")
    args.voice_profiles = voice_profiles(args, language)
    with ExitStack() as stack:
        stack.enter_context(native_output_to_log())
        speaker = open_speaker(args, language, stack)
        listener, _ = open_listener(args, language, speaker, stack)
        code = run_practice(language, listener, speaker)
        speaker.wait_until_quiet(30.0)
        return code
