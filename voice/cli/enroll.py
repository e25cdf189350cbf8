"""talking-cards enroll: make (or extend) a player's voice profile.

From recordings: ``talking-cards enroll --profile P seven=a.wav seven=b.wav ...``, each file
one take of a phrase the game listens for (a card, a command) in ``--lang``.  Spoken: with
no files the program asks for each rank and the commonest commands in turn ("Say seven."),
a few times each, through the microphone (or ``--wav`` files, one utterance each, for
tests); a take unlike the others of its word is asked again.  Either way each take goes
through the audio path of a game (resampled, cut by the segmenter), and only its features
are kept, unless ``--keep-audio``.
"""
from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from voice.cli.native_log import native_output_to_log
from voice.cli.speech import open_speaker
from voice.dialog.record import write_atomically
from voice.dialog.session import echo
from voice.errors import AudioError, UserError, sentence
from voice.hear.profile import VoiceProfile, phrase_key
from voice.hear.recognizer import ACCEPT, Hypothesis, Recognizer
from voice.lang import Language
from voice.understand.grammar import Intent

TAKES = 3                 # takes of each phrase in spoken enrollment
RETRIES = 2               # a word whose take is unlike the others is asked this often more
RANK_ORDER = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
COMMANDS = ("yes", "no", "total", "turn", "hand", "repeat")   # the commonest, in this order
VALUED = (("10", 10), ("10", -10), ("A", 1), ("A", 11))        # cards said with their value
PART = "enroll"           # the language files of the enrollment sentences


def load_language(tag: str) -> Language:
    try:
        return Language.load(tag, parts=(PART,))
    except ValueError as exc:
        raise UserError(sentence(exc)) from None


def prompted_phrases(language: Language) -> List[Tuple[str, str]]:
    """(the phrase the recognizer hears, how the prompt names it) for the ranks and the
    commonest commands: each one's first spoken phrase in the grammar (the bare rank word,
    the command's usual form)."""
    p, grammar = language.phrases, language.grammar
    wanted = [(Intent("play", rank=r), p.rank(r)) for r in RANK_ORDER]
    for rank, value in VALUED:   # "ten plus": a card with its value is a phrase of its own
        spoken = p.data.get("enroll_words", {}).get(f"{rank}{value:+d}")
        if spoken:
            wanted.append((Intent("play", rank=rank, value=value), spoken))
    words = p.data.get("enroll_words", {})
    wanted += [(Intent("command", name=n), words[n]) for n in COMMANDS if n in words]
    out = []
    for intent, named in wanted:
        spoken = [phrase for phrase, meant in grammar.spoken.items() if meant == intent]
        if spoken:
            out.append((spoken[0], named))
    return out


def save(profile: VoiceProfile, path: str) -> None:
    try:
        write_atomically(Path(path), profile.to_bytes(), prefix=".profile-")
    except OSError as exc:
        raise UserError(f"The voice profile {path} cannot be written ({exc.strerror}).") from None


def take_from_file(path: str) -> np.ndarray:
    """A recording as a game hears it: resampled to 16 kHz and cut by the segmenter."""
    from voice.hear.audio import WavSource
    from voice.hear.segmenter import Segmenter
    try:
        source = WavSource(path, rate=16000)
    except AudioError as exc:
        raise UserError(sentence(exc)) from None
    utterances = list(Segmenter().segment(source.chunks()))
    return np.concatenate(utterances) if utterances else source.pcm


def enroll_files(args: argparse.Namespace, language: Language) -> int:
    grammar = language.grammar
    profile = _start(args.profile, language, args.new)
    given: Dict[str, List[str]] = {}
    for item in args.takes:
        phrase, sep, path = item.partition("=")
        key = grammar.key(phrase)
        if not sep or not path or key not in grammar.spoken:
            raise UserError(f"{echo(item)!r} is not PHRASE=FILE.wav with a phrase the game "
                            f"listens for in {language.name} (a card or a command).")
        given.setdefault(key, []).append(path)
    for phrase, paths in given.items():
        for path in paths:
            profile.add(phrase, take_from_file(path), keep_audio=args.keep_audio)
        odd = profile.odd_take(phrase)
        if odd is not None:
            earlier = len(profile.takes[phrase_key(phrase)]) - len(paths)  # takes kept before
            which = paths[odd - earlier] if odd >= earlier else "an earlier take"
            profile.drop_take(phrase, odd)
            print(f"The take {which} of {phrase!r} does not sound like the others; it was left "
                  f"out: record it again.", file=sys.stderr)
    save(profile, args.profile)
    print(_summary(profile, args.profile))
    return 0


def _start(path: str, language: Language, new: bool) -> VoiceProfile:
    """The profile to extend: the one at ``path`` if there is one (and not ``new``)."""
    target = Path(path)
    if target.exists() and not target.is_file():
        raise UserError(f"{path} is not a regular file; name a file for the voice profile.")
    if target.exists() and not new:
        return VoiceProfile.read(path, language.code)
    return VoiceProfile(language.code)


def _summary(profile: VoiceProfile, path: str) -> str:
    counts = sorted({len(t) for t in profile.takes.values()})
    takes = str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    return f"Voice profile {path}: {len(profile.takes)} phrases, {takes} takes each."


class TakeRecorder(Recognizer):
    """The listener's "recognizer" while enrolling: it keeps each utterance as it was cut."""

    name = "takes"
    sample_rate = 16000

    def __init__(self) -> None:
        self.last = np.zeros(0, dtype=np.int16)
        self._pcm = bytearray()

    def set_vocabulary(self, phrases: Sequence[str]) -> None:
        pass

    def begin(self) -> None:
        self._pcm = bytearray()

    def feed(self, pcm: bytes) -> None:
        self._pcm.extend(pcm)

    def end(self) -> Hypothesis:
        self.last = np.frombuffer(bytes(self._pcm), dtype="<i2").copy()
        return Hypothesis(text="take", verdict=ACCEPT)


def spoken_enrollment(language: Language, listener, recorder: TakeRecorder, speaker,
                      profile: VoiceProfile, keep_audio: bool = False) -> bool:
    """Ask for each phrase TAKES times ("Say seven."), a take unlike the others again; the
    profile gets every phrase whose takes are all in.  False when the input ended first."""
    p = language.phrases
    phrases = prompted_phrases(language)
    speaker.say(p.text("enroll.intro", count=len(phrases), takes=TAKES))
    for phrase, named in phrases:
        trial = VoiceProfile(language.code)
        retries = RETRIES
        question = p.text("enroll.say", phrase=named)
        while len(trial.takes.get(phrase, [])) < TAKES:
            not_heard = p.text("enroll.not_heard", phrase=named)
            pcm = _hear_take(listener, recorder, speaker, question, not_heard)
            if pcm is None:
                speaker.say(p.text("enroll.stopped", count=len(profile.takes)))
                return False
            try:
                trial.add(phrase, pcm, keep_audio)
            except UserError:   # too short to be a word
                question = not_heard
                continue
            odd = trial.odd_take(phrase)
            question = p.text("enroll.say", phrase=named)
            if odd is not None and retries:
                retries -= 1
                trial.drop_take(phrase, odd)
                question = p.text("enroll.again", phrase=named)
        for k, take in enumerate(trial.takes[phrase]):
            profile.takes.setdefault(phrase, []).append(take)
            if keep_audio:
                profile.audio.setdefault(phrase, []).append(trial.audio[phrase][k])
    speaker.say(p.text("enroll.done", count=len(phrases)))
    return True


def _hear_take(listener, recorder: TakeRecorder, speaker, question: str,
               again: str) -> Optional[np.ndarray]:
    """One utterance after ``question`` (``again`` when nothing was heard): its samples, or
    None when the input has ended or the player typed quit."""
    while True:
        speaker.say(question)
        heard = listener.listen(["take"], "> ")
        if heard is None:
            return None
        if heard.typed:
            if heard.text.strip().lower() in ("q", "quit", "exit"):
                return None
            continue
        if heard.text and len(recorder.last):
            return recorder.last
        question = again


def enroll_spoken(args: argparse.Namespace, language: Language) -> int:
    _start(args.profile, language, args.new)   # a profile that cannot be extended: say so first
    with ExitStack() as stack:
        stack.enter_context(native_output_to_log())
        speaker = open_speaker(args, language, stack)
        listener = open_takes_listener(args, TakeRecorder(), speaker, stack)
        _, done = enroll_by_voice(listener, language, speaker, args.profile, args.new,
                                  args.keep_audio)
        speaker.wait_until_quiet(30.0)
    return 0 if done else 1


def enroll_by_voice(listener, language: Language, speaker, path: str, new: bool = False,
                    keep_audio: bool = False) -> Tuple[Optional[VoiceProfile], bool]:
    """Spoken enrollment through ``listener`` (its recognizer set aside meanwhile: the takes
    are kept, not recognized), saved to ``path``: (the profile or None when no word was
    completed, whether every word was)."""
    profile = _start(path, language, new)
    kept = listener.recognizer
    recorder = kept if isinstance(kept, TakeRecorder) else TakeRecorder()
    listener.recognizer = recorder
    try:
        done = spoken_enrollment(language, listener, recorder, speaker, profile, keep_audio)
    finally:
        listener.recognizer = kept
    if not profile.takes:
        return None, done
    save(profile, path)
    speaker.say(language.phrases.text("enroll.saved", path=path))
    return profile, done


def default_profile_path(language: Language) -> Path:
    """Where the start menu keeps the player's profile: the config folder, per language."""
    from voice.cli.settings import config_folder
    return config_folder() / f"voice-{language.code}.npz"


def open_takes_listener(args: argparse.Namespace, recorder: TakeRecorder, speaker,
                        stack: ExitStack):
    """The microphone, or ``--wav`` files (one take each), feeding ``recorder``."""
    if args.wav:
        from voice.hear.listeners import WavFilesListener
        from voice.hear.segmenter import Segmenter
        try:
            return WavFilesListener(args.wav, Segmenter, recorder)
        except AudioError as exc:
            raise UserError(sentence(exc)) from None
    from voice.hear.listeners import open_voice_input
    try:
        listener = open_voice_input(lambda: recorder, speaker, push_to_talk=args.push_to_talk)
    except Exception as exc:   # no microphone: nothing to enroll from
        raise UserError(f"{sentence(exc)} Enroll from recordings instead: talking-cards "
                        f"enroll --profile {args.profile} seven=seven.wav ...") from None
    stack.callback(listener.close)
    return listener


def run(args: argparse.Namespace) -> int:
    language = load_language(args.lang)
    if args.takes:
        return enroll_files(args, language)
    return enroll_spoken(args, language)
