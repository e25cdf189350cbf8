"""Choosing a recognizer for a language: Vosk when a model for it is installed (or given),
else the embedded PocketSphinx English acoustic model when the language has pronunciations
for it, with a one-line notice in the language saying so."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, Mapping, Optional, Tuple

from voice.errors import ModelError, RecognizerError
from voice.hear.recognizer import Recognizer
from voice.lang import Language

if TYPE_CHECKING:
    from voice.hear.profile import VoiceProfile


def make_recognizer(language: Language, backend: str = "auto", model_path: Optional[str] = None,
                    push_to_talk: bool = False) -> Tuple[Recognizer, Optional[str]]:
    """(recognizer, notice or None). RecognizerError (one sentence) when none can work.

    With push-to-talk the player means every utterance, so PocketSphinx accepts on its
    lenient thresholds; an open microphone keeps the strict ones (no off-topic move). The
    thresholds are the language's own (``Language.sphinx_verdict``)."""
    from voice.hear.models import find_model, resolve_model
    embedded = language.sphinx_pronunciations is not None
    problem = ""
    if backend in ("auto", "vosk"):
        try:
            folder = resolve_model(language.tag, model_path)
            from voice.hear.vosk import LetterFold, VoskRecognizer
            fold = LetterFold(language.sound_fold, language.silent_letters)
            return VoskRecognizer(folder, fold=fold), None
        except (ModelError, RecognizerError) as exc:
            if backend == "vosk" or model_path or not embedded:
                raise RecognizerError(str(exc)) from None
            problem = str(exc)
    if not embedded:
        raise RecognizerError(language.phrases.text("notices.no_recognizer",
                                                    language=language.name, lang=language.tag))
    from voice.hear.sphinx import SphinxRecognizer
    notice = None
    if backend == "auto":
        notice = language.phrases.text("notices.embedded_recognizer", lang=language.tag)
        if find_model(language.tag) is not None:  # a model is there but unusable: say why
            notice = f"{problem} {notice}"
    return SphinxRecognizer(language.sphinx_pronunciations, strict=not push_to_talk,
                            verdict=language.sphinx_verdict), notice


def read_profiles(paths: Mapping[str, str], language: Language) -> Dict[str, "VoiceProfile"]:
    """Each player's voice profile (name -> file; "" for whoever plays), read and checked
    before the game starts: UserError (one sentence) for the first that cannot be used."""
    from voice.hear.profile import VoiceProfile
    return {name: VoiceProfile.read(path, language.code) for name, path in paths.items()}


def with_profiles(recognizer: Recognizer, profiles: Mapping[str, "VoiceProfile"],
                  language: Language) -> Recognizer:
    """``recognizer`` fused with the players' voice profiles (itself when there are none)."""
    if not profiles:
        return recognizer
    from voice.hear.fused import FusedRecognizer
    return FusedRecognizer(recognizer, profiles, same=phrase_agreement(language))


def phrase_agreement(language: Language) -> Callable[[str, str], bool]:
    """Whether two readings agree: the same command, or the same card (with a value or
    "play the" or without)."""
    grammar = language.grammar

    def same(a: str, b: str) -> bool:
        one, other = grammar.parse(a), grammar.parse(b)
        if one is None or other is None:
            return False
        if one.kind == other.kind == "play":
            return (one.rank, one.suit) == (other.rank, other.suit)
        return one == other
    return same
