"""Shared fixtures: ``virtual_audio``, a private PulseAudio sound card (tests/virtual_audio.py)."""
from virtual_audio import virtual_audio  # noqa: F401
