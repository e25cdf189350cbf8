"""Keep native libraries' raw lines (ALSA, PortAudio, JACK) out of the player's terminal.

C libraries write their warnings straight to file descriptor 2, where a screen reader reads
every one ("ALSA lib pcm.c:2664: Unknown PCM cards.pcm.rear", ...). During a game, fd 2 goes
to a log file in the user's log folder (platformdirs); Python's own messages, one plain
sentence per fault, still reach the terminal through a copy of the original stream.
"""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Iterator, Optional


def log_path() -> Optional[Path]:
    try:
        import platformdirs
        folder = Path(platformdirs.user_log_dir("talking-cards", appauthor=False))
        folder.mkdir(parents=True, exist_ok=True)
        return folder / "native.log"
    except (ImportError, OSError):
        return None


@contextlib.contextmanager
def native_output_to_log() -> Iterator[Optional[Path]]:
    """While inside, fd 2 writes to the log (or nowhere); ``sys.stderr`` to the terminal."""
    path = log_path()
    try:
        sink = os.open(str(path) if path else os.devnull,
                       os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        terminal = os.dup(2)
    except OSError:
        yield None
        return
    sys.stderr.flush()
    saved_stderr = sys.stderr
    sys.stderr = os.fdopen(terminal, "w", buffering=1, encoding=saved_stderr.encoding,
                           errors="backslashreplace", closefd=False)
    os.dup2(sink, 2)
    os.close(sink)
    try:
        yield path
    finally:
        sys.stderr.flush()
        os.dup2(terminal, 2)
        os.close(terminal)
        sys.stderr = saved_stderr
