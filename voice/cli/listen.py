"""talking-cards listen: WAV files through the same audio path and understanding as a game.

Prints, per file, what was heard and the action it means (null when rejected), with
"confirm": true when a game would ask before applying it. The vocabulary is the game's own:
every phrase its talk adapter allows for the cards in hand (any value), and its questions.
"""
from __future__ import annotations

import argparse
import json
from typing import Dict, Optional

from engine.cards import RANKS, parse_cards, rank_of
from voice.errors import RecognizerError, UserError
from voice.games import find_game
from voice.games.spec import SHARED_COMMANDS
from voice.cli.options import profile_paths
from voice.hear.choose import make_recognizer, read_profiles, with_profiles
from voice.hear.listeners import WavFilesListener
from voice.hear.recognizer import ACCEPT, CONFIRM
from voice.hear.segmenter import Segmenter
from voice.lang import Language
from voice.understand.grammar import Intent


def action_json(intent: Optional[Intent]) -> Optional[Dict]:
    if intent is None:
        return None
    if intent.kind in ("play", "value"):
        out = {"type": "play", "rank": intent.rank, "value": intent.value}
        if intent.suit:
            out["suit"] = intent.suit
        return out
    if intent.kind == "rules":
        return {"type": "rules", "rank": intent.rank}
    if intent.kind in ("move", "suit"):
        return {"type": intent.kind, "name": intent.name, "suit": intent.suit}
    return {"type": "command", "name": intent.name}


def listen_files(args: argparse.Namespace) -> int:
    try:
        spec = find_game(args.game)
        language = Language.load(args.lang, parts=spec.words)
        ranks = {rank_of(c) for c in parse_cards(args.hand)} if args.hand else set(RANKS)
        recognizer, notice = make_recognizer(language, args.backend, args.model)
    except (ValueError, RecognizerError) as exc:
        raise UserError(str(exc)) from None
    if args.profile:
        profiles = read_profiles(profile_paths(args.profile), language)
        recognizer = with_profiles(recognizer, profiles, language)
    if notice and not args.json:
        print(notice)
    talk = spec.talk(language)

    def allowed(intent: Intent) -> bool:
        """The game's card phrases for the ranks in hand (any value), moves, and questions."""
        if intent.kind == "command":
            return intent.name in talk.commands or intent.name in SHARED_COMMANDS
        if intent.kind == "rules":
            return True
        if intent.kind == "play":
            return intent.rank in ranks and talk.speaks(intent)
        return intent.kind == "move" and talk.speaks(intent)

    vocabulary = language.grammar.vocabulary(allowed)
    code = 0
    for path in args.files:
        try:
            heard = WavFilesListener([path], Segmenter, recognizer).listen(vocabulary, "")
        except Exception as exc:  # an unreadable file: say which, go on with the others
            print(json.dumps({"file": path, "error": str(exc)}) if args.json
                  else f"{path}: {exc}")
            code = 1
            continue
        intent = language.grammar.parse(heard.text) if heard.verdict in (ACCEPT, CONFIRM) else None
        result = {"file": path, "text": heard.text, "action": action_json(intent)}
        move = intent is not None and intent.kind not in ("command", "rules")
        if move and (heard.verdict == CONFIRM
                     or (language.confirm_every_move and not heard.vouched)):
            result["confirm"] = True
        if args.json:
            print(json.dumps(result))
        else:
            action = result["action"]
            said = "rejected" if action is None else json.dumps(action)
            extra = " (would confirm)" if result.get("confirm") else ""
            print(f"{path}: heard {heard.text!r} -> {said}{extra}")
    return code
