"""What one live exchange established, before the recorder turns it into a Case and a receipt.

The recorder's working values, kept apart from :mod:`.recorder` so that module stays about the
exchanges themselves: :class:`Facts` (one exchange's facts), :func:`check_size` (a declared size is
a byte count the lab can hold), :func:`meta_of` and :func:`item_dict` (reading SDK objects).
"""

from __future__ import annotations

__all__ = ["Facts", "check_size", "item_dict", "meta_of"]

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core.model import MAX_BYTES
from .values import LiveError


def check_size(size: int | None, what: str) -> None:
    """A declared ``size`` must be a byte count the lab can hold (0 to ``MAX_BYTES``)."""
    if size is not None and not 0 <= size <= MAX_BYTES:
        raise LiveError(f"{what} declares size {size}: a size is a whole number of bytes from 0 to {MAX_BYTES}")


@dataclass
class Facts:
    """What one exchange established, before it becomes a Case and a receipt."""

    case_id: str
    initiator: Literal["application", "model"]
    operation: str
    shape: str
    method: str
    target: str
    uri: str | None = None
    mime: str | None = None
    size: int = 0
    provenance: str | None = None
    current: bool = True
    allowed: bool = True
    side_effects: bool | None = None
    requires_current: bool = False
    content: str | bytes | None = None
    content_digest: str | None = None
    delivery: str = "none"
    performed: bool = True
    extra: dict[str, Any] = field(default_factory=dict)
    #: what was observed about the exchange itself (keys of ``EXCHANGE_FACTS``), for the router
    exchange: dict[str, Any] = field(default_factory=dict)
    #: explanations for people, keyed by the check each one explains (never decisive)
    notes: dict[str, str] = field(default_factory=dict)
    template_params: dict[str, Any] | None = None
    #: what the server said about the answer (wire keys), for the 2026-07-28 fields of the receipt
    hints: dict[str, Any] | None = None


def meta_of(obj: Any) -> dict[str, Any]:
    meta = getattr(obj, "meta", None)
    return dict(meta) if isinstance(meta, Mapping) else {}


def item_dict(item: Any) -> dict[str, Any]:
    """A contents item as the wire mapping ``read_contents`` expects."""
    return item.model_dump(by_alias=True, mode="json", exclude_none=True)
