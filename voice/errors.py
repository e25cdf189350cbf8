"""The one error type the command line turns into a sentence and an exit status of 2."""
from __future__ import annotations


class UserError(Exception):
    """A problem the user can fix (a bad option, a damaged save); the message is one sentence."""


def sentence(exc: Exception) -> str:
    """An exception's message as one capitalized sentence."""
    text = str(exc).strip()
    text = text[0].upper() + text[1:] if text else "That did not work"
    return text if text.endswith((".", "!", "?")) else text + "."
