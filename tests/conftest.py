"""Shared fixtures: ``virtual_audio``, a private PulseAudio sound card (tests/virtual_audio.py)."""
from virtual_audio import virtual_audio  # noqa: F401

import atexit
import os
import shutil
import tempfile

# Every run of the program from the tests keeps its settings in a folder of its own, never in
# the real home (set at import, so even module-level copies of the environment have it;
# tests that look at settings name their own folder).
_CONFIG = tempfile.mkdtemp(prefix="talking-cards-config-")
os.environ["TALKING_CARDS_CONFIG"] = _CONFIG
atexit.register(shutil.rmtree, _CONFIG, True)
