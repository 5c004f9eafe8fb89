"""Write the receipt (notebook 07): the custody receipt of one exchange watched on the wire.

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
wire-01   3      fill the seven custody fields of a read you watched frame by frame
========  =====  ===================================================================

The exchange is real: the lab's recording client reads ``assets://logo.png`` (a base64 blob; none
of the six seed cases reads it, so no receipt of notebook 07 shows it first) from the in-process
lab server (MCP 2026-07-28, frames recorded, the state ledger read before and after),
once per kernel. The learner gets its frames (``input_for("wire-01")``: direction, the time ``at``
each crossed, and the JSON-RPC message) and writes the receipt; the reference is that exchange's
own receipt, built by :mod:`custody_lab.live.live_receipts` — nothing is typed in.

Each field is checked on its own, in the order of :data:`FIELDS`' check order: the first field
that is missing or wrong gets a hint naming *that field* and why it holds what it holds, never its
value. ``retrievedAt`` cannot be guessed to the millisecond, so the check is fair rather than
exact: an RFC 3339 date-time with an explicit offset (RFC 3339 §5.6; the receipt writes UTC with
``Z``) that falls within the exchange's window, from its first frame (taken to the whole second)
to the receipt's own time plus one second.
"""

from __future__ import annotations

__all__: list[str] = ["FIELDS", "EXERCISES", "Watched", "field_problem", "watched"]

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ...core.paths import data_path
from ..answers import normal_uri
from ..exercises import Exercise, Mistake
from . import _answers as ans
from .live import run_exchange

#: The resource the client reads: a binary asset, where bytes are the decoded blob, not its base64.
_URI = "assets://logo.png"

#: The seven fields, in the order the task lists them.
FIELDS: tuple[str, ...] = ("actor", "uri", "mime", "provenance", "bytes", "retrievedAt", "sideEffects")
#: The order the check reads them in: ``retrievedAt`` last, since only it depends on the clock.
_CHECK_ORDER: tuple[str, ...] = ("actor", "uri", "mime", "provenance", "bytes", "sideEffects", "retrievedAt")

#: RFC 3339 §5.6 ``date-time``: full date, ``T``, time with optional fraction, and an offset.
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$")


@dataclass(frozen=True)
class Watched:
    """The exchange the learner watched, and the receipt the lab's client wrote for it.

    Attributes:
        frames: every frame of the exchange (the ledger read before, the read, the ledger read
            after), each ``{"direction", "at", "message"}``.
        receipt: the seven custody fields of the client's receipt (the reference).
        started: when the first frame crossed (RFC 3339, UTC).
        base64_chars: the length of the blob as it crossed, in base64 characters (a typical mistake).
    """

    frames: tuple[dict[str, Any], ...]
    receipt: dict[str, Any]
    started: str
    base64_chars: int


@functools.cache
def watched() -> Watched:
    """Read the logo once, with frames, and keep what crossed and what was recorded.

    Example:
        >>> w = watched()
        >>> w.receipt["uri"], w.receipt["actor"], w.receipt["bytes"] < w.base64_chars
        ('assets://logo.png', 'application', True)
    """
    from ...live.session import LabSession

    async def exchange() -> Watched:
        async with LabSession(frames=True) as s:
            live = await s.read(_URI)
        frames = tuple({"direction": f.direction, "at": f.at, "message": f.message} for f in live.frames)
        custody = live.receipt["custody"]
        answer = next(
            f for f in frames if (f["message"].get("result") or {}).get("contents", [{}])[0].get("uri") == _URI
        )
        blob = answer["message"]["result"]["contents"][0].get("blob", "")
        return Watched(frames, {k: custody[k] for k in FIELDS}, frames[0]["at"], len(blob))

    return run_exchange(exchange)


def _frames() -> list[dict[str, Any]]:
    return [dict(f) for f in watched().frames]


def _reference() -> dict[str, Any]:
    return dict(watched().receipt)


# --------------------------------------------------------------------------------------------
# Reading an answer field by field
# --------------------------------------------------------------------------------------------


def _key(name: object) -> str | None:
    """A field name in any spelling (``retrieved_at``, ``Side effects``) as its canonical name."""
    if not isinstance(name, str):
        return None
    folded = re.sub(r"[\s_-]", "", name).lower()
    return next((f for f in FIELDS if f.lower() == folded), None)


def _fields(answer: object) -> dict[str, object] | None:
    """The answer's fields by canonical name (a value left as ``...`` counts as absent)."""
    if not isinstance(answer, Mapping):
        return None
    found: dict[str, object] = {}
    for name, value in answer.items():
        key = _key(name)
        if key is not None and value is not Ellipsis and value is not None:
            found[key] = value
    return found


def _unknown_keys(answer: object) -> bool:
    return isinstance(answer, Mapping) and any(_key(name) is None for name in answer)


def _parse_time(value: object) -> datetime | None:
    if not isinstance(value, str) or not _RFC3339.match(value.strip()):
        return None
    try:
        return datetime.fromisoformat(value.strip().upper().replace("Z", "+00:00"))
    except ValueError:
        return None


def _in_window(value: object) -> bool:
    when = _parse_time(value)
    if when is None:
        return False
    w = watched()
    start = _parse_time(w.started)
    end = _parse_time(w.receipt["retrievedAt"])
    assert start is not None and end is not None  # the lab's own clock writes RFC 3339
    return start.replace(microsecond=0) <= when <= end + timedelta(seconds=1)


def _right(field: str, value: object) -> bool:
    """Whether one field's value is right for the watched exchange."""
    expected = watched().receipt[field]
    if field == "retrievedAt":
        return _in_window(value)
    if field in ("actor", "mime"):
        return ans.code(value) == expected
    if field == "uri":
        return isinstance(value, str) and normal_uri(value.strip()) == normal_uri(expected)
    if field == "provenance":
        return ans.text(value) == expected
    if field == "bytes":
        return ans.whole_number(value) == expected
    return value is expected  # sideEffects: a bool


def field_problem(answer: object) -> str | None:
    """The first field, in the check's order, that is missing or wrong; ``None`` when none is.

    Example:
        >>> field_problem({"actor": "server"}), field_problem("not a dict")
        ('actor', None)
    """
    fields = _fields(answer)
    if fields is None:
        return None
    return next((f for f in _CHECK_ORDER if f not in fields or not _right(f, fields[f])), None)


def _same_receipt(answer: object, expected: object) -> bool:
    return (
        isinstance(expected, dict)
        and not _unknown_keys(answer)
        and _fields(answer) is not None
        and (field_problem(answer) is None)
    )


def _at(field: str, test: Callable[[object], bool] | None = None) -> Callable[[object], bool]:
    """A detector: ``field`` is the first missing-or-wrong field and its value passes ``test``."""

    def detect(answer: object) -> bool:
        if field_problem(answer) != field:
            return False
        fields = _fields(answer) or {}
        return test is None or (field in fields and bool(test(fields[field])))

    return detect


# --------------------------------------------------------------------------------------------
# Examples: an answer right up to the field each mistake is about (the gate checks each one
# reaches its own hint, so a drift in the exchange shows up as a failing example)
# --------------------------------------------------------------------------------------------


@functools.cache
def _asset_bytes() -> bytes:
    return data_path("resources", "logo.png").read_bytes()


def _right_before(field: str, **wrong: object) -> dict[str, object]:
    """The fields before ``field`` (check order) filled in as the exchange had them, then ``wrong``."""
    known: dict[str, object] = {
        "actor": "application",
        "uri": _URI,
        "mime": "image/png",
        "provenance": "course-assets@1",
        "bytes": len(_asset_bytes()),
        "sideEffects": False,
    }
    before = _CHECK_ORDER[: _CHECK_ORDER.index(field)]
    return {**{f: known[f] for f in before}, **wrong}


#: The blob's length in base64 characters: 4 for every 3 bytes, padded (RFC 4648 §4).
_BASE64_CHARS = 4 * -(-len(_asset_bytes()) // 3)

_WIRE_01 = Exercise(
    id="wire-01",
    title="Write the receipt of an exchange you watched",
    why=(
        "every field is read off the frames: the notebook's own code asked for the read, the response gives "
        "the URI, MIME type, provenance and the decoded size, its arrival is retrievedAt, and the ledger read"
        " before and after did not change"
    ),
    level=3,
    prompt=(
        'You watched one exchange on the wire: `input_for("wire-01")` holds its JSON-RPC frames '
        "(each with `direction`, the time `at` it crossed, and the `message`). This notebook's own "
        "code asked the lab's client to read a resource from the in-process lab server "
        "(MCP 2026-07-28); no model proposed it, and the client read the server's state ledger "
        "just before and just after. Write the custody receipt of that read as a dict with seven "
        "fields: `actor` (who initiated the read, as the lab labels it), `uri`, `mime`, `provenance`, "
        "`bytes`, `retrievedAt` (when the answer arrived, as an RFC 3339 UTC timestamp) and "
        "`sideEffects` (`True` or `False`). Each field is checked on its own."
    ),
    input_label="the frames of one resources/read on the lab server",
    wanted="a dict with the seven receipt fields",
    kind="mapping",
    stub={f: ... for f in FIELDS},
    given=_frames,
    reference=_reference,
    compare=_same_receipt,
    mistakes=(
        Mistake(
            "not-a-receipt",
            lambda a: not isinstance(a, Mapping) and not ans.text(a) == "",
            "Write the receipt as a dict, one key per field: `actor`, `uri`, `mime`, `provenance`, "
            "`bytes`, `retrievedAt`, `sideEffects`.",
            example=["actor", "uri", "mime"],
        ),
        Mistake(
            "unknown-field",
            _unknown_keys,
            "Your receipt has a key the task does not list (a `size`, a `digest`, a typo?). Use the "
            "seven field names of the task, one each.",
            example={"size": 5},
        ),
        Mistake(
            "actor-is-the-server",
            _at("actor", lambda v: ans.code(v) == "server"),
            "`actor`: the server *served* the read, but an actor is who *decided* that this context "
            "enters. Who asked for this read, and what does the lab call that side of the host?",
            example={"actor": "server"},
        ),
        Mistake(
            "actor-is-the-model",
            _at("actor", lambda v: ans.code(v) == "model"),
            "`actor`: a `resources/read` is not a model's unless a model proposed it (then the "
            "receipt keeps both labels, as notebook 08 shows). Here the notebook's own code asked.",
            example={"actor": "model"},
        ),
        Mistake(
            "actor",
            _at("actor"),
            "`actor` is missing or not one of the lab's actor labels: seed 000 names the two sides of "
            "a host that can decide a context transfer. Which of them decided this read?",
            example={"actor": "the client"},
        ),
        Mistake(
            "uri-is-the-ledger",
            _at("uri", lambda v: isinstance(v, str) and v.strip().lower().startswith("state://")),
            "`uri`: that is the state ledger, which the client reads around the exchange only to "
            "observe side effects. The receipt is for the read between those two.",
            example=_right_before("uri", uri="state://lab/ledger"),
        ),
        Mistake(
            "uri",
            _at("uri"),
            "`uri` is missing or not the one that was read: copy it from the answer's contents item "
            "(it must be the URI the request asked for).",
            example=_right_before("uri", uri="assets://logo"),
        ),
        Mistake(
            "mime-is-not-a-media-type",
            _at("mime", lambda v: isinstance(v, str) and "/" not in v),
            "`mime` is a media type, `type/subtype`, as the contents item's `mimeType` gives it.",
            example=_right_before("mime", mime="png"),
        ),
        Mistake(
            "mime",
            _at("mime"),
            "`mime` is missing or not what came back: take the `mimeType` of the contents item "
            "that arrived, not a type you expect.",
            example=_right_before("mime", mime="application/octet-stream"),
        ),
        Mistake(
            "provenance-is-the-server",
            _at("provenance", lambda v: isinstance(v, str) and "custody-lab-server" in v),
            "`provenance`: the server's own name is only the host's fallback when the server names "
            "no source. Did this contents item carry one in its `_meta`?",
            example=_right_before("provenance", provenance="custody-lab-server@1.0.0"),
        ),
        Mistake(
            "provenance",
            _at("provenance"),
            "`provenance` is missing or not the source the server named: MCP (2026-07-28) has no "
            "provenance field, so the lab's server puts it in the contents item's `_meta`.",
            example=_right_before("provenance", provenance="course"),
        ),
        Mistake(
            "bytes-counted-base64",
            _at("bytes", lambda v: ans.whole_number(v) == _BASE64_CHARS),
            "`bytes`: that counts the base64 characters of the `blob` as it crossed. A receipt counts "
            "the bytes the blob decodes to (base64 carries three bytes in every four characters).",
            example=_right_before("bytes", bytes=_BASE64_CHARS),
        ),
        Mistake(
            "bytes-as-text",
            _at("bytes", lambda v: isinstance(v, str)),
            "`bytes` is a whole number (an int), not text.",
            example=_right_before("bytes", bytes="many"),
        ),
        Mistake(
            "bytes",
            _at("bytes"),
            "`bytes` is missing or not what arrived: decode the contents item's `blob` and count the "
            "bytes (the frame's JSON around it does not count).",
            example=_right_before("bytes", bytes=1),
        ),
        Mistake(
            "side-effects-as-text",
            _at("sideEffects", lambda v: isinstance(v, str)),
            "`sideEffects` is `True` or `False` (a bool), not text.",
            example=_right_before("sideEffects", sideEffects="no"),
        ),
        Mistake(
            "side-effects",
            _at("sideEffects"),
            "`sideEffects` is missing or not what the client observed: compare the two reads of the "
            "state ledger around the read. Did the server's state change?",
            example=_right_before("sideEffects", sideEffects=True),
        ),
        Mistake(
            "retrieved-at-not-rfc-3339",
            _at("retrievedAt", lambda v: _parse_time(v) is None),
            "`retrievedAt` is an RFC 3339 date-time with its offset, such as the frames' `at`: date, "
            "`T`, time, then `Z` for UTC.",
            example=_right_before("retrievedAt", retrievedAt="just now"),
        ),
        Mistake(
            "retrieved-at-outside-the-exchange",
            _at("retrievedAt"),
            "`retrievedAt` is missing, or a time outside this exchange (the simulator's fixed policy "
            "time, say): it is when the answer arrived, between the first frame and the last.",
            example=_right_before("retrievedAt", retrievedAt="2026-09-04T12:00:00.000Z"),
        ),
    ),
    hints=(
        "Read the frames in order: the request says what was asked; the answer's contents item says "
        "what came back (its URI, mimeType, blob and _meta); the ledger reads around it say whether "
        "anything changed; each frame's `at` says when it crossed.",
        "Go field by field and take each from the wire, not from what you expect: who decided, "
        "which URI and type came back, whose `_meta` names the source, the decoded bytes of the blob, "
        "whether the ledger changed, when the answer arrived.",
    ),
)

EXERCISES = (_WIRE_01,)
