"""The catalog of downloadable Vosk speech models and where installed models live.

The catalog is data (``catalog.json`` beside this file): per language code the model's name,
archive size, MD5 (``null`` when it could not be pinned) and download address. Downloaded
models are folders named like the model, inside the ``models/`` package folder, or inside the
folder named by the environment variable ``TALKING_CARDS_MODELS`` when it is set.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

CATALOG_FILE = Path(__file__).with_name("catalog.json")
PACKAGE_MODELS_DIR = Path(__file__).parent
MODELS_DIR_VARIABLE = "TALKING_CARDS_MODELS"


@dataclass(frozen=True)
class ModelEntry:
    lang: str                      # our language code: "en", "ko", ...
    name: str                      # Vosk model name, also the installed folder's name
    language: str                  # readable language name, for messages
    size: int                      # archive bytes
    md5: Optional[str]             # archive MD5, None when not pinned
    url: str                       # archive address
    aliases: Tuple[str, ...] = ()  # other codes meaning the same language ("en-us")
    python_package: str = ""       # a pip package that ships this model, if any
    package_subdir: str = ""       # the model folder inside that package


@dataclass(frozen=True)
class Catalog:
    base_url: str
    model_list: str                # name of the official list beside the archives
    entries: Dict[str, ModelEntry]

    def languages(self) -> List[str]:
        return list(self.entries)

    def entry(self, lang: str) -> Optional[ModelEntry]:
        """The entry for a language code, one of its aliases (case-insensitive) or its base
        ("en-au" -> "en"), or None."""
        code = lang.strip().lower().replace("_", "-")
        if code in self.entries:
            return self.entries[code]
        for entry in self.entries.values():
            if code in entry.aliases:
                return entry
        return self.entry(code.rsplit("-", 1)[0]) if "-" in code else None

    def entry_by_name(self, name: str) -> Optional[ModelEntry]:
        for entry in self.entries.values():
            if entry.name == name:
                return entry
        return None


def load_catalog(path: Optional[Path] = None) -> Catalog:
    """Read the catalog file (the packaged one unless ``path`` is given)."""
    with open(path or CATALOG_FILE, encoding="utf-8") as handle:
        data = json.load(handle)
    entries = {}
    for lang, item in data["models"].items():
        entries[lang] = ModelEntry(
            lang=lang,
            name=item["name"],
            language=item.get("language", lang),
            size=int(item["size"]),
            md5=item.get("md5"),
            url=item["url"],
            aliases=tuple(item.get("aliases", ())),
            python_package=item.get("python_package", ""),
            package_subdir=item.get("package_subdir", ""),
        )
    return Catalog(base_url=data["base_url"], model_list=data.get("model_list", "model-list.json"),
                   entries=entries)


def user_models_dir() -> Optional[Path]:
    """The folder named by TALKING_CARDS_MODELS, or None when the variable is unset or empty."""
    value = os.environ.get(MODELS_DIR_VARIABLE, "").strip()
    return Path(value).expanduser() if value else None


def models_dirs() -> List[Path]:
    """Folders searched for installed models, the user's override first."""
    user_dir = user_models_dir()
    return [user_dir, PACKAGE_MODELS_DIR] if user_dir else [PACKAGE_MODELS_DIR]


def download_dir() -> Path:
    """Where a download is installed: the user's override when set, else the package folder."""
    return user_models_dir() or PACKAGE_MODELS_DIR
