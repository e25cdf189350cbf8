"""talking-cards listen: WAV files through the same audio path and understanding as a game.

Prints, per file, what was heard and the action it means (null when rejected), with
"confirm": true when a game would ask before applying it.
"""
from __future__ import annotations

import argparse
import json
from typing import Dict, Optional

from engine.cards import RANKS, parse_cards, rank_of

from .errors import UserError
from .recognition import ACCEPT, CONFIRM, RecognizerError
from .understanding import Grammar, Intent


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
    return {"type": "command", "name": intent.name}


def listen_files(args: argparse.Namespace) -> int:
    from .backends import make_recognizer
    from .listener import WavFilesListener
    from .segmenter import Segmenter
    try:
        grammar = Grammar.load(args.lang)
        ranks = {rank_of(c) for c in parse_cards(args.hand)} if args.hand else set(RANKS)
        recognizer, notice = make_recognizer(args.lang, args.backend, args.model)
    except (ValueError, RecognizerError) as exc:
        raise UserError(str(exc)) from None
    if notice and not args.json:
        print(notice)
    suited = args.game == "sixty-six"

    def allowed(intent: Intent) -> bool:
        """A game's phrases for the cards in hand (any value), and every question."""
        if intent.kind != "play":
            return intent.kind in ("command", "rules")
        if intent.rank not in ranks:
            return False
        return intent.value is None if suited else intent.suit is None

    vocabulary = grammar.vocabulary(allowed)
    code = 0
    for path in args.files:
        try:
            heard = WavFilesListener([path], Segmenter, recognizer).listen(vocabulary, "")
        except Exception as exc:  # an unreadable file: say which, go on with the others
            print(json.dumps({"file": path, "error": str(exc)}) if args.json
                  else f"{path}: {exc}")
            code = 1
            continue
        intent = grammar.parse(heard.text) if heard.verdict in (ACCEPT, CONFIRM) else None
        result = {"file": path, "text": heard.text, "action": action_json(intent)}
        if intent is not None and heard.verdict == CONFIRM:
            result["confirm"] = True
        if args.json:
            print(json.dumps(result))
        else:
            action = result["action"]
            said = "rejected" if action is None else json.dumps(action)
            extra = " (would confirm)" if result.get("confirm") else ""
            print(f"{path}: heard {heard.text!r} -> {said}{extra}")
    return code
