"""Sixty-Six, table mode and the practice round in Turkish, Spanish and Arabic: typed spellings,
no English word in what the games say, a table game typed in each, and a whole Sixty-Six
match in each by voice: espeak-ng speech in WAV files through the real PocketSphinx
recognizer (the language's pronunciations) and the real session loop."""
from __future__ import annotations

import json

import pytest

from cli_runner import read_events, talking_cards
from engine import ninety_nine_table as nn_table
from engine import sixty_six as ss
from engine.sixty_six_bots import BOTS, make_bot
from speech_clips import espeak_available, synthesize
from test_languages import ENGLISH_WORDS, OWN_WORDS
from voice.dialog.record import Recorder, Seat
from voice.dialog.session import Session
from voice.games import GAMES
from voice.lang import LANG_DIR, Language
from voice.speak.speaker import Speaker
from voice.understand.grammar import Intent

CODES = ("tr", "es", "ar")
needs_speech = pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")

# How a player says a Sixty-Six move, written as espeak-ng reads it well (Arabic with harakat
# and a pausal ـَه). Every one of these is also a typed spelling the grammar must parse.
SAY = {
    "tr": {"rank": {"9": "dokuz", "10": "on", "J": "vale", "Q": "kız", "K": "papaz", "A": "as"},
           "suit": {"H": "kupa", "D": "karo", "S": "maça", "C": "sinek"},
           "card": "{suit} {rank}", "marriage": "{suit} evlenme", "exchange": "dokuzu değiştir",
           "close": "oyun kapandı", "claim": "altmış altı", "play_on": "oynamaya devam",
           "yes": "evet", "no": "hayır"},
    "es": {"rank": {"9": "nueve", "10": "diez", "J": "jota", "Q": "reina", "K": "rey", "A": "as"},
           "suit": {"H": "corazones", "D": "diamantes", "S": "picas", "C": "tréboles"},
           "card": "{rank} de {suit}", "marriage": "canto en {suit}", "exchange": "cambio el nueve",
           "close": "cierro", "claim": "sesenta y seis", "play_on": "sigo jugando",
           "yes": "sí", "no": "no"},
    "ar": {"rank": {"9": "تِسْعَه", "10": "عَشَرَه", "J": "وَلَدْ", "Q": "بِنْتْ", "K": "شايِبْ",
                    "A": "آسْ"},
           "suit": {"H": "كُبَّه", "D": "ديناري", "S": "بَسْتوني", "C": "سْباتي"},
           "card": "{rank} {suit}", "marriage": "زَواجْ {suit}", "exchange": "تَبْديلْ",
           "close": "سَكِّرْ", "claim": "سِتَّه وَسِتّينْ", "play_on": "كَمِّلْ",
           "yes": "نَعَمْ", "no": "لا"},
}


def spoken_move(code: str, action) -> tuple:
    """(what the player says, the intent it must be heard as) for a Sixty-Six action."""
    say = SAY[code]
    if isinstance(action, ss.Play):
        rank, suit = action.card[:-1], action.card[-1]
        return (say["card"].format(rank=say["rank"][rank], suit=say["suit"][suit]),
                Intent("play", rank=rank, suit=suit))
    if isinstance(action, ss.Marriage):
        suit = action.card[-1]
        return (say["marriage"].format(suit=say["suit"][suit]),
                Intent("move", name="marriage", suit=suit))
    name = {ss.Exchange: "exchange", ss.Close: "close", ss.Claim: "claim",
            ss.PlayOn: "play_on"}[type(action)]
    return say[name], Intent("move", name=name)


# --------------------------------------------------------------------------- typed


@pytest.mark.parametrize("code,texts,expected", [
    ("tr", ["kupa papaz", "KUPA PAPAZ", "kupa papazı", "papaz kupa", "kh"],
     ("play", "K", "H", None)),
    ("tr", ["maça kız", "maca kiz", "maça kızı", "MAÇA KIZI"], ("play", "Q", "S", None)),
    ("tr", ["sinek dokuzu", "sinek dokuz", "ispati dokuz"], ("play", "9", "C", None)),
    ("tr", ["altmış altı", "altmis alti", "66", "yeter"], ("move", None, None, "claim")),
    ("tr", ["kupa evlenme", "kupa eşleşme", "kupa esleşme"], ("move", None, "H", "marriage")),
    ("tr", ["dokuzu değiştir", "dokuzu degistir", "değiş tokuş"], ("move", None, None, "exchange")),
    ("tr", ["kapat", "oyun kapandı", "oyun kapandi", "oyunu kapat"], ("move", None, None, "close")),
    ("tr", ["koz ne", "koz hangisi"], ("command", None, None, "trump")),
    ("tr", ["kaç kart kaldı", "kac kart kaldi"], ("command", None, None, "stock")),
    ("es", ["rey de corazones", "REY DE CORAZÓN", "el rey de copas", "kh"],
     ("play", "K", "H", None)),
    ("es", ["diez de tréboles", "diez de treboles", "diez de bastos"], ("play", "10", "C", None)),
    ("es", ["sesenta y seis", "66", "basta"], ("move", None, None, "claim")),
    ("es", ["canto en corazones", "las cuarenta en copas"], ("move", None, "H", "marriage")),
    ("es", ["cierro", "cerrar el mazo"], ("move", None, None, "close")),
    ("es", ["última baza", "ultima baza"], ("command", None, None, "last_trick")),
    ("es", ["¿Cuántas quedan?", "cuantas quedan"], ("command", None, None, "stock")),
    ("ar", ["آس كبة", "آسْ كُبَّه", "اس الكبة", "آس قلوب"], ("play", "A", "H", None)),
    ("ar", ["بنت بستوني", "بِنْتْ بَسْتوني", "ملكة البستوني"], ("play", "Q", "S", None)),
    ("ar", ["ستة وستين", "سِتَّه وَسِتّينْ", "ستة وستون", "كفاية", "66"], ("move", None, None, "claim")),
    ("ar", ["زواج كبة", "زَواجْ كُبَّه", "زواج في الكبة"], ("move", None, "H", "marriage")),
    ("ar", ["سكر", "سكّر", "إغلاق"], ("move", None, None, "close")),
    ("ar", ["الطرنيب", "الحكم"], ("command", None, None, "trump")),
])
def test_sixty_six_typed_with_and_without_diacritics(code, texts, expected):
    grammar = Language.load(code, parts=GAMES["sixty-six"].words).grammar
    got = [(i.kind, i.rank, i.suit, i.name) if (i := grammar.parse(t)) else None for t in texts]
    assert got == [expected] * len(texts)


@pytest.mark.parametrize("code", CODES)
def test_every_spoken_move_of_the_match_is_a_typed_spelling_too(code):
    grammar = Language.load(code, parts=GAMES["sixty-six"].words).grammar
    say = SAY[code]
    moves = [ss.Play(r + s) for r in say["rank"] for s in say["suit"]]
    moves += [ss.Marriage("Q" + s) for s in say["suit"]] + [ss.Exchange(), ss.Close(),
                                                            ss.Claim(), ss.PlayOn()]
    for action in moves:
        text, intent = spoken_move(code, action)
        assert grammar.parse(text) == intent, text
    assert grammar.parse(say["yes"]) == Intent("command", name="yes")


@pytest.mark.parametrize("code,texts,expected", [
    ("tr", ["toplam kırk beş", "toplam kirk bes", "toplam kırkbeş", "toplam 45"], 45),
    ("es", ["el total es cuarenta y cinco", "total 45", "El total es Cuarenta y Cinco"], 45),
    ("ar", ["المجموع خمسة وأربعون", "المجموع خمسة وأربعين", "المجموع ٤٥"], 45),
    ("es", ["el total es veintidós", "el total es veintidos"], 22),
])
def test_table_totals_typed_in_words_and_digits(code, texts, expected):
    grammar = Language.load(code, parts=GAMES["doksan-table"].words).grammar
    assert [grammar.parse(t) for t in texts] == [
        Intent("move", name="set_total", value=expected)] * len(texts)


@pytest.mark.parametrize("code", CODES)
def test_the_practice_round_has_every_english_sentence(code):
    def keys(data, prefix=""):
        return {k for key, v in data.items() if not key.startswith("_")
                for k in (keys(v, f"{prefix}{key}.") if isinstance(v, dict) else [prefix + key])}
    english, own = (json.loads((LANG_DIR / c / "phrases.practice.json").read_text("utf-8"))
                    for c in ("en", code))
    assert keys(english) == keys(own)


# --------------------------------------------------------------------------- no English


def english_in(lines, code):
    return [line for line in lines
            if {w.lower() for w in ENGLISH_WORDS.findall(line.replace("Strong", "")
                                                         .replace("Random", ""))}
            - OWN_WORDS.get(code, set())]


FIRST = {"tr": "Ayşe", "es": "Lucía", "ar": "ليلى"}


@pytest.mark.parametrize("code", CODES)
def test_a_sixty_six_match_says_no_english_word(code):
    """A whole bot match announced in the language, every question answered, every refusal."""
    language = Language.load(code, parts=GAMES["sixty-six"].words)
    talk = GAMES["sixty-six"].talk(language)
    state = ss.new_game([FIRST[code], "Strong 2"], seed=7)
    bots = [make_bot("strong", 1), make_bot("greedy", 2)]
    said = talk.announce(ss.opening_events(state), state, [0]) + talk.deal_notice(state, [0])
    while not ss.is_over(state):
        said += [talk.answer(c, state, 0) for c in talk.commands]
        seat = ss.current_player(state)
        state, events = ss.apply(state, bots[seat].choose(ss.view(state, seat)))
        said += talk.announce(events, state, [0]) + talk.secret(events, state, [0])
    said += [language.phrases.refusal(c, suit="H", led_suit="D", trump_suit="S")
             for c in language.phrases.data["refusals"]
             if c not in ("below_zero", "not_in_hand", "value_needed", "no_value",
                          "rank_exhausted", "total_out_of_range")]
    said += [talk.rules(r, state) for r in ("A", "5")] + [talk.phrase(Intent(
        "move", name="marriage", suit="H")), talk.phrase(Intent("play", rank="Q"))]
    assert english_in(said, code) == []
    winner = state.players[state.match_winner]
    assert language.phrases.text("sixty_six.game_over", winner=winner) in said


@pytest.mark.parametrize("code", CODES)
def test_a_table_game_says_no_english_word(code):
    language = Language.load(code, parts=GAMES["doksan-table"].words)
    talk = GAMES["doksan-table"].talk(language)
    state = nn_table.new_game([FIRST[code], "Bob", "Cem"], seed=3)
    said = talk.announce(nn_table.opening_events(state), state, [])
    for rank in ("7", "K", "Q", "8", "3", "J", "4", "9", "9", "9", "9", "5", "6", "2", "A"):
        legal = [a for a in nn_table.legal_actions(state) if a.rank == rank]
        if legal and not nn_table.is_over(state):
            state, events = nn_table.apply(state, legal[-1])
            said += talk.announce(events, state, [])
    said += [talk.answer(c, state, 0) for c in talk.commands]
    said += [language.phrases.text(f"table.{k}", total=45, card="sekiz", cards=3, n=2,
                                   name="Bob", names="Ann, Bob", player="Bob", round=2,
                                   dealer="Bob", first="Cem", default="Cem", hint="",
                                   item="Bob", letters="B, O", rule="", rules="")
             for k in language.phrases.data["table"]]
    assert english_in(said, code) == []


# --------------------------------------------------------------------------- table, typed

TABLE_GAME = {
    # Ann 10 (ten minus at 0 refused first), Bob jack 20 (Cem skipped), Ann four 24 (the
    # direction turns), the table agrees on 30, Cem three 33, Bob eight 41 (out), taken
    # back: Bob king 43 (out all the same), Ann queen 53, the stock asked, Cem two doubles
    # to 106: out, Ann wins.
    "tr": ["on eksi", "on", "vale", "dört", "toplam otuz", "üç", "sekiz", "son kartı sil",
           "papaz", "kız", "kaç kart kaldı", "iki"],
    "es": ["diez menos", "diez", "jota", "cuatro", "el total es treinta", "tres", "ocho",
           "borra eso", "rey", "reina", "cuántas quedan", "dos"],
    "ar": ["عشرة ناقص", "عشرة", "ولد", "أربعة", "المجموع ثلاثون", "ثلاثة", "ثمانية",
           "امسحها", "ملك", "ملكة", "كم ورقة باقية", "اثنان"],
}
TABLE_SAYS = {
    "tr": ["1. el: Cem herkese üçer kart dağıtıyor; Ann başlıyor.", "Toplam artık 30.",
           "Geri alındı: toplam yine 33. Bob, yeniden oynayın.", "Oyun bitti. Oyunu Ann kazandı!"],
    "es": ["Ronda 1: Cem reparte tres cartas a cada uno; empieza Ann.", "Ahora el total es 30.",
           "Retirada: el total vuelve a 33. Bob, juega otra vez.", "¡Ann gana la partida!"],
    "ar": ["الجولة 1: التوزيع لـCem، ثلاث أوراق لكل لاعب؛ والبداية لـAnn.", "المجموع الآن 30.",
           "تم التراجع: المجموع 33 من جديد. Bob، الدور لك من جديد.", "الفائز: Ann!"],
}


@pytest.mark.parametrize("code", CODES)
def test_a_whole_doksan_table_game_typed(code, tmp_path):
    events = tmp_path / "events.jsonl"
    result = talking_cards("table", "--game", "doksan", "--lang", code, "--players",
                           "Ann,Bob,Cem", "--lives", "2", "--mute", "--events", str(events),
                           stdin="\n".join(TABLE_GAME[code]) + "\n")
    assert result.returncode == 0, result.stderr
    log = read_events(events)
    plays = [(e["player"], e["card"], e["total"]) for e in log if e["type"] == "play"]
    assert plays == [("Ann", "10", 10), ("Bob", "J", 20), ("Ann", "4", 24), ("Cem", "3", 33),
                     ("Bob", "8", 41), ("Bob", "K", 43), ("Ann", "Q", 53), ("Cem", "2", 106)]
    assert [e["reason"] for e in log if e["type"] == "rejected"] == ["below_zero"]
    assert log[-1] == {"type": "game_over", "winner": "Ann"}
    for line in TABLE_SAYS[code]:
        assert line in result.stdout
    assert english_in(result.stdout.splitlines(), code) == []


# --------------------------------------------------------------------------- by voice


# A person says the same words again differently: each repetition takes the next voice.
VOICES = (("", 160), ("+f3", 140), ("+m3", 185), ("+f2", 170))


def say_through(player, text: str, why: str, vocabulary, prompt, look_back: int):
    """``text`` spoken by an espeak-ng voice of the player's language into the recognizer;
    each time it was said in the last ``look_back`` utterances, by the next voice."""
    from voice.hear.listeners import WavFilesListener
    from voice.hear.segmenter import Segmenter
    again = sum(1 for said, _ in player.said[-look_back:] if said == text)
    player.said.append((text, why))
    voice, speed = VOICES[again % len(VOICES)]
    path = player.tmp_path / f"{len(player.said):03d}.wav"
    path.write_bytes(synthesize(text, voice=player.code + voice, speed=speed).read_bytes())
    return WavFilesListener([str(path)], Segmenter, player.recognizer).listen(vocabulary, prompt)


class SpeakingPlayer:
    """A player at the device who speaks: each turn the strong bot picks the move, espeak-ng
    says it in the language into a WAV file, and the file goes through the same WAV listener,
    segmenter and recognizer as ``--wav``. A read-back of the right move gets "yes", of a
    wrong one "no" (and the move is said again), as a person would answer; a card not
    understood twice is named by its rank alone, and its suit given if asked which."""

    live = False
    typed_only = False

    def __init__(self, code: str, recognizer, tmp_path, limit: int = 400) -> None:
        self.code, self.recognizer, self.tmp_path, self.limit = code, recognizer, tmp_path, limit
        self.session = None
        self.meant = None             # the intent of the last move said
        self.suit = None              # the suit of the card meant (asked "which one?")
        self.said = []                # (text, what it was said for)
        self.bot = make_bot("strong", 5)

    def listen(self, vocabulary, prompt):
        if len(self.said) >= self.limit:
            return None
        s, say = self.session, SAY[self.code]
        if s.pending_confirm is not None:
            right = s.pending_confirm in (self.meant, Intent("suit", suit=self.suit))
            why = "yes" if right else "no"
            text = say[why]
        elif s.pending_value is not None:   # "Which ace: hearts or spades?": the meant suit
            text, why = say["suit"][self.suit], "suit"
        else:
            seat = ss.current_player(s.state)
            text, self.meant = spoken_move(self.code, self.bot.choose(ss.view(s.state, seat)))
            self.suit, why = self.meant.suit, "move"
            if self.meant.kind == "play" and [x for x, _ in self.said[-4:]].count(text) >= 2:
                # twice not understood: the card by its rank alone ("the nine"), then its
                # suit if asked which
                text, self.meant = say["rank"][self.meant.rank], Intent("play",
                                                                         rank=self.meant.rank)
        return say_through(self, text, why, vocabulary, prompt, look_back=6)


def play_a_match_by_voice(code: str, tmp_path):
    from voice.hear.sphinx import SphinxRecognizer
    pytest.importorskip("pocketsphinx")
    language = Language.load(code, parts=GAMES["sixty-six"].words)
    talk = GAMES["sixty-six"].talk(language)
    seats = [Seat(FIRST[code]), Seat("Random 2", "random")]
    state = ss.new_game([s.name for s in seats], ss.Options(target=7), seed=21)
    player = SpeakingPlayer(code, SphinxRecognizer(language.sphinx_pronunciations), tmp_path)
    lines = []
    with open(tmp_path / "events.jsonl", "w") as events:
        session = Session(talk, ss, state, {1: BOTS["random"]}, player,
                          Speaker(muted=True, on_text=lines.append),
                          Recorder("sixty-six", seats, 3, events))
        player.session = session
        session.run(ss.opening_events(state))
    return session, player, lines, read_events(tmp_path / "events.jsonl")


MOVES = {"play": ss.Play, "marriage": ss.Marriage}


@needs_speech
@pytest.mark.parametrize("code", CODES)
def test_a_whole_sixty_six_match_by_voice_through_pocketsphinx(code, tmp_path):
    session, player, lines, log = play_a_match_by_voice(code, tmp_path)
    assert ss.is_over(session.state), (len(player.said), lines[-5:])
    assert log[-1] == {"type": "game_over", "winner": session.state.players[
        session.state.match_winner]}
    assert max(session.state.score) >= 7
    # nothing was ever played that the player did not mean: every read-back of a wrong
    # move got a "no", and the game refused nothing the player meant
    moves = [why for _, why in player.said if why == "move"]
    noes = [why for _, why in player.said if why == "no"]
    mine = [e for e in log if e.get("player") == FIRST[code] and e["type"] in (
        "play", "marriage", "exchange", "close", "claim", "play_on")]
    print(f"{code}: {len(moves)} moves said, {len(mine)} made, {len(noes)} read-backs "
          f"turned down, {len(player.said)} utterances")
    assert len(moves) - len(mine) <= len(moves) // 4 + len(noes)
    assert english_in(lines, code) == []


PRACTICE = {
    "tr": (["yedi", "on artı", "toplam", "üç", "iki ne yapar", "as bir"], "Alıştırma bitti."),
    "es": (["siete", "diez más", "total", "tres", "qué hace el dos", "as uno"],
           "Fin de la práctica."),
    "ar": (["سبعة", "عشرة زائد", "المجموع", "ثلاثة", "ماذا يفعل الاثنان", "آس واحد"],
           "انتهى التدريب."),
}


@pytest.mark.parametrize("code", CODES)
def test_the_practice_round_typed_in_each_language(code):
    typed, done = PRACTICE[code]
    result = talking_cards("practice", "--lang", code, "--input", "keyboard", "--mute",
                           stdin="\n".join(typed) + "\n")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1].startswith(done) and not any(
        line.startswith(("Tam olmadı", "No del todo", "ليس تمامًا")) for line in lines)
    assert english_in(lines, code) == []


# --------------------------------------------------------------------------- Sixty-Six table

# One hand at a real table, the same moves in each language: Bob (dealer) tries to close
# before the trump card is said, says the jack of hearts; Ayşe names the face-up jack
# (refused), leads the ace of spades, exchanges the trump nine, leads the ten of spades and
# takes it back, leads it again; the questions (trump, table, stock, points: secret without
# --assist, and the tricks); the marriage in diamonds with the queen led; the close; Bob's nine of clubs
# undone right after it and said again; the score; Ayşe claims with 71; help, my cards.
SIXTY_SIX_TABLE_HAND = {
    "en": ["close", "trump is the jack of hearts", "jack of hearts", "ace of spades",
           "nine of spades", "exchange", "ten of spades", "take it back", "ten of spades",
           "king of spades", "trump", "table", "cards left", "points", "my tricks", "marriage in diamonds",
           "queen", "nine of diamonds", "close", "ace of clubs", "jack of clubs", "last trick",
           "ten of clubs", "nine of clubs", "undo", "nine of clubs", "what is the score",
           "sixty six", "help", "my cards"],
    "tr": ["kapat", "koz kupa vale", "kupa vale", "maça as", "maça dokuz", "dokuzu değiştir",
           "maça on", "son kartı sil", "maça on", "maça papaz", "koz ne", "yerde ne var",
           "kaç kart kaldı", "puanım", "aldığım eller", "karo evlenme", "kız", "karo dokuz", "oyun kapandı",
           "sinek as", "sinek vale", "son el", "sinek on", "sinek dokuz", "geri al",
           "sinek dokuzu", "skor", "altmış altı", "yardım", "kartlarım"],
    "es": ["cierro", "triunfo jota de corazones", "jota de corazones", "as de picas",
           "nueve de picas", "cambio el nueve", "diez de picas", "borra eso", "diez de picas",
           "rey de picas", "triunfo", "qué hay en la mesa", "cuántas quedan", "mis puntos", "mis bazas",
           "canto en diamantes", "reina", "nueve de diamantes", "cierro", "as de tréboles",
           "jota de tréboles", "última baza", "diez de tréboles", "nueve de tréboles",
           "deshacer", "el nueve de tréboles", "marcador", "sesenta y seis", "ayuda",
           "mis cartas"],
    "ar": ["سكر", "الطرنيب ولد كبة", "ولد كبة", "آس بستوني", "تسعة بستوني", "تبديل",
           "عشرة بستوني", "امسحها", "عشرة بستوني", "شايب بستوني", "الطرنيب", "على الطاولة",
           "كم ورقة باقية", "نقاطي", "أكلاتي", "زواج ديناري", "بنت", "تسعة ديناري", "سكر", "آس سباتي",
           "ولد سباتي", "آخر أكلة", "عشرة سباتي", "تسعة سباتي", "تراجع", "تسعة السباتي",
           "النتيجة", "ستة وستين", "مساعدة", "أوراقي"],
}
SIXTY_SIX_TABLE_SAYS = {
    "tr": ["1. tur: Bob altışar kart dağıtıp kozu açıyor; ilk kartı Ayşe atacak. Bob, açılan "
           "kozu söyleyin, kupa dokuz gibi.",
           "Bu yapılamaz: önce Bob açılan kozu söylemeli.",
           "Koz kupa: kupa vale, 12 kartlık destenin altında açık duruyor.",
           "Bu yapılamaz: kupa vale destenin altında açık duruyor.",
           "Önce Ayşe, sonra Bob çekiyor. Destede 10 kart kaldı.",
           "Geri alındı. Ayşe, yeniden söyleyin.",
           "Destede 8 kart kaldı, açık duran kupa dokuz dahil.",
           "Kart puanlarını siz sayıyorsunuz: turun sonunda söylenir",
           "Hangi kart atılıyor: karo papaz mı, karo kız mı?",
           "Ayşe 71 puanla altmış altı diyor: doğru.",
           "Kartlar sizin elinizde: ben yalnızca oynananı ve gösterileni görüyorum."],
    "es": ["Mano 1: Bob reparte seis cartas a cada uno y vuelve la muestra; sale Ayşe. Bob, di "
           "la muestra, como nueve de corazones.",
           "No puedes hacer eso: primero Bob dice la muestra.",
           "Triunfo: corazones. La muestra, jota de corazones, queda boca arriba bajo el mazo "
           "de 12 cartas.",
           "No puedes hacer eso: esa carta, jota de corazones, está de muestra bajo el mazo.",
           "Roba primero Ayşe, luego Bob. Quedan 10 cartas en el mazo.",
           "Retirada la última jugada. Ayşe, otra vez.",
           "Quedan 8 cartas en el mazo, con la muestra: nueve de corazones.",
           "Los puntos de las cartas los contáis vosotros: se dicen al final de la mano",
           "El cante en diamantes: ¿qué carta sale, el rey o la reina?",
           "Ayşe canta sesenta y seis con 71 puntos: correcto.",
           "Las cartas están en vuestras manos: solo veo lo que se juega y se enseña."],
    "ar": ["الجولة 1: التوزيع لـBob، ست أوراق لكل لاعب ثم كشف ورقة الطرنيب؛ والبداية لـAyşe. "
           "المطلوب من Bob ذكر ورقة الطرنيب، مثل تسعة الكبة.",
           "هذا غير ممكن: المطلوب أولًا من Bob ذكر ورقة الطرنيب المكشوفة.",
           "الطرنيب الكبة: الورقة المكشوفة تحت الرزمة ولد الكبة، وفي الرزمة 12 ورقة.",
           "هذا غير ممكن: ورقة ولد الكبة مكشوفة تحت الرزمة.",
           "السحب أولًا لـAyşe، ثم لـBob. الأوراق الباقية في الرزمة: 10.",
           "تم التراجع. Ayşe، الدور لك من جديد.",
           "في الرزمة 8 أوراق، مع الورقة المكشوفة: تسعة الكبة.",
           "نقاط الأوراق يعدّها اللاعبون: تُعلن في آخر الجولة",
           "الزواج في الديناري: أي ورقة تُلعب، الملك أم الملكة؟",
           "Ayşe: إعلان ستة وستين، والمجموع 71: صحيح.",
           "الأوراق في أيديكم: لا أرى إلا ما يُلعب ويُكشف."],
}


def sixty_six_table_run(code: str, path, *options: str):
    result = talking_cards("table", "--game", "sixty-six", "--lang", code, "--players",
                           "Ayşe,Bob", "--mute", "--events", str(path), *options,
                           stdin="\n".join(SIXTY_SIX_TABLE_HAND[code]) + "\n")
    assert result.returncode == 0, result.stderr
    return result.stdout, [{k: v for k, v in e.items() if k != "input"}
                           for e in read_events(path)]


@pytest.fixture(scope="module")
def english_table_hand(tmp_path_factory):
    return sixty_six_table_run("en", tmp_path_factory.mktemp("en") / "events.jsonl")


@pytest.mark.parametrize("code", CODES)
def test_a_sixty_six_table_hand_typed_is_refereed_as_in_english(code, tmp_path,
                                                                english_table_hand):
    out, log = sixty_six_table_run(code, tmp_path / "events.jsonl")
    assert log == english_table_hand[1]   # the same events, refusals and undo included
    assert [(e["player"], e["reason"]) for e in log if e["type"] == "rejected"] == [
        ("Bob", "trump_first"), ("Ayşe", "card_face_up")]
    assert [e["type"] for e in log if e["type"] in ("undo", "taken_back")] == [
        "taken_back", "undo"]
    assert {"type": "exchange", "player": "Ayşe", "card": "JH"} in log
    assert [e for e in log if e["type"] == "hand_end"] == [
        {"type": "hand_end", "winner": "Ayşe", "game_points": 3,
         "score": {"Ayşe": 3, "Bob": 0}, "reason": "claim",
         "points": {"Ayşe": 71, "Bob": 0}, "last_trick_bonus": None}]
    for line in SIXTY_SIX_TABLE_SAYS[code]:
        assert line in out
    assert english_in(out.splitlines(), code) == []


SIXTY_SIX_TABLE_ASSIST = {
    "tr": ["Eli Ayşe aldı: maça as ve maça dokuz, Ayşe'ye 11 puan.",
           "Kart puanları: Ayşe 11 puan ve Bob 0 puan.",
           "Kart puanları: Ayşe 25 puan ve Bob 0 puan.",
           "Alınan eller: Ayşe 2 el ve Bob 0 el.",
           "Ayşe karo evlenmesini gösteriyor: 20 puan."],
    "es": ["Baza para Ayşe: as de picas y nueve de picas, 11 puntos.",
           "Puntos de las cartas: Ayşe 11 puntos y Bob 0 puntos.",
           "Puntos de las cartas: Ayşe 25 puntos y Bob 0 puntos.",
           "Bazas: Ayşe 2 bazas y Bob 0 bazas."],
    "ar": ["الأكلة لـAyşe: آس البستوني وتسعة البستوني، 11 نقطة.",
           "نقاط الأوراق: لـAyşe 11 نقطة ولـBob لا نقاط.",
           "نقاط الأوراق: لـAyşe 25 نقطة ولـBob لا نقاط.",
           "الأكلات: لـAyşe أكلتان ولـBob لا أكلات."],
}


@pytest.mark.parametrize("code", CODES)
def test_assist_tells_the_card_points_in_each_language(code, tmp_path, english_table_hand):
    out, log = sixty_six_table_run(code, tmp_path / "events.jsonl", "--assist")
    assert log == english_table_hand[1]
    for line in SIXTY_SIX_TABLE_ASSIST[code]:
        assert line in out
    assert english_in(out.splitlines(), code) == []


@pytest.mark.parametrize("code,texts", [
    ("tr", ["koz kupa dokuz", "KOZ KUPA DOKUZU", "koz 9h", "koz kupa 9", "kozu kupa dokuz",
            "açık koz kupa dokuz"]),
    ("es", ["triunfo nueve de corazones", "El triunfo es el nueve de corazones",
            "triunfo 9h", "muestra nueve de corazones", "pinta nueve de copas"]),
    ("ar", ["الطرنيب تسعة كبة", "الطَّرْنيبْ تِسْعَه كُبَّه", "الطرنيب تسعة الكبة",
            "طرنيب تسعة قلوب", "الحكم تسعة كبة", "الطرنيب 9h"]),
])
def test_the_trump_card_is_said_with_and_without_diacritics(code, texts):
    grammar = Language.load(code, parts=GAMES["sixty-six-table"].words).grammar
    assert [grammar.parse(t) for t in texts] == [
        Intent("move", name="trump_card", rank="9", suit="H")] * len(texts)


@pytest.mark.parametrize("code", CODES)
def test_every_sixty_six_table_sentence_says_no_english_word(code):
    language = Language.load(code, parts=GAMES["sixty-six-table"].words)
    p = language.phrases
    fields = dict(hand=2, dealer="Bob", leader="Cem", suit=p.data["suit"]["H"],
                  card=p.card("9H"), winner="Bob", other="Cem", cards=4, items="Bob 3",
                  player="Bob", points=p.count(3, p.data["sixty_six"]["points_unit"]),
                  marriage=p.count(20, p.data["sixty_six"]["points_unit"]), rank=p.rank("Q"))
    said = [p.text(f"sixty_six_table.{key}", **fields) for key in p.data["sixty_six_table"]]
    table_codes = json.loads((LANG_DIR / "en" / "phrases.sixty_six_table.json").read_text(
        "utf-8"))["refusals"]
    said += [p.refusal(c, card="9H", player="Bob", dealer="Bob") for c in table_codes]
    assert english_in(said, code) == []
    assert not any("{" in line for line in said)


# Said at a real table in each language: the trump card at the deal ("koz kupa dokuz"), each
# card as it is played, a play taken back and said again, the marriage in diamonds with the
# queen led, and the claim: the English spoken hand (test_sixty_six_table.py) and its take-back.
TRUMP_SAID = {"tr": "koz {card}", "es": "triunfo {card}", "ar": "الطَّرْنيبْ {card}"}
TAKE_BACK_SAID = {"tr": "son kartı sil", "es": "borra eso", "ar": "اِمْسَحْها"}
SPOKEN_TABLE_HAND = ["trump 9H", "AS", "take_back", "AS", "9S", "10S", "JS", "AC", "9C",
                     "marriage D", "Q", "9D", "10C", "JC", "claim"]


class TableSpeaker:
    """The two players at a real table, speaking a script of moves: espeak-ng says each in
    the language into a WAV file, heard through the WAV listener, segmenter and recognizer as
    with ``--wav``. A read-back of the move meant gets "yes", of another one "no"; a move not
    taken (not understood, or turned down) is said again in the next voice, and the card led
    after a marriage, said by its rank, is named whole once the rank was not taken twice."""

    live = False
    typed_only = False

    def __init__(self, code: str, recognizer, tmp_path, limit: int = 80) -> None:
        self.code, self.recognizer, self.tmp_path, self.limit = code, recognizer, tmp_path, limit
        self.grammar = Language.load(code, parts=GAMES["sixty-six-table"].words).grammar
        self.session = None
        self.step, self.mark = 0, None
        self.said = []                # (text, what it was said for)
        self.heard = []               # the moves read back

    def move(self, step: str) -> tuple:
        """(what is said, the intents it may be read back as) for a step of the script."""
        say = SAY[self.code]
        card = lambda c: say["card"].format(rank=say["rank"][c[:-1]], suit=say["suit"][c[-1]])
        name, _, arg = step.partition(" ")
        if name == "trump":
            text = TRUMP_SAID[self.code].format(card=card(arg))
            return text, (self.grammar.parse(text), self.grammar.parse(card(arg)))
        if name == "marriage":
            text = say["marriage"].format(suit=say["suit"][arg])
        elif name in ("claim", "take_back"):
            text = say["claim"] if name == "claim" else TAKE_BACK_SAID[self.code]
        elif name in say["rank"]:   # the card led after the marriage: its rank, or its card
            alone = say["rank"][name]   # once the rank alone was not taken twice
            whole = card(name + SPOKEN_TABLE_HAND[self.step - 1][-1])
            text = whole if [x for x, _ in self.said[-6:]].count(alone) >= 2 else alone
            return text, (self.grammar.parse(alone), self.grammar.parse(whole))
        else:
            text = card(name)
        return text, (self.grammar.parse(text),)

    def taken(self, before) -> bool:
        """Has the current step happened: its move made, or the marriage's card asked for?"""
        s, (name, _, suit) = self.session, SPOKEN_TABLE_HAND[self.step].partition(" ")
        if name == "marriage":
            return s.pending_value == Intent("move", name="marriage", suit=suit)
        return s.state is not before

    def listen(self, vocabulary, prompt):
        s = self.session
        if self.mark is not None and self.taken(self.mark):
            self.step, self.mark = self.step + 1, None
        if len(self.said) >= self.limit or self.step == len(SPOKEN_TABLE_HAND):
            return None
        text, meant = self.move(SPOKEN_TABLE_HAND[self.step])
        if s.pending_confirm is not None:
            why = "yes" if s.pending_confirm in meant else "no"
            self.heard.append(s.pending_confirm)
            text = SAY[self.code][why]
        else:
            why, self.mark = "move", s.state
        return say_through(self, text, why, vocabulary, prompt, look_back=8)


@needs_speech
@pytest.mark.parametrize("code", CODES)
def test_a_sixty_six_table_hand_by_voice_through_pocketsphinx(code, tmp_path):
    from engine import sixty_six_table as table
    from voice.hear.sphinx import SphinxRecognizer
    pytest.importorskip("pocketsphinx")
    language = Language.load(code, parts=GAMES["sixty-six-table"].words)
    talk = GAMES["sixty-six-table"].talk(language, strict_memory=True)
    seats = [Seat("Ayşe"), Seat("Bob")]
    state = table.new_game([s.name for s in seats], ss.Options())
    player = TableSpeaker(code, SphinxRecognizer(language.sphinx_pronunciations), tmp_path)
    lines = []
    with open(tmp_path / "events.jsonl", "w") as events:
        session = Session(talk, table, state, {}, player,
                          Speaker(muted=True, on_text=lines.append),
                          Recorder("sixty-six-table", seats, 3, events))
        player.session = session
        session.run(table.opening_events(state))
    log = read_events(tmp_path / "events.jsonl")
    moves = [why for _, why in player.said if why == "move"]
    print(f"{code}: {len(SPOKEN_TABLE_HAND)} moves, said {len(moves)} times, "
          f"{sum(why == 'no' for _, why in player.said)} read-backs turned down, "
          f"{len(player.said)} utterances")
    assert [e["trump_card"] for e in log if e["type"] == "deal"] == ["9H"]
    assert [e["card"] for e in log if e["type"] == "play"] == [
        "AS", "AS", "9S", "10S", "JS", "AC", "9C", "QD", "9D", "10C", "JC"]
    assert [e["type"] for e in log if e["type"] in ("taken_back", "marriage", "claim")] == [
        "taken_back", "marriage", "claim"]
    assert [e for e in log if e["type"] == "hand_end"][0]["game_points"] == 3
    assert len(moves) <= 2 * len(SPOKEN_TABLE_HAND)
    assert english_in(lines, code) == []
