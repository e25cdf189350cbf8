"""The one error tree of the voice layer; the command line turns each into one sentence.

``UserError`` is a problem the user can fix at the command line (a bad option, a damaged
save), reported with exit status 2. ``VoiceError`` and its kinds are faults of the sound and
speech parts (no microphone, no model, no speech engine): the game says them once and goes
on with what still works. The rules' own refusals are ``engine.api.RulesError``.
"""
from __future__ import annotations


class UserError(Exception):
    """A problem the user can fix (a bad option, a damaged save); the message is one sentence."""


class VoiceError(RuntimeError):
    """A sound or speech part cannot work as asked: one clear sentence the caller can speak."""


class AudioError(VoiceError):
    """Audio cannot be read or opened."""


class MicrophoneError(AudioError):
    """No usable microphone, or it stopped working."""


class RecognizerError(VoiceError):
    """A recognizer cannot work (model missing or corrupt, library missing)."""


class ModelError(RecognizerError):
    """A speech model is unknown, missing, incomplete, damaged or failed to download."""


class SpeakerError(VoiceError):
    """Speech cannot be produced as asked."""


def sentence(exc: Exception) -> str:
    """An exception's message as one capitalized sentence."""
    text = str(exc).strip()
    text = text[0].upper() + text[1:] if text else "That did not work"
    return text if text.endswith((".", "!", "?")) else text + "."
