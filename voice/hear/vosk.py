"""Vosk speech recognition: a grammar decoding of what may be said, checked by a free one.

Two Kaldi recognizers share one loaded model and hear the same audio:

* the grammar recognizer may only output the vocabulary phrases (and "[unk]" when the model
  has that word), so its reading is always something the game understands;
* the free recognizer uses the model's own language model, so it writes down what was
  really said, command or not.

A grammar forces almost any sound onto some phrase, so the grammar reading alone cannot
tell a command from other speech. The verdict therefore compares the two readings, letter by
letter (folded as the language says), and weighs that agreement with the grammar's word
confidences: strong agreement is accepted, middling agreement is confirmed, and an [unk] or
empty reading, or one the free decoding does not support, is rejected.
"""
from __future__ import annotations

import json
from dataclasses import replace
import logging
import unicodedata
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from voice.hear.models import missing_parts
from voice.errors import ModelError
from voice.hear.recognizer import ACCEPT, CONFIRM, REJECT, Hypothesis, Recognizer
from voice.errors import RecognizerError

log = logging.getLogger(__name__)

UNK = "[unk]"
_models: Dict[str, object] = {}  # loaded vosk.Model by folder: loading takes seconds


def _vosk():
    try:
        import vosk
    except ImportError:
        raise RecognizerError("The vosk library is not installed; install it with: "
                              "pip install vosk.") from None
    vosk.SetLogLevel(-1)  # Kaldi's own log lines would talk over the game
    return vosk


def load_model(model_path) -> object:
    """The vosk.Model in ``model_path``, loaded once per process (never fetched by language)."""
    folder = Path(model_path).expanduser()
    key = str(folder.resolve())
    if key in _models:
        return _models[key]
    if not folder.is_dir():
        raise ModelError("There is no speech model folder at %s." % folder)
    missing = missing_parts(folder)
    if missing:
        raise ModelError("The speech model at %s is incomplete (missing %s)."
                         % (folder, ", ".join(missing)))
    vosk = _vosk()
    try:
        model = vosk.Model(str(folder))
    except Exception:  # vosk raises a bare Exception("Failed to create a model")
        raise ModelError("The speech model at %s could not be loaded; it is damaged, download "
                         "it again." % folder) from None
    _models[key] = model
    return model


# ---------------------------------------------------------------- comparing two readings

class LetterFold:
    """How the verdict compares two readings letter by letter: accents dropped, and the
    language's own folding (``sound_fold`` and ``silent_letters`` of its ``language.json``:
    Korean splits Hangul into jamo and folds the ones small models confuse)."""

    def __init__(self, fold: Optional[Mapping[str, str]] = None, silent: str = "") -> None:
        self._table = str.maketrans(dict(fold or {}))
        self._silent = set(silent)

    def letters(self, text: str) -> str:
        """Letters only, lowercased, decomposed (accents and jamo apart), folded."""
        kept = [char for char in unicodedata.normalize("NFD", text.lower())
                if char not in self._silent and unicodedata.category(char)[0] in "LN"]
        return "".join(kept).translate(self._table)

    def similarity(self, a: str, b: str) -> float:
        """1 for the same sounds, 0 for nothing in common (normalized edit distance)."""
        a, b = self.letters(a), self.letters(b)
        if not a and not b:
            return 1.0
        return 1.0 - edit_distance(a, b) / max(len(a), len(b))


def edit_distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (char_a != char_b)))
        previous = current
    return previous[-1]


def _clean_free_words(words: Sequence[str]) -> List[str]:
    """Drop the model's non-speech tokens ("[unk]", "[noise]", "<sil>")."""
    return [word for word in words if not word.startswith(("[", "<"))]


def split_into_phrases(words: Sequence[str], phrases: Sequence[Tuple[str, ...]]) -> List[Tuple[str, ...]]:
    """Cut a grammar reading into vocabulary phrases (fewest pieces); unknown words stand alone."""
    best: List[Optional[List[Tuple[str, ...]]]] = [[]] + [None] * len(words)
    for end in range(1, len(words) + 1):
        options = [best[end - 1] + [(words[end - 1],)]] if best[end - 1] is not None else []
        for phrase in phrases:
            start = end - len(phrase)
            if start >= 0 and best[start] is not None and tuple(words[start:end]) == phrase:
                options.append(best[start] + [phrase])
        best[end] = min(options, key=len) if options else None
    return best[-1] or []


# ---------------------------------------------------------------- the recognizer

class VoskRecognizer(Recognizer):
    """Grammar-restricted Vosk recognition with a free-decoding rejection check."""

    name = "vosk"

    def __init__(self, model_path, sample_rate: int = 16000, free_decoding: bool = True,
                 accept_score: float = 0.55, confirm_score: float = 0.3,
                 fold: Optional[LetterFold] = None):
        """``fold``: how the language's readings are compared (its ``Language`` says)."""
        self.sample_rate = sample_rate
        self.fold = fold or LetterFold()
        self.model_path = Path(model_path)
        self.accept_score = accept_score
        self.confirm_score = confirm_score
        self._vosk = _vosk()
        self._model = load_model(model_path)
        self.has_unk = self.knows(UNK)
        self._free = None
        if free_decoding:
            self._free = self._vosk.KaldiRecognizer(self._model, sample_rate)
            self._free.SetWords(True)
        self._grammar = None
        self._phrases: Tuple[Tuple[str, ...], ...] = ()
        self._originals: Dict[Tuple[str, ...], str] = {}
        self.dropped: Tuple[str, ...] = ()   # phrases left out: words the model does not know
        self._results: Dict[str, List[dict]] = {"grammar": [], "free": []}
        self._fed_s = 0.0

    def knows(self, word: str) -> bool:
        return self._model.vosk_model_find_word(word) != -1

    def set_vocabulary(self, phrases: Sequence[str]) -> None:
        """Restrict recognition to ``phrases``; ones with words unknown to the model are dropped."""
        kept: List[Tuple[str, ...]] = []
        originals: Dict[Tuple[str, ...], str] = {}
        dropped = []
        for phrase in phrases:
            words = tuple(phrase.lower().split())
            unknown = [word for word in words if not self.knows(word)]
            if not words or unknown:
                dropped.append(phrase)
                log.warning("The speech model does not know %s, so '%s' cannot be recognized.",
                            ", ".join(unknown) or "an empty phrase", phrase)
                continue
            if words not in originals:
                originals[words] = phrase
                kept.append(words)
        self.dropped = tuple(dropped)
        if not kept:
            raise RecognizerError("None of the phrases that can be said now are known to the "
                                  "speech model.")
        if tuple(kept) == self._phrases and self._grammar is not None:
            return  # same vocabulary: keep the recognizer
        grammar = [" ".join(words) for words in kept] + ([UNK] if self.has_unk else [])
        recognizer = self._vosk.KaldiRecognizer(self._model, self.sample_rate,
                                                json.dumps(grammar, ensure_ascii=False))
        recognizer.SetWords(True)         # per-word confidences
        recognizer.SetMaxAlternatives(0)  # keep the one-best with word posteriors
        self._grammar, self._phrases, self._originals = recognizer, tuple(kept), originals
        self._fed_s = 0.0  # its word times count from its creation, Reset or not

    @property
    def vocabulary(self) -> Tuple[str, ...]:
        return tuple(self._originals[words] for words in self._phrases)

    def begin(self) -> None:
        if self._grammar is None:
            raise RecognizerError("The recognizer has no vocabulary yet.")
        self._grammar.Reset()
        if self._free is not None:
            self._free.Reset()
        self._results = {"grammar": [], "free": []}

    def feed(self, pcm: bytes) -> None:
        """Decode audio as it arrives; a segment the decoder closes early is kept."""
        self._fed_s += len(pcm) / 2 / self.sample_rate
        for key, recognizer in self._recognizers():
            if recognizer.AcceptWaveform(bytes(pcm)):
                self._results[key].append(json.loads(recognizer.Result()))

    def end(self) -> Hypothesis:
        return self.peek()

    def peek(self, then: bytes = b"") -> Hypothesis:
        """Close the decoders' segment here, as Kaldi's own endpointing does at a pause: the
        words so far are final, and audio fed after opens a segment of its own (``then`` is
        not needed: Kaldi reads a segment's end as an end)."""
        for key, recognizer in self._recognizers():
            self._results[key].append(json.loads(recognizer.FinalResult()))
        grammar_words = [word for result in self._results["grammar"] for word in result.get("result", [])]
        free_words = [word["word"] for result in self._results["free"]
                      for word in result.get("result", [])]
        hypothesis = self.judge(
            [(word["word"], float(word.get("conf", 1.0))) for word in grammar_words],
            " ".join(_clean_free_words(free_words)) if self._free is not None else None)
        if not grammar_words:
            return hypothesis
        after = self._fed_s + len(then) / 2 / self.sample_rate - grammar_words[-1]["end"]
        return replace(hypothesis, trailing_s=max(0.0, after))

    def _recognizers(self):
        if self._grammar is None:
            raise RecognizerError("The recognizer has no vocabulary yet.")
        yield "grammar", self._grammar
        if self._free is not None:
            yield "free", self._free

    # ------------------------------------------------------------ the verdict

    def judge(self, grammar_words: Sequence[Tuple[str, float]], free_text: Optional[str]) -> Hypothesis:
        """The verdict from the grammar reading (word, confidence) and the free reading."""
        words = [word for word, _ in grammar_words]
        confidences = [conf for _, conf in grammar_words]
        pieces = split_into_phrases(words, self._phrases)
        found = [piece for piece in pieces if piece in self._originals]
        if not found:
            return Hypothesis("", REJECT, 0.0, (), free_text or "")
        spans, position = [], 0
        for piece in pieces:
            spans.append((piece, confidences[position:position + len(piece)]))
            position += len(piece)

        def grammar_confidence(piece: Tuple[str, ...]) -> float:
            return max(sum(conf) / len(conf) for candidate, conf in spans if candidate == piece)

        if free_text is not None:
            chosen = max(found, key=lambda piece: (self.fold.similarity(" ".join(piece), free_text),
                                                   grammar_confidence(piece)))
            agreement = self.fold.similarity(" ".join(chosen), free_text)
        else:
            chosen = max(found, key=grammar_confidence)
            agreement = 1.0
        score = agreement * grammar_confidence(chosen)
        verdict = ACCEPT if score >= self.accept_score else CONFIRM if score >= self.confirm_score else REJECT
        if len(pieces) > 1 and verdict == ACCEPT:
            verdict = CONFIRM  # extra words or phrases around the command: ask first
        alternatives = self._alternatives(chosen, found, free_text)
        return Hypothesis(self._originals[chosen], verdict, round(score, 3), alternatives,
                          free_text or "")

    def _alternatives(self, chosen, found, free_text, limit: int = 3) -> Tuple[str, ...]:
        """Other vocabulary readings: the rest of the grammar reading, then the phrases
        closest to the free reading."""
        ranked = [piece for piece in found if piece != chosen]
        if free_text:
            ranked += sorted((piece for piece in self._phrases if piece != chosen),
                             key=lambda piece: -self.fold.similarity(" ".join(piece), free_text))
        unique = []
        for piece in ranked:
            if piece not in unique:
                unique.append(piece)
        return tuple(self._originals[piece] for piece in unique[:limit])
