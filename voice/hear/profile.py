"""A player's voice profile: a few takes of each game phrase in their own voice, as features.

One file (numpy's ``.npz``, a zip): a JSON manifest (format version, language, the phrases
and how many takes of each) and each take's MFCC frames (``profile_match.features``); the
recordings themselves only when the player asked to keep them.  Nothing else is stored.
Reading checks everything before anything is used: a damaged, truncated or foreign file, or
one of another version, is refused in one sentence (``UserError``), so a game never starts
with half a profile.
"""
from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Union

import numpy as np

from voice.errors import UserError
from voice.hear.profile_match import N_CEPS, distances, features

FORMAT = "talking-cards voice profile"
VERSION = 1
MAX_TAKES = 5          # the newest takes of a phrase are kept when it is enrolled again
# A take whose distance to the phrase's other takes is this many times their distance to one
# another was not the same word, or not said the same way (FSDD takes 0-2: none of 24 right
# triples asked again, 86% of triples with another word as a take caught).
ODD_TAKE_FACTOR = 1.2
NEAREST = 2           # a phrase is as near as the mean of its nearest takes (FSDD takes 3-9:
                      # every rank right of eight, against 99.4% for the single nearest)
_DIMENSIONS = 2 * (N_CEPS - 1)


def phrase_key(phrase: str) -> str:
    """Phrases are compared as the recognizer spells them: lower case, single spaces."""
    return " ".join(phrase.lower().split())


@dataclass
class VoiceProfile:
    language: str                                                # a language code: "en", "tr"
    takes: Dict[str, List[np.ndarray]] = field(default_factory=dict)   # phrase -> features
    audio: Dict[str, List[np.ndarray]] = field(default_factory=dict)   # kept only if asked
    _scale: Optional[float] = field(default=None, repr=False)

    # --- building ---------------------------------------------------------------------

    def add(self, phrase: str, pcm: np.ndarray, keep_audio: bool = False) -> None:
        """One take of ``phrase`` (16 kHz int16 speech as the segmenter cut it)."""
        feats = features(pcm)
        if not len(feats):
            raise UserError(f"The take of {phrase!r} is too short to be a word; say it again.")
        key = phrase_key(phrase)
        self.takes[key] = (self.takes.get(key, []) + [feats])[-MAX_TAKES:]
        if keep_audio:
            self.audio[key] = (self.audio.get(key, []) + [np.asarray(pcm, np.int16)])[-MAX_TAKES:]
        self._scale = None

    def odd_take(self, phrase: str) -> Optional[int]:
        """The index of a take of ``phrase`` unlike its others (say it again), or None."""
        takes = self.takes.get(phrase_key(phrase), [])
        if len(takes) < 3:
            return None
        pair = np.array([distances(t, takes) for t in takes])
        np.fill_diagonal(pair, np.nan)
        spread = np.nanmean(pair, axis=1)              # each take to the others
        worst = int(np.argmax(spread))
        rest = np.delete(np.delete(pair, worst, 0), worst, 1)
        usual = float(np.nanmean(rest)) if rest.size > 1 else float(np.nanmin(spread))
        return worst if spread[worst] > ODD_TAKE_FACTOR * usual else None

    def drop_take(self, phrase: str, index: int) -> None:
        key = phrase_key(phrase)
        del self.takes[key][index]
        if key in self.audio and index < len(self.audio[key]):
            del self.audio[key][index]
        self._scale = None

    # --- matching ---------------------------------------------------------------------

    def knows(self, phrase: str) -> bool:
        return phrase_key(phrase) in self.takes

    @property
    def scale(self) -> float:
        """The profile's typical distance between two takes of one phrase (the median over
        its phrases): distances are judged against it, so loud and soft, clear and
        accented voices are judged alike."""
        if self._scale is None:
            within = []
            for takes in self.takes.values():
                for i, take in enumerate(takes[:-1]):
                    within.extend(distances(take, takes[i + 1:]))
            finite = [d for d in within if np.isfinite(d)]
            self._scale = float(np.median(finite)) if finite else 1.0
        return self._scale

    def match(self, pcm: np.ndarray, phrases: Sequence[str]) -> Dict[str, float]:
        """Each phrase's distance to the utterance (the mean over its two nearest takes: one
        odd take decides nothing), in units of ``scale``; only phrases the profile knows, inf
        where no take fits."""
        return self.match_features(features(pcm), phrases)

    def match_features(self, feats: np.ndarray, phrases: Sequence[str]) -> Dict[str, float]:
        """``match`` for an utterance's ``features`` (made once, matched twice: the phrases
        that can be said now, and the profile's others)."""
        known = [p for p in phrases if self.knows(p)]
        if not known:
            return {}
        templates = [t for p in known for t in self.takes[phrase_key(p)]]
        found = distances(feats, templates) / self.scale
        out, at = {}, 0
        for p in known:
            n = len(self.takes[phrase_key(p)])
            out[p] = float(np.sort(found[at:at + n])[:NEAREST].mean())
            at += n
        return out

    # --- the file ---------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        phrases = sorted(self.takes)
        manifest = {"format": FORMAT, "version": VERSION, "language": self.language,
                    "features": f"mfcc{_DIMENSIONS}",
                    "phrases": {p: len(self.takes[p]) for p in phrases},
                    "audio": {p: len(self.audio[p]) for p in phrases if self.audio.get(p)}}
        arrays = {"manifest": np.array(json.dumps(manifest, ensure_ascii=False))}
        for i, p in enumerate(phrases):
            for k, take in enumerate(self.takes[p]):
                # half the size; distances agree with float32 ones to the fourth digit
                arrays[f"take_{i}_{k}"] = take.astype(np.float16)
            for k, pcm in enumerate(self.audio.get(p, [])):
                arrays[f"audio_{i}_{k}"] = pcm
        out = io.BytesIO()
        np.savez_compressed(out, **arrays)
        return out.getvalue()

    @classmethod
    def read(cls, path: Union[str, Path], language: Optional[str] = None) -> "VoiceProfile":
        """The profile in ``path`` (made in ``language``, a code, when given); UserError (one
        sentence) when it cannot be used."""
        path = Path(path)
        damaged = (f"The voice profile {path} is damaged; make it again with "
                   f"talking-cards enroll --profile {path}.")
        if not path.is_file():
            raise UserError(f"There is no voice profile at {path}; make one with "
                            f"talking-cards enroll --profile {path}.")
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
            manifest = json.loads(str(arrays["manifest"]))
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            raise UserError(damaged) from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise UserError(damaged)
        if manifest.get("version") != VERSION:
            raise UserError(f"The voice profile {path} was made by another version of the "
                            f"program; make it again with talking-cards enroll --profile {path}.")
        try:
            profile = cls._from_arrays(manifest, arrays)
        except (KeyError, TypeError, ValueError, AttributeError):
            raise UserError(damaged) from None
        if language is not None and profile.language != language:
            raise UserError(f"The voice profile {path} is for language {profile.language!r}; "
                            f"use it with --lang {profile.language}, or enroll again.")
        return profile

    @classmethod
    def _from_arrays(cls, manifest: dict, arrays: Dict[str, np.ndarray]) -> "VoiceProfile":
        profile = cls(language=str(manifest["language"]))
        audio = manifest.get("audio", {})
        for i, (phrase, count) in enumerate(sorted(manifest["phrases"].items())):
            takes = [arrays[f"take_{i}_{k}"] for k in range(int(count))]
            if not 1 <= len(takes) <= MAX_TAKES or any(
                    t.ndim != 2 or t.shape[1] != _DIMENSIONS or len(t) < 1
                    or not np.isfinite(t).all() for t in takes):
                raise ValueError(phrase)
            profile.takes[str(phrase)] = [t.astype(np.float32) for t in takes]
            if phrase in audio:
                profile.audio[phrase] = [arrays[f"audio_{i}_{k}"].astype(np.int16)
                                         for k in range(int(audio[phrase]))]
        if not profile.takes:
            raise ValueError("no phrases")
        return profile
