"""The layers of the code, as written in pyproject.toml's [tool.importlinter] contracts:
the engine is pure, hearing and speaking are independent, languages are data, the dialog
names no game, nothing imports the command line, no import circle."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_import_contract_is_kept():
    lint = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    result = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
