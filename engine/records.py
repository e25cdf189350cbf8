"""Actions and events: small frozen dataclasses that serialize to flat JSON objects.

Every record class has a ``type`` name; ``to_json`` gives ``{"type": ..., **fields}`` and
``from_json`` rebuilds the right class from that dict. Field values are plain JSON values
(cards are their codes, lists become tuples), so events files and save files are made of
these dicts directly.
"""
from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Dict, Type


class Record:
    """Base for frozen dataclass records with a registered ``type`` name."""

    type: ClassVar[str] = ""
    _registry: ClassVar[Dict[str, Dict[str, Type["Record"]]]] = {}
    family: ClassVar[str] = "record"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("type"):
            Record._registry.setdefault(cls.family, {})[cls.type] = cls

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"type": self.type}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Record":
        """Rebuild a record of this family from its JSON dict; ValueError if unknown."""
        if not isinstance(data, dict) or "type" not in data:
            raise ValueError(f"not a {cls.family}: {data!r}")
        kind = Record._registry.get(cls.family, {}).get(data["type"])
        if kind is None:
            raise ValueError(f"unknown {cls.family} type {data['type']!r}")
        names = {f.name for f in dataclasses.fields(kind)}  # type: ignore[arg-type]
        args = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k in names}
        try:
            return kind(**args)
        except TypeError as exc:
            raise ValueError(f"bad {data['type']} {cls.family}: {exc}") from None


class Action(Record):
    """Something a player (human or bot) does."""

    family = "action"


class Event(Record):
    """Something that happened, with everything an announcer needs to say it."""

    family = "event"
