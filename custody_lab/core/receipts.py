"""Custody receipts: the seed's receipt shape, canonical JSON and digests.

A receipt serialises exactly as JavaScript's ``JSON.stringify`` would (keys in insertion order, no
spaces, non-ASCII kept as is), so the digest of the lab's fixture equals the one the seed's Node
artifact prints.
"""

from __future__ import annotations

__all__ = [
    "FIXTURE_NAME",
    "FIXTURE_SHA256",
    "canonical_json",
    "digest",
    "extended_receipt",
    "fixture_payload",
    "receipt",
]

import hashlib
import json
from pathlib import Path
from typing import Any

from .model import Decision

FIXTURE_NAME = "mcp-context-custody-v1"
#: What the seed's Node artifact prints as ``sha256`` (seed 000, "Runnable artifact").
FIXTURE_SHA256 = "b07a3cfddf44d5ff300da17345bc31697013a48211d23d974456ea2390f88b7b"


def canonical_json(value: Any) -> str:
    """Compact JSON as ``JSON.stringify`` writes it.

    Example:
        >>> canonical_json({"b": 1, "a": [True, None, "é"]})
        '{"b":1,"a":[true,null,"é"]}'
    """
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def digest(value: Any) -> str:
    """The sha256 (hex) of a value's canonical JSON (or of ``bytes`` / ``str`` as given)."""
    if isinstance(value, bytes):
        data = value
    elif isinstance(value, str):
        data = value.encode("utf-8")
    else:
        data = canonical_json(value).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def receipt(decision: Decision) -> dict[str, Any]:
    """The seed-shaped receipt of a decision (same as ``decision.to_dict()``)."""
    return decision.to_dict()


def extended_receipt(
    decision: Decision,
    *,
    template_params: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The seed receipt plus what later lessons need: digest, trace and template parameters.

    The seed-shaped part is unchanged (its digest is ``digest``); the additions sit beside it.
    """
    base = receipt(decision)
    out = dict(base)
    out["digest"] = digest(base)
    out["trace"] = [{"code": s.code, "status": s.status} for s in decision.trace]
    if template_params is not None:
        out["templateParams"] = dict(template_params)
    if extra:
        out.update(extra)
    return out


def fixture_payload(path: str | Path | None = None) -> dict[str, Any]:
    """Rebuild the seed fixture from ``data/cases.json`` and add its ``sha256``.

    The six seed cases are routed as the ``accepted`` list and the four adversarial variants (each
    one input changed from a seed case) as the ``adversarial`` list, under the seed's policy.

    Example:
        >>> fixture_payload()["sha256"] == FIXTURE_SHA256
        True
    """
    from .loading import load_fixture
    from .router import route

    fixture = load_fixture(path)
    policy = fixture.policy
    payload: dict[str, Any] = {
        "fixture": FIXTURE_NAME,
        "remoteServerCalled": False,
        "policy": policy.to_dict(),
        "accepted": [route(c, policy).to_dict() for c in fixture.cases],
        "adversarial": [route(c, policy).to_dict() for c in fixture.adversarial],
    }
    serialized = canonical_json(payload)
    return {**payload, "sha256": digest(serialized)}
