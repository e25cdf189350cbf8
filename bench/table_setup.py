"""How well the embedded recognizer hears a real table's set-up: first names and spelled letters.

Each name of the set-up's list (``voice/lang/names.json``, or the language's own) and each
letter of the language's spelling words (``setup.letters`` in ``grammar.table.json``) is
said by espeak-ng voices and decoded
through the vocabulary the set-up listens with (every name with "done", "okay" and
"spell"; every letter with "done" and "back"), on the same audio path as ``--wav`` (the
segmenter, then the recognizer). A reading is right when it is the word said; the verdict
columns say what the set-up does with it (names are always read back for a yes).

    python3 bench/table_setup.py [--lang en] [--voices 3] [--alphabet letters|nato|nato-only]

``letters`` says each letter's name ("B"), ``nato`` its code word ("bravo"), both through
the set-up's vocabulary of every letter word; ``nato-only`` leaves the letter names out. A
letter whose names are a transliteration (Arabic: "alif" for ا) is said as the letter itself,
which espeak-ng reads by its name; a reading is right when it writes the letter said. A
language with no spelling alphabet (one word a letter) has no ``nato`` rows. ``--setup-words``
also says each set-up word ("let me spell it", "done", "okay") against the names' vocabulary:
a word heard as a name there would start no spelling.
"""
from __future__ import annotations

import argparse
import sys
import unicodedata
import warnings
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from tests.speech_clips import VOICES, synthesize_pcm  # noqa: E402
from voice.hear.recognizer import ACCEPT, CONFIRM  # noqa: E402
from voice.hear.segmenter import Segmenter  # noqa: E402
from voice.hear.sphinx import SphinxRecognizer  # noqa: E402
from voice.lang import Language  # noqa: E402
from voice.cli.table_setup import names_of, letters_of, setup_words  # noqa: E402



def decode(rec, pcm):
    utterances = list(Segmenter().segment(pcm[i:i + 1600] for i in range(0, len(pcm), 1600)))
    if not utterances:
        return None
    return rec.recognize(np.concatenate(utterances).astype("<i2").tobytes())


# The set-up words as espeak-ng should read them where the grammar's key is a transliteration.
SAID = {"ar": {"harfan harfan": "حرفًا حرفًا", "tahjia": "تهجئة", "khalas": "خلاص",
               "hasanan": "حسنًا", "imsah": "امسح",
               "hadha kull shay": "هذا كل شيء"}}


def run(rec, items, vocabulary, voices, say, lang_voice, second=None, meaning=None):
    """items: (what is said, the right reading); a table row per voice and a confusion list.
    ``second``: the phrases a wrong reading is decoded again against, without it (the names:
    after a "no" the set-up reads back that second reading)."""
    rec.set_vocabulary(vocabulary)
    rows, confusions = [], Counter()
    for voice, speed in voices:
        right = accepted = confirmed = seconds = 0
        for spoken, expected in items:
            pcm = synthesize_pcm(say(spoken), voice=lang_voice or voice, speed=speed)
            hyp = decode(rec, pcm)
            text = hyp.text if hyp else ""
            if (meaning or (lambda t: t))(text) == expected:
                right += 1
                accepted += hyp.verdict == ACCEPT
                confirmed += hyp.verdict == CONFIRM
            else:
                confusions[(expected, text or "-")] += 1
                if second is not None and text:  # "no": the set-up's next guess
                    rec.set_vocabulary([w for w in second if w != text])
                    again = decode(rec, pcm)
                    seconds += bool(again) and again.text == expected
                    rec.set_vocabulary(vocabulary)
        n = len(items)
        rows.append((lang_voice or voice, speed, n, 100.0 * right / n, 100.0 * accepted / n,
                     100.0 * confirmed / n, 100.0 * (right + seconds) / n))
    return rows, confusions


def show(title, rows, confusions):
    print(f"\n{title}\n")
    print("| voice | wpm | said | right % | of which accepted % | confirmed % | right by the second guess % |")
    print("|---|---|---|---|---|---|---|")
    for voice, speed, n, right, acc, conf, both in rows:
        print(f"| {voice} | {speed} | {n} | {right:.1f} | {acc:.1f} | {conf:.1f} | {both:.1f} |")
    total = sum(r[2] for r in rows)
    mean = sum(r[2] * r[3] for r in rows) / total
    both = sum(r[2] * r[6] for r in rows) / total
    print(f"| all | | {total} | {mean:.1f} | | | {both:.1f} |")
    if confusions:
        print("\nconfusions (said -> heard, count): " + ", ".join(
            f"{a}->{b} {c}" for (a, b), c in confusions.most_common(15)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lang", default="en")
    ap.add_argument("--voices", type=int, default=3)
    ap.add_argument("--alphabet", choices=("letters", "nato", "nato-only"), default="letters")
    ap.add_argument("--skip-names", action="store_true")
    ap.add_argument("--setup-words", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    language = Language.load(args.lang, parts=("table",))
    rec = SphinxRecognizer(language.sphinx_pronunciations, strict=True,
                           verdict=language.sphinx_verdict)
    voices = VOICES[:args.voices] if args.lang == "en" else [(args.lang, 160), (args.lang + "+f3", 140)][:args.voices]
    words = setup_words(language)
    if args.setup_words:
        names = names_of(language)
        vocabulary = sorted({s for n in names for s in n.spoken} | set(words["done"])
                            | set(words["default"]) | set(words["spell"]))
        items = [(w, w) for kind in ("spell", "done", "default") for w in words[kind]]
        said = SAID.get(args.lang, {})
        rows, conf = run(rec, items, vocabulary, voices, lambda s: said.get(s, s), None)
        show(f"Set-up words ({args.lang}) among the names, vocabulary of {len(vocabulary)}",
             rows, conf)
    if not args.skip_names:
        names = names_of(language)
        vocabulary = sorted({s for n in names for s in n.spoken} | set(words["done"])
                            | set(words["default"]) | set(words["spell"]))
        items = [(n.name, n.spoken[0]) for n in names]
        names_only = sorted({s for n in names for s in n.spoken})
        rows, conf = run(rec, items, vocabulary, voices, lambda s: s, None, second=names_only)
        show(f"Names ({len(names)}, {args.lang}), vocabulary of {len(vocabulary)} phrases", rows, conf)
    found = letters_of(language)
    if not found:
        print(f"\n{args.lang} has no spelling words yet.")
        return
    index = 0 if args.alphabet == "letters" else 1   # the letter's name, or its code word
    if index and not any(len(spoken) > 1 for _, spoken in found):
        print(f"\n{args.lang} spells by letter names only: no spelling alphabet to measure.")
        return
    latin = lambda c: unicodedata.name(c, "").startswith("LATIN")
    letters = [((spoken[min(index, len(spoken) - 1)] if latin(letter) or index else letter),
                letter) for letter, spoken in found]
    letter_of = {w: letter for letter, spoken in found for w in spoken}
    vocabulary = sorted({s for _, sp in found for s in sp} | set(words["done"])
                        | set(words["back"]))
    if args.alphabet == "nato-only":
        vocabulary = sorted({spoken[min(1, len(spoken) - 1)] for _, spoken in found}
                            | set(words["done"]) | set(words["back"]))
    say = (lambda s: s.upper() if len(s) == 1 else s)
    rows, conf = run(rec, letters, vocabulary, voices, say, None,
                     meaning=lambda t: letter_of.get(t, t))
    show(f"Spelling ({args.alphabet}, {args.lang}), vocabulary of {len(vocabulary)} phrases",
         rows, conf)


if __name__ == "__main__":
    main()
