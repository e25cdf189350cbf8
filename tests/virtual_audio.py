"""A real virtual sound card for tests: a private PulseAudio daemon with a null sink.

Whatever is played to the sink "virtual_speaker" comes out of its monitor source, which is
the default input; ALSA's pulse plugin (libasound2-plugins, a dependency of pulseaudio)
routes ALSA's "default" device to the daemon, so PortAudio, and with it sounddevice, really
plays and captures through it.  Nothing is mocked: the microphone code opens a real input
stream and receives the samples the daemon mixes.

    with VirtualAudio() as audio:          # or the ``virtual_audio`` pytest fixture
        audio.play_wav(path)               # into the sink, at real-time pace (paplay)
        with audio.recorder() as rec: ...  # what reached the sink (parec on the monitor)

The daemon gets its own runtime directory, so it never touches a user's sound server, and
it works as root (the CI runs as root).  While it runs, PULSE_SERVER points at it and
PortAudio is re-initialized so it sees the device; ``stop()`` undoes both.
"""
from __future__ import annotations

import os
import select
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

import numpy as np
import pytest

SINK = "virtual_speaker"
SINK_RATE = 48000
_START_TIMEOUT_S = 10.0


class VirtualAudioUnavailable(RuntimeError):
    """The virtual device cannot run here: the reason, for a pytest skip message."""


def refresh_portaudio() -> None:
    """Make PortAudio enumerate devices again (it only does so when initialized)."""
    import sounddevice as sd
    sd._terminate()
    sd._initialize()


class VirtualAudio:
    def __init__(self) -> None:
        for tool in ("pulseaudio", "pactl", "paplay", "parec", "pacat"):
            if shutil.which(tool) is None:
                raise VirtualAudioUnavailable(
                    "%s is not installed (apt packages pulseaudio and pulseaudio-utils)." % tool)
        self.dir = Path(tempfile.mkdtemp(prefix="talking-cards-pulse-"))
        self.runtime = self.dir / "run"
        self.server = "unix:%s" % (self.runtime / "native")
        self._saved_env = {k: os.environ.get(k) for k in ("PULSE_SERVER", "PULSE_RUNTIME_PATH")}
        self._daemon: Optional[subprocess.Popen] = None
        self._keepalive: Optional[subprocess.Popen] = None
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    # -- lifecycle

    def _start(self) -> None:
        for sub in ("run", "home", "config", "state"):
            (self.dir / sub).mkdir()
        daemon_env = dict(os.environ, HOME=str(self.dir / "home"),
                          XDG_CONFIG_HOME=str(self.dir / "config"),
                          XDG_RUNTIME_DIR=str(self.dir / "run"),
                          PULSE_RUNTIME_PATH=str(self.runtime),
                          PULSE_STATE_PATH=str(self.dir / "state"))
        daemon_env.pop("PULSE_SERVER", None)
        self._log = open(self.dir / "pulseaudio.log", "wb")
        # -n: no default.pa (no hardware detection, no suspend-on-idle); as root a per-user
        # daemon only warns.  The null sink is the one and only (so default) sink.
        self._daemon = subprocess.Popen(
            ["pulseaudio", "--daemonize=no", "--system=false", "--exit-idle-time=-1",
             "--use-pid-file=no", "--disallow-exit", "--disable-shm", "-n",
             "--log-target=stderr",
             "--log-level=error",
             "--load=module-native-protocol-unix",
             "--load=module-null-sink sink_name=%s rate=%d channels=1 "
             "sink_properties=device.description=Virtual_speaker" % (SINK, SINK_RATE)],
            env=daemon_env, stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log)
        deadline = time.monotonic() + _START_TIMEOUT_S
        while self._pactl("info").returncode != 0:
            if self._daemon.poll() is not None or time.monotonic() > deadline:
                raise VirtualAudioUnavailable("The PulseAudio daemon could not start: %s"
                                              % self.log().strip()[-400:])
            time.sleep(0.05)
        self._pactl("set-default-sink", SINK)
        self._pactl("set-default-source", SINK + ".monitor")
        # An idle null sink renders in blocks of up to 2 s, so a capture would start up to
        # 2 s late; a constant low-latency stream of zeros keeps it ticking like a sound card.
        self._keepalive = subprocess.Popen(
            ["pacat", "--playback", "--raw", "--format=s16le", "--rate=%d" % SINK_RATE,
             "--channels=1", "--latency-msec=20", "--device=" + SINK, "/dev/zero"],
            env=self.client_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        self._wait_until_ticking()
        os.environ["PULSE_SERVER"] = self.server
        os.environ["PULSE_RUNTIME_PATH"] = str(self.runtime)
        refresh_portaudio()
        import sounddevice as sd
        if sd.default.device[0] < 0 or sd.default.device[1] < 0:
            raise VirtualAudioUnavailable(
                "PortAudio does not see the PulseAudio device; ALSA's pulse plugin "
                "(apt package libasound2-plugins) is missing.")

    def _wait_until_ticking(self) -> None:
        """Wait for the sink's first low-latency block: until then (up to 2 s after the
        daemon starts) the first stream played or recorded would stall."""
        probe = subprocess.Popen(["parec", "--raw", "--latency-msec=10",
                                  "--device=%s.monitor" % SINK],
                                 env=self.client_env(), stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL)
        try:
            if not select.select([probe.stdout], [], [], _START_TIMEOUT_S)[0]:
                raise VirtualAudioUnavailable("The virtual sound card delivers no audio.")
        finally:
            probe.kill()
            probe.communicate()

    def stop(self) -> None:
        """Stop the daemon, restore the environment, let PortAudio forget the device."""
        for proc in (self._keepalive, self._daemon):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=5.0)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self._keepalive = self._daemon = None
        for key, value in self._saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        try:
            refresh_portaudio()
        except (ImportError, OSError):
            pass
        if getattr(self, "_log", None) is not None:
            self._log.close()
            self._log = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def kill_daemon(self) -> None:
        """Take the sound server away abruptly, as when a USB headset is pulled out."""
        if self._daemon is not None:
            self._daemon.kill()
            self._daemon.wait()

    def __enter__(self) -> "VirtualAudio":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- use

    def client_env(self) -> dict:
        return dict(os.environ, PULSE_SERVER=self.server, PULSE_RUNTIME_PATH=str(self.runtime))

    def log(self) -> str:
        try:
            return (self.dir / "pulseaudio.log").read_text(errors="replace")
        except OSError:
            return ""

    def play_wav(self, path, wait: bool = True) -> subprocess.Popen:
        """Play a WAV file into the virtual speaker at real-time pace."""
        # A 100 ms buffer: with 20 ms a busy machine can starve paplay, and the sink then
        # slips silence into the middle of the speech.
        proc = subprocess.Popen(["paplay", "--device=" + SINK, "--latency-msec=100", str(path)],
                                env=self.client_env(), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        if wait:
            _, err = proc.communicate(timeout=60)
            if proc.returncode != 0:
                raise RuntimeError("paplay failed: %s" % err.decode(errors="replace"))
        return proc

    @contextmanager
    def recorder(self, rate: int = SINK_RATE) -> Iterator["Recording"]:
        """Capture what reaches the virtual speaker (its monitor), independently of sounddevice."""
        recording = Recording(rate)
        # Into a file, not a pipe: an unread pipe fills after 2 s and parec stalls.
        with tempfile.TemporaryFile(dir=str(self.dir)) as sink:
            proc = subprocess.Popen(
                ["parec", "--raw", "--format=s16le", "--rate=%d" % rate, "--channels=1",
                 "--latency-msec=10", "--device=%s.monitor" % SINK],
                env=self.client_env(), stdout=sink, stderr=subprocess.DEVNULL)
            try:
                yield recording
            finally:
                time.sleep(0.1)
                proc.terminate()
                proc.wait(timeout=10)
                sink.seek(0)
                raw = sink.read()
                recording.pcm = np.frombuffer(raw[: len(raw) // 2 * 2], dtype="<i2").copy()

    @contextmanager
    def headphones(self, name: str = "virtual_headphones") -> Iterator["LiveCapture"]:
        """A second sink that the microphone (the first sink's monitor) cannot hear, as
        headphones are; yields its live capture, whose ``env`` makes a program play to it."""
        loaded = self._pactl("load-module", "module-null-sink", "sink_name=" + name,
                             "rate=%d" % SINK_RATE, "channels=1")
        if loaded.returncode != 0:
            raise RuntimeError("pactl load-module failed: %s" % loaded.stderr.decode())
        keepalive = subprocess.Popen(   # ticking like a sound card, as the first sink
            ["pacat", "--playback", "--raw", "--format=s16le", "--rate=%d" % SINK_RATE,
             "--channels=1", "--latency-msec=20", "--device=" + name, "/dev/zero"],
            env=self.client_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        capture = LiveCapture(name, self.client_env(), str(self.dir))
        try:
            yield capture
        finally:
            capture.close()
            keepalive.terminate()
            keepalive.wait(timeout=10)
            self._pactl("unload-module", loaded.stdout.decode().strip())

    def _pactl(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["pactl", "--server", self.server] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10)


class Recording:
    """Samples captured by ``VirtualAudio.recorder`` (filled in when the block ends)."""

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self.pcm = np.zeros(0, dtype=np.int16)


def frame_levels_db(pcm: np.ndarray, rate: int, frame_s: float = 0.02) -> np.ndarray:
    """RMS level of each frame in dB full scale (-120 for digital silence)."""
    frame = max(1, int(rate * frame_s))
    n = len(pcm) // frame
    x = np.asarray(pcm[: n * frame], dtype=np.float64).reshape(n, frame)
    rms = np.sqrt(np.mean(x * x, axis=1))
    return 20.0 * np.log10(np.maximum(rms, 1e-6) / 32768.0)


@pytest.fixture(scope="module")
def virtual_audio() -> Iterator[VirtualAudio]:
    """A running virtual sound card for the tests of one module."""
    try:
        audio = VirtualAudio()
    except VirtualAudioUnavailable as exc:
        pytest.skip("No virtual sound card: %s" % exc)
    try:
        yield audio
    finally:
        audio.stop()



class LiveCapture:
    """What reaches a sink, read while it plays: when sound starts and when it stops.

    Times are ``time.monotonic()`` values: the last sample captured is taken as "now" (the
    capture runs 10 ms behind), since a capture starts a moment after it is asked for."""

    RATE, FRAME_S, LOUD_DB = 16000, 0.05, -45.0

    def __init__(self, sink: str, client_env: dict, folder: str) -> None:
        self.env = dict(client_env, PULSE_SINK=sink)   # for the program that plays to it
        self._file = tempfile.NamedTemporaryFile(dir=folder, suffix=".raw")
        self._proc = subprocess.Popen(
            ["parec", "--raw", "--format=s16le", "--rate=%d" % self.RATE, "--channels=1",
             "--latency-msec=10", "--device=%s.monitor" % sink],
            env=client_env, stdout=self._file, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not len(self._read()[0]):
            if time.monotonic() > deadline:
                raise VirtualAudioUnavailable("The second virtual sink delivers no audio.")
            time.sleep(0.05)

    def _read(self):
        """(one flag per frame so far, True where something is heard; the time of frame 0)."""
        raw = Path(self._file.name).read_bytes()
        now = time.monotonic()
        pcm = np.frombuffer(raw[: len(raw) // 2 * 2], dtype="<i2")
        loud = frame_levels_db(pcm, self.RATE, self.FRAME_S) > self.LOUD_DB
        return loud, now - len(pcm) / self.RATE

    def wait_for_sound(self, after: float, timeout: float = 30.0) -> float:
        """The time sound starts at or after ``after``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            loud, zero = self._read()
            first = max(0, int((after - zero) / self.FRAME_S))
            heard = np.nonzero(loud[first:])[0]
            if len(heard):
                return zero + (first + int(heard[0])) * self.FRAME_S
            time.sleep(0.05)
        raise AssertionError("no sound reached the sink within %.0f s" % timeout)

    def quiet_from(self, after: float, quiet_s: float = 0.6, timeout: float = 60.0) -> float:
        """The time the first stretch of ``quiet_s`` without sound begins after ``after``
        (waiting for it while the sink still plays)."""
        need = int(quiet_s / self.FRAME_S)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            (loud, zero), run = self._read(), 0
            for frame in range(max(0, int((after - zero) / self.FRAME_S)), len(loud)):
                run = 0 if loud[frame] else run + 1
                if run == need:
                    return zero + (frame - need + 1) * self.FRAME_S
            time.sleep(0.1)
        raise AssertionError("the sound did not stop within %.0f s" % timeout)

    def close(self) -> None:
        self._proc.terminate()
        self._proc.wait(timeout=10)
        self._file.close()
