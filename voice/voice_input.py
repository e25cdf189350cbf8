"""Opening live voice input: the microphone, the segmenter and the recognizer, joined."""
from __future__ import annotations

from typing import Callable

from .listener import VoiceListener
from .recognition import Recognizer
from .segmenter import Segmenter


def open_voice_input(make_recognizer: Callable[[], Recognizer], speaker,
                     push_to_talk: bool = False, trailing_silence_s: float = 0.5
                     ) -> VoiceListener:
    """A listener on the default microphone; MicrophoneError (one sentence) if there is none.

    The microphone is opened first, so a recognizer is only loaded when there is one. It
    drops its input while the speaker talks, so the program never hears itself; the
    "listening" earcon tells the player when to speak.
    """
    from .microphone import MicrophoneSource
    source = MicrophoneSource(rate=Recognizer.sample_rate, mute_while=speaker)
    try:
        recognizer = make_recognizer()
    except Exception:
        source.close()
        raise
    segmenter = Segmenter(rate=recognizer.sample_rate, trailing_silence_s=trailing_silence_s,
                          hands_free=not push_to_talk)
    return VoiceListener(source, segmenter, recognizer, push_to_talk=push_to_talk,
                         on_listening=lambda: speaker.earcon("listening"))
