"""PocketSphinx backend on real synthesized speech (espeak-ng clips with a noise floor)."""
from __future__ import annotations

import pytest

from tests.speech_clips import VOICES, game_vocabulary, join, noise_burst, synthesize_pcm
from voice.lang import Language, available
from voice.hear.audio import chunk_array
from voice.hear.choose import make_recognizer
from voice.hear.recognizer import ACCEPT, CONFIRM, REJECT
from voice.errors import RecognizerError
from voice.hear.segmenter import Segmenter
from voice.hear.sphinx import SphinxRecognizer, SphinxVerdict

HAND = ("seven", "ten", "king")
GRAMMAR = Language.load("en").grammar


@pytest.fixture(scope="module")
def rec():
    r = SphinxRecognizer(Language.load("en").sphinx_pronunciations)
    r.set_vocabulary(game_vocabulary(HAND))
    return r


@pytest.mark.parametrize("command,voice", [
    ("seven", VOICES[0]), ("play the king", VOICES[1]), ("ten minus", VOICES[0]),
    ("whose turn", VOICES[2]), ("my cards", VOICES[3]), ("play seven", VOICES[2]),
])
def test_hears_in_game_commands(rec, command, voice):
    hyp = rec.recognize(synthesize_pcm(command, voice=voice[0], speed=voice[1]).tobytes())
    assert hyp.text == command
    assert hyp.verdict in (ACCEPT, CONFIRM)
    assert hyp.text in rec.phrases and 0.0 < hyp.confidence <= 1.0


@pytest.mark.parametrize("text", ["what is the weather", "hello there", "pass the salt",
                                  "good morning", "michael", "turn off the light"])
def test_off_topic_speech_never_becomes_a_move_without_asking(rec, text):
    # The session answers a question or command even when unsure (harmless); only a move is
    # read back first ("Seven?"), so off-topic speech must never be an ACCEPTed move.
    hyp = rec.recognize(synthesize_pcm(text).tobytes())
    intent = GRAMMAR.parse(hyp.text) if hyp.text else None
    if intent is not None and intent.kind not in ("command", "rules"):
        assert hyp.verdict != ACCEPT
    assert hyp.text == "" or hyp.text in rec.phrases   # never a half path like "play the"


@pytest.mark.parametrize("kind", ["cough", "click", "hum"])
def test_noises_are_rejected(rec, kind):
    assert rec.recognize(noise_burst(kind).tobytes()).verdict == REJECT


def test_streamed_feed_equals_whole_utterance(rec):
    pcm = synthesize_pcm("play the seven")
    rec.begin()
    for chunk in chunk_array(pcm, chunk_ms=30):
        rec.feed(chunk.tobytes())
    assert rec.end().text == "play the seven"


def test_segmented_stream_through_the_recognizer(rec):
    said = ["king", "whose turn", "ten plus"]
    stream = join([synthesize_pcm(t) for t in said], gap_s=0.8)
    heard = [rec.recognize(u.tobytes()).text for u in Segmenter().segment(chunk_array(stream))]
    assert heard == said


def test_vocabulary_change_switches_grammar_and_reuses_it(rec):
    pcm = synthesize_pcm("queen")
    rec.set_vocabulary(game_vocabulary(("queen", "two", "ace")))
    assert rec.recognize(pcm.tobytes()).text == "queen"
    rec.set_vocabulary(game_vocabulary(HAND))
    assert rec.recognize(pcm.tobytes()).text != "queen"     # not sayable now
    searches = len(rec._searches)
    rec.set_vocabulary(game_vocabulary(("queen", "two", "ace")))
    assert len(rec._searches) == searches                   # cached, not rebuilt
    rec.set_vocabulary(game_vocabulary(HAND))


def test_phrases_come_back_as_the_caller_spelled_them():
    r = SphinxRecognizer(Language.load("en").sphinx_pronunciations)
    r.set_vocabulary(["Play the Seven!", "whose turn"])
    assert r.recognize(synthesize_pcm("play the seven").tobytes()).text == "Play the Seven!"


def test_words_outside_the_dictionary_are_skipped_with_a_warning():
    r = SphinxRecognizer(Language.load("en").sphinx_pronunciations)
    with pytest.warns(UserWarning, match="xqzzy"):
        r.set_vocabulary(["seven", "play xqzzy"])
    assert r.phrases == ("seven",) and r.skipped == ("play xqzzy",)
    with pytest.raises(RecognizerError, match="None of the phrases"):
        r.set_vocabulary(["xqzzy", "flurbo xqzzy"])


def test_bad_input_gives_clear_errors_or_empty_readings(tmp_path):
    r = SphinxRecognizer(Language.load("en").sphinx_pronunciations)
    with pytest.raises(RecognizerError, match="No vocabulary"):
        r.recognize(synthesize_pcm("seven").tobytes())
    r.set_vocabulary(["seven"])
    assert r.recognize(b"").verdict == REJECT
    assert r.recognize(b"\x00\x01" * 100).text == ""
    with pytest.raises(RecognizerError, match="missing"):
        SphinxRecognizer(model_dir=str(tmp_path))


# ------------------------------------------------------------------ per-language verdicts

EMBEDDED = [c for c in available() if Language.load(c).sphinx_pronunciations is not None]


def test_english_keeps_the_verdict_it_was_fitted_with():
    verdict = SphinxVerdict.from_data(Language.load("en").sphinx_verdict)
    assert verdict == SphinxVerdict({"gpf": 0.1, "silsp": -3.75, "phone_err": -7.25},
                                    -8.04, -8.44, -10.19)
    assert SphinxRecognizer(Language.load("en").sphinx_pronunciations).verdict == verdict


@pytest.mark.parametrize("code", EMBEDDED)
def test_each_language_has_its_own_verdict_and_the_recognizer_uses_it(code):
    language = Language.load(code)
    recognizer, _ = make_recognizer(language, backend="sphinx")
    assert recognizer.verdict == SphinxVerdict.from_data(language.sphinx_verdict)
    if code != "en":   # fitted on the language's own calibration voices, not English's
        assert recognizer.verdict != SphinxVerdict.from_data(Language.load("en").sphinx_verdict)


def test_the_same_features_are_judged_by_the_language_data():
    en, tr = (SphinxVerdict.from_data(Language.load(c).sphinx_verdict) for c in ("en", "tr"))
    assert en.lenient_accept != tr.lenient_accept
    # a reading scoring between the two languages' push-to-talk thresholds
    between = (en.lenient_accept + tr.lenient_accept) / 2
    feats = {"gpf": between / en.weights["gpf"], "silsp": 0.0, "phone_err": 0.0, "modulation": 10.0}
    feats["score"] = en.score(feats)
    verdicts = {v.judge(dict(feats, score=v.score(feats)), strict=False) for v in (en, tr)}
    assert ACCEPT in verdicts and len(verdicts) == 2


def test_a_turkish_clip_is_judged_by_turkish_numbers():
    tr = Language.load("tr")
    recognizer, _ = make_recognizer(tr, backend="sphinx")
    recognizer.set_vocabulary(["dokuz", "papaz", "on arti", "toplam", "sira kimde"])
    hyp = recognizer.recognize(synthesize_pcm("dokuz", voice="tr+m3", speed=175).tobytes())
    assert hyp.text == "dokuz"
    assert hyp.verdict == recognizer.verdict.judge(recognizer.last_features, recognizer.strict)
    assert recognizer.last_features["score"] == pytest.approx(
        recognizer.verdict.score(recognizer.last_features))


def test_the_phone_reference_is_the_first_pronunciation_unless_the_language_says_its_own(tmp_path):
    """Turkish "on" is cmudict's English word first (AA N); its own entry is "on(3) OW N"."""
    tr = Language.load("tr")
    own = SphinxRecognizer(tr.sphinx_pronunciations, verdict=dict(tr.sphinx_verdict, phone_reference="language"))
    first = SphinxRecognizer(tr.sphinx_pronunciations, verdict=dict(tr.sphinx_verdict, phone_reference="first"))
    assert first._reference("on") == ["AA", "N"] and own._reference("on") == ["OW", "N"]
    assert own._reference("toplam") == first._reference("toplam")   # a word of its own: the same
    assert own._reference("the") == first._reference("the")         # a word it does not define
    clip = synthesize_pcm("on", voice="tr+m3", speed=175).tobytes()
    for rec in (own, first):
        rec.set_vocabulary(["on", "dokuz", "as"])
        assert rec.recognize(clip).text == "on"
    assert own.last_features["phone_err"] < first.last_features["phone_err"]
    verdicts = {c: SphinxVerdict.from_data(Language.load(c).sphinx_verdict) for c in EMBEDDED}
    assert verdicts["en"].phone_reference == "first"
    assert verdicts["tr"].phone_reference == "language"


@pytest.mark.parametrize("data,problem", [
    ({"weights": {"gpf": 0.1}, "strict_accept": -8, "lenient_accept": -9, "confirm": -10},
     "incomplete"),
    ({"weights": {"gpf": 0.1, "silsp": -3, "phone_err": -7}, "strict_accept": -8,
      "lenient_accept": -9, "confirm": -10, "phone_reference": "best"}, "unknown phone reference"),
    ({"weights": {"gpf": 0.1, "silsp": -3, "phone_err": -7}, "strict_accept": -9,
      "lenient_accept": -8, "confirm": -10}, "out of order"),
])
def test_malformed_verdict_data_is_one_clear_error(data, problem):
    with pytest.raises(RecognizerError, match=problem):
        SphinxRecognizer(Language.load("en").sphinx_pronunciations, verdict=data)
