"""Speech model catalog: which Vosk model serves each language, and where models are installed."""
from __future__ import annotations

from models.catalog import (CATALOG_FILE, MODELS_DIR_VARIABLE, PACKAGE_MODELS_DIR, Catalog,
                            ModelEntry, download_dir, load_catalog, models_dirs, user_models_dir)

__all__ = ["CATALOG_FILE", "MODELS_DIR_VARIABLE", "PACKAGE_MODELS_DIR", "Catalog", "ModelEntry",
           "download_dir", "load_catalog", "models_dirs", "user_models_dir"]
