"""PocketSphinx backend: the embedded English default (the wheel ships the en-us model).

Each utterance is decoded twice, reusing one decoder with two searches:
1. a JSGF grammar made of exactly the phrases that can be said now: the reading;
2. the phone loop (``en-us-phone.lm.bin``): what was said with no vocabulary at all.

A grammar always finds *some* phrase and PocketSphinx reports confidence 1.0 for it, so the
verdict comes from features that compare the two decodings (see ``_features``):
- unfinished paths ("play the", "nine of") are never returned: the best whole phrase of the
  n-best list is taken instead and can at most be CONFIRMed; with none, REJECT;
- ``gpf``: the grammar path's log score per frame (how well the phrase fits the audio; the
  decoder already scores each frame against its best state, so it is itself a ratio);
- ``silsp`` ("silence swallowing"): the share of frames the phone loop calls speech that the
  grammar labels silence or filler: off-topic words the grammar cannot place vanish there;
- ``phone_err``: edit distance between the phones the loop heard under the phrase and the
  phrase's dictionary pronunciation, per phone;
- ``pace``: the frames the grammar gives the phrase's words per phone of its pronunciation,
  over ten (an off-topic sentence forced onto a short phrase stretches it; a short word
  forced onto a long phrase squeezes it).
"Its pronunciation" is the word's first in the dictionary: for a word cmudict has, the English
one (Turkish "on" is AA N there, while espeak-ng's Turkish "on" is heard OW N), unless the
language's verdict says ``"phone_reference": "language"``: then a word its own
``pronunciations.dict`` defines is compared with the language's first entry for it, even
when that entry is written as an alternate ("on(3) OW N").
A steady sound (a hum) is rejected by its flat level.  The features are combined into one
score whose weights and thresholds are the language's data (``SphinxVerdict``, from the
``sphinx_verdict`` entry of its ``language.json``): the same English acoustic model fits
Turkish words less well than English ones, so each language has its own numbers.

They are fitted on synthesized speech only (``python3 bench/recognition.py [--lang L]
--calibrate``: that language's calibration espeak-ng voices, clean, at 20 dB SNR and through
an 8 kHz telephone band, random in-game commands and every bare rank, against the bench's
calibration off-topic list, "yes"/"no" said when no question waits, and noises); the
benchmark reports held-out voices, held-out phrases and the FSDD recordings, never used for
calibration.  Utterances are conditioned first: a noise floor 25 dB under the speech evens
out the room and the channel (``condition_snr_db``).
"""
from __future__ import annotations

import hashlib
import math
import os
import re
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from voice.dsp import add_noise
from voice.hear.recognizer import ACCEPT, CONFIRM, REJECT, Hypothesis, Recognizer
from voice.errors import RecognizerError
from voice.lang import fallback_sphinx_verdict

_FILLERS = ("<sil>", "<s>", "</s>", "[NOISE]", "+NSN+", "+SPN+", "+UM+", "+UH+", "++NOISE++")

MIN_MODULATION_DB = 2.5   # steadier than this is a hum or a fan, not speech
_MAX_SEARCHES = 8         # grammars kept ready: a game cycles through a few vocabularies


@dataclass(frozen=True)
class SphinxVerdict:
    """How one language's features become a verdict: ``score`` is the weighted sum of the
    features; at or above ``strict_accept`` (open microphone: above every calibration
    off-topic move, with a margin) or ``lenient_accept`` (push-to-talk: the player means to
    speak) a reading is ACCEPTed, at or above ``confirm`` it is CONFIRMed, below it REJECTed."""

    weights: Mapping[str, float]
    strict_accept: float
    lenient_accept: float
    confirm: float
    phone_reference: str = "first"   # or "language": the language's own entry, where it has one

    FEATURES = ("gpf", "silsp", "phone_err", "pace")
    REQUIRED = ("gpf", "silsp", "phone_err")   # "pace" came later: without a weight it counts 0
    REFERENCES = ("first", "language")

    @classmethod
    def from_data(cls, data: Mapping) -> "SphinxVerdict":
        """From a ``sphinx_verdict`` entry; RecognizerError (one sentence) when malformed."""
        try:
            weights = {k: float(data["weights"][k]) for k in cls.FEATURES
                       if k in cls.REQUIRED or k in data["weights"]}
            verdict = cls(weights, float(data["strict_accept"]), float(data["lenient_accept"]),
                          float(data["confirm"]), str(data.get("phone_reference", "first")))
        except (KeyError, TypeError, ValueError) as exc:
            raise RecognizerError("The recognizer's verdict settings are incomplete (%s)." % exc) from None
        if verdict.phone_reference not in cls.REFERENCES:
            raise RecognizerError("The recognizer's verdict names an unknown phone reference (%r)."
                                  % verdict.phone_reference)
        if not verdict.strict_accept >= verdict.lenient_accept >= verdict.confirm:
            raise RecognizerError("The recognizer's verdict thresholds are out of order.")
        return verdict

    def score(self, feats: Mapping[str, float]) -> float:
        return sum(w * feats[k] for k, w in self.weights.items())

    def confidence(self, score: float) -> float:
        """A logistic squash around the confirm threshold: 0.5 there, 0.9 at strict accept."""
        slope = math.log(9.0) / max(1e-6, self.strict_accept - self.confirm)
        return 1.0 / (1.0 + math.exp(-(score - self.confirm) * slope))

    def judge(self, feats: Mapping[str, float], strict: bool = True) -> str:
        """The verdict for an utterance's features (``last_features``) at either setting."""
        if "score" not in feats or feats.get("modulation", 0.0) < MIN_MODULATION_DB:
            return REJECT
        if feats["score"] >= (self.strict_accept if strict else self.lenient_accept) \
                and not feats.get("fallback"):
            return ACCEPT
        if feats["score"] >= self.confirm:
            return CONFIRM
        return REJECT


class SphinxRecognizer(Recognizer):
    """PocketSphinx with a per-turn grammar and a phone-loop rejection signal."""

    name = "pocketsphinx"
    sample_rate = 16000
    # White noise this far under the speech is mixed into every utterance before decoding:
    # it evens out quiet rooms, digital silence and the empty top band of 8 kHz headsets,
    # which the model otherwise mistakes for speech detail (FSDD 86.5% -> 87.7% in-game,
    # more readings accepted at once).  None turns it off.
    condition_snr_db: Optional[float] = 25.0

    def __init__(self, pronunciations: Optional[os.PathLike] = None, model_dir: Optional[str] = None,
                 strict: bool = True, options: Optional[Dict[str, object]] = None,
                 verdict: Optional[Mapping] = None):
        """``strict`` (open microphone) accepts only readings that score above every off-topic
        utterance of the calibration set; ``strict=False`` suits push-to-talk, where the
        player means to speak and fewer confirmations are asked.
        ``verdict``: the language's ``sphinx_verdict`` data (its ``Language`` says); without
        it, the fallback language's.
        ``pronunciations``: the language's extra dictionary entries (its ``Language`` says;
        English adds accents cmudict lacks: soft onsets, non-rhotic endings).
        ``options`` are extra PocketSphinx settings (for experiments), e.g. {"cmn": "live"}."""
        self.strict = strict
        self.verdict = SphinxVerdict.from_data(verdict if verdict is not None
                                               else fallback_sphinx_verdict())
        try:
            import pocketsphinx
        except ImportError:
            raise RecognizerError("PocketSphinx is not installed; install the pocketsphinx package.") from None
        base = model_dir or os.path.join(pocketsphinx.get_model_path(), "en-us")
        hmm = os.path.join(base, "en-us")
        dictionary = os.path.join(base, "cmudict-en-us.dict")
        phone_lm = os.path.join(base, "en-us-phone.lm.bin")
        for path in (hmm, dictionary, phone_lm):
            if not os.path.exists(path):
                raise RecognizerError("The PocketSphinx English model is missing: %s not found." % path)
        try:
            settings: Dict[str, object] = dict(hmm=hmm, dict=dictionary, loglevel="FATAL")
            settings.update(options or {})
            config = pocketsphinx.Config(**settings)
            self._decoder = pocketsphinx.Decoder(config)
            self._decoder.add_allphone_file("phones", phone_lm)
            own = _read_pronunciations(pronunciations) if pronunciations else []
            for word, phones in own:
                self._decoder.add_word(word, phones, False)
        except Exception as exc:  # the library raises plain RuntimeError/ValueError on bad models
            raise RecognizerError("The PocketSphinx model could not be loaded (%s)." % exc) from None
        self._logmath = self._decoder.get_logmath()
        self._searches: "OrderedDict[str, None]" = OrderedDict()
        self._search = ""
        self.phrases: Tuple[str, ...] = ()
        self._normalized: frozenset = frozenset()
        self.skipped: Tuple[str, ...] = ()
        self._pron: Dict[str, List[str]] = {}
        # the language's own first pronunciation of each word its dictionary defines
        self._own: Dict[str, List[str]] = {}
        if self.verdict.phone_reference == "language":
            for word, phones in own:
                self._own.setdefault(word.split("(")[0], phones.split())
        self._original: Dict[str, str] = {}   # normalized phrase -> the caller's spelling
        self._buffer = bytearray()
        self.last_features: Dict[str, float] = {}

    # ------------------------------------------------------------------ vocabulary

    def set_vocabulary(self, phrases: Sequence[str]) -> None:
        """Phrases that can be said now.  Phrases with words the dictionary lacks are skipped
        with a warning (listed in ``self.skipped``); none usable raises RecognizerError."""
        usable, skipped, original = [], [], {}
        for given in phrases:
            phrase = _normalize(given)
            if not phrase or phrase in original:
                continue
            original[phrase] = given
            words = phrase.split()
            if all(self._pronunciation(w) for w in words):
                usable.append(phrase)
            else:
                skipped.append(phrase)
        if not usable:
            raise RecognizerError("None of the phrases can be recognized: their words are not in "
                                  "the English dictionary.")
        if skipped:
            missing = sorted({w for p in skipped for w in p.split() if not self._pronunciation(w)})
            warnings.warn("PocketSphinx cannot hear %s: not in its dictionary (skipped %s)."
                          % (", ".join(missing), ", ".join(repr(p) for p in skipped)))
        self.phrases = tuple(original[p] for p in usable)     # as the caller spelled them
        self.skipped = tuple(original[p] for p in skipped)
        self._normalized = frozenset(usable)
        self._original = original
        key = "g" + hashlib.sha1("\n".join(sorted(usable)).encode("utf-8")).hexdigest()[:16]
        if key in self._searches:
            self._searches.move_to_end(key)
        else:
            body = " | ".join("(%s)" % p for p in usable)
            self._decoder.add_jsgf_string(key, "#JSGF V1.0;\ngrammar cmd;\npublic <cmd> = %s;\n" % body)
            self._searches[key] = None
            while len(self._searches) > _MAX_SEARCHES:
                old, _ = self._searches.popitem(last=False)
                self._decoder.remove_search(old)
        self._search = key

    def _pronunciation(self, word: str) -> List[str]:
        if word not in self._pron:
            found = self._decoder.lookup_word(word)
            self._pron[word] = found.split() if found else []
        return self._pron[word]

    def _reference(self, word: str) -> List[str]:
        """The pronunciation ``phone_err`` and ``pace`` compare with (see the docstring)."""
        return self._own.get(word) or self._pronunciation(word)

    # ------------------------------------------------------------------ decoding

    def begin(self) -> None:
        self._buffer = bytearray()

    def feed(self, pcm: bytes) -> None:
        self._buffer.extend(pcm if isinstance(pcm, (bytes, bytearray)) else np.asarray(pcm, "<i2").tobytes())

    def end(self) -> Hypothesis:
        pcm = bytes(self._buffer)
        self._buffer = bytearray()
        return self._read(pcm)

    def peek(self, then: bytes = b"") -> Hypothesis:
        return self._read(bytes(self._buffer) + bytes(then))

    def cancel(self) -> None:
        self._buffer = bytearray()

    def _read(self, pcm: bytes) -> Hypothesis:
        """Both decodings of one utterance, and the verdict of their features."""
        if not self._search:
            raise RecognizerError("No vocabulary was set before recognizing speech.")
        if len(pcm) < 2 * self.sample_rate // 10:      # under 0.1 s: nothing to decode
            self.last_features = {}
            return Hypothesis(text="", verdict=REJECT)
        modulation = _modulation(pcm, self.sample_rate)
        if self.condition_snr_db is not None:
            pcm = add_noise(np.frombuffer(pcm, "<i2"), self.condition_snr_db, self.sample_rate,
                            seed=0).tobytes()
        text, gscore, gsegs, n_frames = self._decode(self._search, pcm)
        nbest = self._nbest_phrases(n_frames)
        fallback = text not in self._normalized
        if fallback:
            # The best path stopped inside a phrase ("play the", "whose"); a short word often
            # does that.  The best complete phrase in the n-best list may be the word said,
            # but such a reading is never trusted enough to act on without asking.
            text = nbest[0][0] if nbest else ""
        _, _, psegs, _ = self._decode("phones", pcm)
        if not text:
            self.last_features = {"partial": 1.0}
            return Hypothesis(text="", verdict=REJECT, free_text=_phones(psegs))
        feats = _features(text, gscore, gsegs, psegs, n_frames, self._reference)
        feats["modulation"] = modulation
        feats["fallback"] = float(fallback)
        verdict, confidence = self._verdict(feats)
        self.last_features = feats
        words = [end for word, _, end, _ in gsegs if word not in _FILLERS]
        return Hypothesis(text=self._original[text], verdict=verdict, confidence=confidence,
                          alternatives=tuple(self._original[t] for t, _ in nbest if t != text),
                          free_text=_phones(psegs),
                          trailing_s=(n_frames - 1 - words[-1]) / 100.0 if words else None)

    def _verdict(self, feats: Dict[str, float]) -> Tuple[str, float]:
        feats["score"] = self.verdict.score(feats)
        confidence = self.verdict.confidence(feats["score"])
        if feats["modulation"] < MIN_MODULATION_DB:
            confidence = min(confidence, 0.1)
        return self.verdict.judge(feats, self.strict), confidence

    def _nbest_phrases(self, n_frames: int, depth: int = 200) -> List[Tuple[str, float]]:
        """Distinct whole phrases of the last grammar decoding's n-best list, best first,
        with their log scores per frame (segmentation variants of one phrase collapse)."""
        found: "OrderedDict[str, float]" = OrderedDict()
        for i, entry in enumerate(self._decoder.nbest() or ()):
            if i >= depth or entry is None or len(found) >= 2:
                break
            text = " ".join(entry.hypstr.split())
            if text in self._normalized and text not in found and entry.score > 0:
                found[text] = self._logmath.log(entry.score) / n_frames
        return list(found.items())

    def _decode(self, search: str, pcm: bytes):
        d = self._decoder
        d.activate_search(search)
        d.start_utt()
        d.process_raw(pcm, False, True)
        d.end_utt()
        hyp = d.hyp()
        log = self._logmath.log
        segs = [(s.word, s.start_frame, s.end_frame, log(s.ascore) if s.ascore > 0 else -1e9)
                for s in (d.seg() or ())]
        text = " ".join(hyp.hypstr.split()) if hyp is not None else ""
        score = self._logmath.log(hyp.score) if hyp is not None and hyp.score > 0 else -1e9
        return text, score, segs, max(1, d.n_frames())


def _read_pronunciations(path: str) -> List[Tuple[str, str]]:
    """(word(N), phones) pairs of a cmudict-format file; ";;;" lines are comments."""
    with open(path, encoding="utf-8") as f:
        return [tuple(line.split(None, 1)) for line in (l.strip() for l in f)  # type: ignore
                if line and not line.startswith(";")]


def _normalize(phrase: str) -> str:
    return " ".join(re.sub(r"[^a-z' ]+", " ", phrase.lower()).split())


def _phones(segs) -> str:
    return " ".join(seg[0] for seg in segs if seg[0] != "SIL")


def _features(text, gscore, gsegs, psegs, n_frames, pronounce) -> Dict[str, float]:
    """The rejection features of one utterance (see the module docstring)."""
    speech = np.zeros(n_frames, dtype=bool)         # frames the phone loop calls speech
    for word, start, end, _ in psegs:
        if word != "SIL":
            speech[start:end + 1] = True
    silent = np.zeros(n_frames, dtype=bool)         # frames the grammar calls silence/filler
    first, last = n_frames, 0
    for word, start, end, ascore in gsegs:
        if word in _FILLERS or word.startswith("+") or word.startswith("["):
            silent[start:end + 1] = True
        else:
            first, last = min(first, start), max(last, end)
    n_speech = max(1, int(speech.sum()))
    heard = [w for w, s, e, _ in psegs if w != "SIL" and e >= first and s <= last]
    expected = [p for w in text.split() for p in pronounce(w)]
    span = last - first + 1 if last >= first else 0
    return {
        "gpf": gscore / n_frames,
        "silsp": float((speech & silent).sum()) / n_speech,
        "phone_err": _edit_distance(heard, expected) / max(1, len(expected)),
        "pace": span / max(1, len(expected)) / 10.0,
    }


def _modulation(pcm: bytes, rate: int) -> float:
    """Spread (dB) of the 10 ms frame levels within 25 dB of the loudest: speech rises and
    falls syllable by syllable, a hum or a fan is steady."""
    x = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    step = rate // 100
    n = len(x) // step
    levels = 10 * np.log10(np.mean(x[: n * step].reshape(n, step) ** 2, axis=1) + 1.0)
    loud = levels[levels >= levels.max() - 25.0]
    return float(np.std(loud)) if len(loud) > 2 else 0.0


def _edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]
