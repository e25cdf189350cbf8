"""Talking Cards game engine: pure rules and bots, no I/O, deterministic from a seed.

Every game module exposes the same small API (in the spirit of OpenSpiel):
``new_game(...) -> State``, ``legal_actions(state)``, ``apply(state, action) -> (state, events)``,
``is_over(state)``, ``view(state, seat)`` (what one seat may see), and JSON save/resume.
"""
