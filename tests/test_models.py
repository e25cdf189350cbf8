"""The model catalog, and download / unpack / verify against a real HTTP server on loopback."""
from __future__ import annotations

import hashlib
import http.server
import io
import itertools
import json
import os
import re
import stat
import threading
import zipfile
from pathlib import Path

import pytest

import models
from voice.cli.models import models_command
from voice.hear import models as mm
from voice.errors import ModelError

NAME = "vosk-model-test-0.1"
MODEL_FILES = {
    "am/final.mdl": os.urandom(3000),
    "conf/mfcc.conf": b"--use-energy=false\n",
    "conf/model.conf": b"--beam=10.0\n",
    "graph/HCLr.fst": os.urandom(5000),
    "graph/Gr.fst": os.urandom(4000),
    "graph/phones/word_boundary.int": b"1 nonword\n",
    "ivector/final.ie": os.urandom(1000),
}


# ---------------------------------------------------------------- helpers

def build_zip(entries):
    """A zip archive from (name, bytes) pairs; bytes None makes a directory entry."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            if data is None:
                archive.writestr(zipfile.ZipInfo(name + "/"), b"")
            else:
                archive.writestr(name, data)
    return buffer.getvalue()


def model_zip(top=NAME, files=MODEL_FILES):
    return build_zip([(top, None)] + [(top + "/" + path, data) for path, data in files.items()])


def symlink_zip():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, data in MODEL_FILES.items():
            archive.writestr(NAME + "/" + path, data)
        link = zipfile.ZipInfo(NAME + "/link")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    return buffer.getvalue()


def catalog_for(tmp_path, archive, md5="right", lang="xx"):
    """A one-language catalog describing ``archive`` (md5: "right", "wrong" or None)."""
    digest = {"right": hashlib.md5(archive).hexdigest(), "wrong": "0" * 32, None: None}[md5]
    data = {"base_url": "http://127.0.0.1:1/never", "model_list": "model-list.json",
            "models": {lang: {"name": NAME, "language": "Testish", "size": len(archive),
                              "md5": digest, "url": "http://127.0.0.1:1/never/%s.zip" % NAME}}}
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(data))
    return models.load_catalog(path)


class Server:
    """http.server on 127.0.0.1 with an ephemeral port, serving a dict of path -> bytes."""

    def __init__(self):
        self.routes = {}
        self.truncate = set()   # paths whose body is cut in half after a full Content-Length
        routes, truncate = self.routes, self.truncate

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = routes.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2] if self.path in truncate else body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,),
                                       daemon=True)
        self.thread.start()
        self.url = "http://127.0.0.1:%d/models" % self.httpd.server_address[1]

    def serve(self, name, body):
        self.routes["/models/" + name] = body

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    running = Server()
    yield running
    running.close()


@pytest.fixture
def dest(tmp_path, monkeypatch):
    folder = tmp_path / "models"
    folder.mkdir()
    monkeypatch.setenv(models.MODELS_DIR_VARIABLE, str(folder))
    return folder


def install(server, tmp_path, dest, archive=None, md5="right"):
    archive = archive if archive is not None else model_zip()
    server.serve(NAME + ".zip", archive)
    catalog = catalog_for(tmp_path, archive, md5)
    return mm.download("xx", base_url=server.url, dest=dest, catalog=catalog), catalog


# ---------------------------------------------------------------- the catalog

def test_catalog_entries_are_complete():
    catalog = models.load_catalog()
    assert set(catalog.languages()) == {"en", "en-gb", "tr", "es", "ar", "ar-tn", "ko"}
    assert catalog.base_url == "https://alphacephei.com/vosk/models"
    for lang, entry in catalog.entries.items():
        assert entry.name.startswith("vosk-model-"), lang
        assert entry.size > 10_000_000, lang
        assert entry.url == catalog.base_url + "/" + entry.name + ".zip", lang
        assert entry.language, lang
        if lang == "en":
            assert entry.md5 is None  # not pinned: size checked, list consulted when online
        else:
            assert re.fullmatch(r"[0-9a-f]{32}", entry.md5), lang
    assert catalog.entry("en-US").name == "vosk-model-small-en-us-0.15"
    assert catalog.entry("ko").size == 86914329
    assert catalog.entry("fr") is None


def test_models_folder_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv(models.MODELS_DIR_VARIABLE, raising=False)
    assert models.download_dir() == models.PACKAGE_MODELS_DIR
    monkeypatch.setenv(models.MODELS_DIR_VARIABLE, str(tmp_path))
    assert models.download_dir() == tmp_path
    assert models.models_dirs() == [tmp_path, models.PACKAGE_MODELS_DIR]


# ---------------------------------------------------------------- downloading

def test_download_checks_and_installs_with_progress(server, tmp_path, dest):
    archive = model_zip()
    server.serve(NAME + ".zip", archive)
    catalog = catalog_for(tmp_path, archive)
    seen = []
    path = mm.download("xx", base_url=server.url, dest=dest, catalog=catalog,
                       progress=lambda done, total: seen.append((done, total)))
    assert path == dest / NAME
    for relative, data in MODEL_FILES.items():
        assert (path / relative).read_bytes() == data
    assert (path / mm.MANIFEST_NAME).is_file()
    assert os.listdir(dest) == [NAME]  # no temporary files or folders left behind
    assert seen[-1] == (len(archive), len(archive))
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert mm.find_model("xx", catalog) == path
    assert mm.resolve_model("xx", catalog=catalog) == path
    assert [status.state for status in mm.verify(catalog)] == [mm.OK]
    rows = mm.list_models(catalog)
    assert rows == [mm.ModelRow("xx", NAME, len(archive), True, path)]


def test_download_replaces_a_broken_install(server, tmp_path, dest):
    (dest / NAME / "am").mkdir(parents=True)
    (dest / NAME / "am" / "final.mdl").write_bytes(b"half")
    path, catalog = install(server, tmp_path, dest)
    assert (path / "am/final.mdl").read_bytes() == MODEL_FILES["am/final.mdl"]
    assert mm.check_model(catalog.entry("xx"), path).state == mm.OK
    assert os.listdir(dest) == [NAME]


def test_wrong_checksum_installs_nothing(server, tmp_path, dest):
    with pytest.raises(ModelError, match="does not match its checksum"):
        install(server, tmp_path, dest, md5="wrong")
    assert os.listdir(dest) == []


def test_truncated_download_installs_nothing(server, tmp_path, dest):
    archive = model_zip()
    server.serve(NAME + ".zip", archive)
    server.truncate.add("/models/%s.zip" % NAME)
    catalog = catalog_for(tmp_path, archive)
    with pytest.raises(ModelError, match="cut short|interrupted") as caught:
        mm.download("xx", base_url=server.url, dest=dest, catalog=catalog)
    assert "nothing was installed" in str(caught.value)
    assert os.listdir(dest) == []


def test_wrong_size_installs_nothing(server, tmp_path, dest):
    catalog = catalog_for(tmp_path, model_zip(), md5=None)
    server.serve(NAME + ".zip", model_zip() + b"extra")
    with pytest.raises(ModelError, match="larger than the catalogue says"):
        mm.download("xx", base_url=server.url, dest=dest, catalog=catalog)
    assert os.listdir(dest) == []


@pytest.mark.parametrize("archive, reason", [
    (build_zip([(NAME + "/am/final.mdl", b"x"), ("../evil", b"owned")]), "leaving its folder"),
    (build_zip([(NAME + "/am/final.mdl", b"x"), (NAME + "/../../evil", b"owned")]),
     "leaving its folder"),
    (build_zip([(NAME + "/am/final.mdl", b"x"), ("/tmp/evil-absolute", b"owned")]),
     "absolute path"),
    (symlink_zip(), "symbolic link"),
    (model_zip(top="some-other-folder"), "one folder named " + NAME),
    (build_zip([(NAME + "/am/final.mdl", b"x"), ("stray.txt", b"x")]), "one folder named"),
    (build_zip([(NAME + "/conf/mfcc.conf", b"x")]), "lacks am/final.mdl"),
    (b"this is not a zip archive at all", "not a valid zip"),
], ids=["dotdot", "nested-dotdot", "absolute", "symlink", "wrong-top", "stray-file", "incomplete",
        "not-zip"])
def test_unsafe_or_malformed_archives_are_refused(server, tmp_path, dest, archive, reason):
    with pytest.raises(ModelError, match=reason):
        install(server, tmp_path, dest, archive=archive)
    assert os.listdir(dest) == []
    assert not (tmp_path / "evil").exists()
    assert not Path("/tmp/evil-absolute").exists()


def test_md5_is_taken_from_the_model_list_when_not_pinned(server, tmp_path, dest):
    archive = model_zip()
    server.serve(NAME + ".zip", archive)
    catalog = catalog_for(tmp_path, archive, md5=None)
    notes = []
    server.serve("model-list.json", json.dumps([{"name": NAME, "md5": "1" * 32}]).encode())
    with pytest.raises(ModelError, match="checksum"):
        mm.download("xx", base_url=server.url, dest=dest, catalog=catalog, say=notes.append)
    assert os.listdir(dest) == []
    listing = [{"name": "other"}, {"name": NAME, "md5": hashlib.md5(archive).hexdigest()}]
    server.serve("model-list.json", json.dumps(listing).encode())
    assert mm.download("xx", base_url=server.url, dest=dest, catalog=catalog, say=notes.append).is_dir()
    assert not any("could not be pinned" in note for note in notes)


def test_size_alone_is_checked_when_the_model_list_is_unavailable(server, tmp_path, dest):
    archive = model_zip()
    server.serve(NAME + ".zip", archive)
    catalog = catalog_for(tmp_path, archive, md5=None)
    notes = []
    path = mm.download("xx", base_url=server.url, dest=dest, catalog=catalog, say=notes.append)
    assert path.is_dir()
    assert any("could not be pinned" in note for note in notes)


def test_network_failure_is_one_sentence(tmp_path, dest):
    catalog = catalog_for(tmp_path, model_zip())
    with pytest.raises(ModelError) as caught:
        mm.download("xx", base_url="http://127.0.0.1:9/models", dest=dest, catalog=catalog)
    message = str(caught.value)
    assert message.startswith("Could not download the Testish speech model") and "\n" not in message
    with pytest.raises(ModelError, match="404"):
        server = Server()
        try:
            mm.download("xx", base_url=server.url, dest=dest, catalog=catalog)
        finally:
            server.close()
    assert os.listdir(dest) == []


# ---------------------------------------------------------------- checking installed models

def test_verify_finds_a_corrupted_file(server, tmp_path, dest):
    path, catalog = install(server, tmp_path, dest)
    model_file = path / "am/final.mdl"
    data = bytearray(model_file.read_bytes())
    data[100] ^= 0xFF  # same size: only the checksum can notice
    model_file.write_bytes(bytes(data))
    [status] = mm.verify(catalog)
    assert status.state == mm.CORRUPT and "am/final.mdl does not match its checksum" in status.message
    model_file.write_bytes(bytes(data[:50]))  # truncated: the quick check at start notices
    with pytest.raises(ModelError, match="damaged .*wrong size"):
        mm.resolve_model("xx", catalog=catalog)


def test_missing_and_partial_models_are_one_sentence(server, tmp_path, dest):
    catalog = catalog_for(tmp_path, model_zip())
    with pytest.raises(ModelError, match="not installed; install it with: talking-cards models "
                                         "download xx"):
        mm.resolve_model("xx", catalog=catalog)
    path, catalog = install(server, tmp_path, dest)
    (path / "graph/Gr.fst").unlink()
    with pytest.raises(ModelError, match="incomplete"):
        mm.resolve_model("xx", catalog=catalog)
    with pytest.raises(ModelError, match="no speech model folder"):
        mm.resolve_model("xx", model_path=tmp_path / "nowhere", catalog=catalog)
    with pytest.raises(ModelError, match="no speech model for the language 'zz'"):
        mm.resolve_model("zz", catalog=catalog)


def test_a_model_of_another_language_is_refused(tmp_path):
    folder = tmp_path / "vosk-model-small-tr-0.3"
    for relative, data in MODEL_FILES.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_bytes(data)
    with pytest.raises(ModelError, match="is for Turkish, not Korean"):
        mm.resolve_model("ko", model_path=folder)
    assert mm.resolve_model("tr", model_path=folder) == folder
    with pytest.raises(ModelError, match="is for Turkish, not fr"):
        mm.resolve_model("fr", model_path=folder)
    own = folder.rename(tmp_path / "my-french-model")
    assert mm.resolve_model("fr", model_path=own) == own  # uncataloged: structure only
    (own / "graph/Gr.fst").unlink()
    with pytest.raises(ModelError, match="incomplete"):
        mm.resolve_model("fr", model_path=own)


# ---------------------------------------------------------------- the subcommand

def run(argv, catalog=None):
    out, err = io.StringIO(), io.StringIO()
    code = models_command(argv, out=out, err=err, catalog=catalog)
    return code, out.getvalue(), err.getvalue()


def test_models_command_download_list_verify(server, tmp_path, dest):
    archive = model_zip()
    server.serve(NAME + ".zip", archive)
    catalog = catalog_for(tmp_path, archive)
    code, out, err = run(["list"], catalog)
    assert code == 0 and "xx" in out and "not installed" in out
    code, out, err = run(["download", "xx", "--base-url", server.url], catalog)
    assert code == 0, err
    assert "100%" in err and "Installed the Testish speech model" in err
    code, out, err = run(["list"], catalog)
    assert code == 0 and "installed at %s" % (dest / NAME) in out
    code, out, err = run(["verify"], catalog)
    assert code == 0 and "complete and intact" in out
    (dest / NAME / "conf/model.conf").write_bytes(b"--beam=99.0\n")
    code, out, err = run(["verify"], catalog)
    assert code == 1 and "corrupt" in out and "conf/model.conf" in out


def test_models_command_failures_are_sentences_not_tracebacks(tmp_path, dest):
    catalog = catalog_for(tmp_path, model_zip())
    code, out, err = run(["download", "xx", "--base-url", "http://127.0.0.1:9/x"], catalog)
    assert code == 1 and err.strip().startswith("Could not download") and "Traceback" not in err
    code, out, err = run(["download", "fr"], catalog)
    assert code == 1 and "no speech model for the language 'fr'" in err
    code, out, err = run(["download"], catalog)
    assert code == 2 and "Usage" in err
    code, out, err = run(["fly"], catalog)
    assert code == 2 and "Usage" in err
    code, out, err = run([], catalog)
    assert code == 2
    code, out, err = run(["verify"], catalog)
    assert code == 0 and "No speech models are installed" in out


# ---------------------------------------------------------------- hostile archives

def patched_zip(field: str, value: int):
    """A model zip whose every entry header has ``field`` set: "flags" (bit 0: encrypted,
    needs a password) or "method" (9: deflate64, which zipfile cannot unpack)."""
    offsets = {"flags": (6, 8), "method": (8, 10)}[field]
    raw = bytearray(build_zip([(NAME + "/" + p, d) for p, d in MODEL_FILES.items()]))
    for signature, offset in zip((b"PK\x03\x04", b"PK\x01\x02"), offsets):
        at = raw.find(signature)
        while at != -1:
            raw[at + offset:at + offset + 2] = value.to_bytes(2, "little")
            at = raw.find(signature, at + 4)
    return bytes(raw)


def bomb_zip(unpacked_mb: int):
    """A small archive of a model whose one file unpacks to ``unpacked_mb`` megabytes."""
    files = dict(MODEL_FILES)
    files["graph/HCLr.fst"] = bytes(unpacked_mb * 1024 * 1024)
    return model_zip(files=files)


@pytest.mark.parametrize("archive, reason", [
    (patched_zip("flags", 1), "encrypted"),
    (patched_zip("method", 9), "compression method"),
    (bomb_zip(70), "unpack"),
], ids=["encrypted", "deflate64", "bomb"])
def test_hostile_archives_are_one_sentence_and_leave_nothing(server, tmp_path, dest, archive,
                                                            reason):
    with pytest.raises(ModelError, match=reason):
        install(server, tmp_path, dest, archive=archive)
    assert os.listdir(dest) == []


def test_the_unpack_limit_follows_the_catalogued_size():
    assert len(bomb_zip(70)) < 1024 * 1024  # 70 MB of zeros in well under 1 MB of archive
    assert mm.MIN_UNPACK_LIMIT < 70 * 1024 * 1024


def test_a_killed_downloads_scratch_folder_is_removed_next_time(server, tmp_path, dest):
    stale = dest / (mm.SCRATCH_PREFIX + NAME + "-killed")
    stale.mkdir()
    (stale / "owner.pid").write_text("999999999")   # no such process
    (stale / (NAME + ".zip")).write_bytes(b"half an archive")
    running = dest / (mm.SCRATCH_PREFIX + NAME + "-running")
    running.mkdir()
    (running / "owner.pid").write_text(str(os.getpid()))  # a live download is left alone
    path, _ = install(server, tmp_path, dest)
    assert path.is_dir() and not stale.exists() and running.exists()


def test_a_huge_model_list_is_not_read_into_memory(server, tmp_path, dest):
    archive = model_zip()
    server.serve(NAME + ".zip", archive)
    server.serve("model-list.json", b"[" + b" " * (mm.MAX_LIST_BYTES + 10) + b"]")
    catalog = catalog_for(tmp_path, archive, md5=None)
    notes = []
    assert mm.download("xx", base_url=server.url, dest=dest, catalog=catalog, say=notes.append)
    assert any("could not be pinned" in note for note in notes)


def test_a_download_past_its_deadline_installs_nothing(server, tmp_path, dest, monkeypatch):
    monkeypatch.setattr(mm, "SLOWEST_BYTES_PER_S", 10 ** 12)  # the deadline: 600 s
    clock = itertools.count(0, 400)                           # each look at it: 400 s later
    monkeypatch.setattr(mm.time, "monotonic", lambda: next(clock))
    with pytest.raises(ModelError, match="took too long"):
        install(server, tmp_path, dest)
    assert os.listdir(dest) == []
