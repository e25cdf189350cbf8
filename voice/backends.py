"""Choosing a recognizer: Vosk when a model for the language is installed (or given), else
the embedded PocketSphinx English model, with a one-line notice saying so."""
from __future__ import annotations

from typing import Optional, Tuple

from .recognition import Recognizer, RecognizerError


def make_recognizer(lang: str = "en", backend: str = "auto", model_path: Optional[str] = None,
                    push_to_talk: bool = False) -> Tuple[Recognizer, Optional[str]]:
    """(recognizer, notice or None). RecognizerError (one sentence) when none can work.

    With push-to-talk the player means every utterance, so PocketSphinx accepts on its
    lenient thresholds; an open microphone keeps the strict ones (no off-topic move)."""
    from .model_manager import ModelError, find_model, resolve_model
    base = lang.split("-")[0]
    if backend in ("auto", "vosk"):
        try:
            folder = resolve_model(lang, model_path)
            from .vosk_backend import VoskRecognizer
            return VoskRecognizer(folder), None
        except (ModelError, RecognizerError) as exc:
            if backend == "vosk" or model_path or base != "en":
                raise RecognizerError(str(exc)) from None
            problem = str(exc)
    else:
        problem = ""
    if base != "en":
        raise RecognizerError(f"The embedded recognizer only knows English; "
                              f"download a model with: talking-cards models download {lang}")
    from .sphinx_backend import SphinxRecognizer
    notice = None
    if backend == "auto":
        notice = ("Using the embedded English recognizer (PocketSphinx); for better "
                  "recognition run: talking-cards models download en.")
        if find_model(lang) is not None:  # a model is there but unusable: say why
            notice = f"{problem} {notice}"
    return SphinxRecognizer(strict=not push_to_talk), notice
