"""Talking Cards game engine: pure rules and bots, no I/O, no language, deterministic from a seed.

Every rules module meets the protocol written in ``engine/api.py`` (in the spirit of
OpenSpiel): ``new_game``, ``current_player``, ``legal_actions``, ``check``,
``apply(state, action) -> (state, events)``, ``is_over``, ``winner``, ``view(state, seat)``
(what one seat may see) and JSON save/resume; refusals are ``IllegalAction(code, **fields)``.
"""
