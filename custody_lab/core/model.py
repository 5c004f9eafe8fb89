"""Values the lab reasons about: a case, a policy, a custody record and a decision.

A *case* is one context-delivery need, written in the keys of the seed fixture (seed 000,
"Run six context-delivery cases"): who initiates it, which operation runs, which shape is
declared, and the custody facts (URI, MIME type, size, freshness, permission, side effects,
provenance). Every value here is a frozen dataclass; the field table below is the one place that
says which keys exist, which are optional and what each must hold.
"""

from __future__ import annotations

__all__ = [
    "APPLICATION_SHAPES",
    "FIELDS",
    "FIELD_SPECS",
    "INITIATORS",
    "MAX_BYTES",
    "MAX_EXPLAINED_COLUMNS",
    "MODEL_SHAPES",
    "OPERATIONS",
    "SHAPES",
    "Case",
    "Custody",
    "Decision",
    "DecisionError",
    "FieldSpec",
    "Initiator",
    "Kind",
    "Policy",
    "Shape",
    "TraceStatus",
    "TraceStep",
    "check_value",
    "close_field",
    "describe",
    "short",
    "unit_hint",
]

import difflib
import math
import re
import reprlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .blank import is_blank
from .errors import CaseError, CustodyLabError, PolicyError

Initiator = Literal["application", "model"]
Shape = Literal[
    "listed-resource",
    "templated-resource",
    "resource-link",
    "embedded-resource",
    "structured-tool-result",
]

INITIATORS: tuple[str, ...] = ("application", "model")
#: Seed 000, "Separate listed resources from URI templates": resources are application-driven.
APPLICATION_SHAPES: tuple[str, ...] = ("listed-resource", "templated-resource")
#: Seed 000, "Distinguish resource links from embedded content": the custody shapes of a tool result.
MODEL_SHAPES: tuple[str, ...] = ("resource-link", "embedded-resource", "structured-tool-result")
SHAPES: tuple[str, ...] = APPLICATION_SHAPES + MODEL_SHAPES
#: The seed's six operations, plus the two the prose names ("computation, search, validation").
OPERATIONS: tuple[str, ...] = (
    "read",
    "read-template",
    "read-subscribed",
    "generate",
    "calculate",
    "search",
    "validate",
    "mutate",
)
#: A context payload larger than 1 GiB is not a realistic case; larger values are typos.
MAX_BYTES = 1 << 30

Kind = Literal["str", "enum", "int", "bool", "text"]


@dataclass(frozen=True)
class FieldSpec:
    """How one camelCase case key is validated."""

    name: str
    kind: Kind
    required: bool
    choices: tuple[str, ...] = ()
    nullable: bool = False  # None/absent is meaningful (a custody gap), not a default

    def expected(self) -> str:
        """Plain words for what the field must hold."""
        if self.kind == "enum":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind == "int":
            return f"a whole number of bytes from 0 to {MAX_BYTES}, written without quotes (e.g. 1800)"
        if self.kind == "bool":
            return "true or false (a JSON boolean, not 1/0 or a string)"
        if self.kind == "text":
            return "free text (shown to people as untrusted data, never used to decide)"
        return "a non-empty string"


#: The field table: order is the seed's key order. ``attr`` names are snake_case on ``Case``.

#: Unknown keys (of a case object, or columns of a file's header) explained one by one, each with a
#: close field name when there is one; the rest are counted in one more problem, so that an object
#: of a million unknown keys gets a short error in one pass.
MAX_EXPLAINED_COLUMNS = 10

FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("id", "str", True),
    FieldSpec("initiator", "enum", True, INITIATORS),
    FieldSpec("operation", "enum", True, OPERATIONS),
    FieldSpec("shape", "enum", True, SHAPES),
    FieldSpec("uri", "str", False, nullable=True),
    FieldSpec("mime", "str", False, nullable=True),
    FieldSpec("bytes", "int", True),
    FieldSpec("current", "bool", True),
    FieldSpec("allowed", "bool", True),
    FieldSpec("sideEffects", "bool", False, nullable=True),
    FieldSpec("provenance", "str", False, nullable=True),
    FieldSpec("requiresCurrent", "bool", False),
    FieldSpec("title", "text", False),
    FieldSpec("description", "text", False),
)
#: The field table keyed by camelCase name.
FIELD_SPECS: dict[str, FieldSpec] = {f.name: f for f in FIELDS}
#: How alike (difflib's ratio, letter case ignored) a name must be to a field's to be offered as
#: "did you mean": ``byts`` (0.89) and ``side_effects`` (0.87) are; ``notes`` is not ``bytes`` (0.6).
_CLOSE_NAME_RATIO = 0.8


def close_field(name: object, fields: tuple[str, ...] | None = None) -> str | None:
    """The field a misspelt ``name`` most likely means, or ``None`` when none is close.

    Only a name about a field's length is compared (a long key is no typo, and costs nothing).

    Example:
        >>> close_field("byts"), close_field("Side_Effects"), close_field("notes")
        ('bytes', 'sideEffects', None)
    """
    text = str(name)
    choices = tuple(FIELD_SPECS) if fields is None else fields
    if len(text) > 2 * max(map(len, choices), default=0):
        return None
    lowered = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(text.lower(), list(lowered), n=1, cutoff=_CLOSE_NAME_RATIO)
    return lowered[close[0]] if close else None


_WITH_UNIT = re.compile(r"[+-]?[0-9][0-9.,_ ]*\s*[A-Za-z]+\s*")


def unit_hint(text: str) -> str:
    """A parenthesised hint when a size was written with a unit (``'5 KB'``), else ``""``.

    Example:
        >>> unit_hint("5 KB"), unit_hint("abc")
        (' (a number of bytes, no units: 1 KB is written 1000 or 1024, whichever you mean)', '')
    """
    if len(text) > 40 or not _WITH_UNIT.fullmatch(text):
        return ""
    return " (a number of bytes, no units: 1 KB is written 1000 or 1024, whichever you mean)"


_ATTR = {
    "sideEffects": "side_effects",
    "requiresCurrent": "requires_current",
}


def _attr(key: str) -> str:
    return _ATTR.get(key, key)


_SPEC_ATTRS = tuple((spec, _attr(spec.name)) for spec in FIELDS)


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 80
_SHORT.maxlong = 40


def short(value: object) -> str:
    """``repr(value)`` cut to about 80 characters (a 4,000-digit number or a megabyte of text
    is not repeated whole in a message).

    Example:
        >>> short(10**100)
        '100000000000000000...0000000000000000000'
    """
    return _SHORT.repr(value)


def describe(value: object) -> str:
    """What a value is, in the words an error message uses (``the string '1800'``, ``a list``).

    Example:
        >>> describe("1800"), describe(None), describe([1]), describe(float("nan"))
        ("the string '1800'", 'null', 'a list', 'the number nan')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, (int, float)):
        return f"the number {short(value)}"
    if isinstance(value, str):
        return f"the string {short(value)}"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"


def check_value(spec: FieldSpec, value: object) -> object:
    """Validate one value of a field; return it normalised (``1800.0`` -> ``1800``).

    ``Case.from_dict`` and the sweep's grid validation share this one check.

    Raises:
        CaseError: naming the field and what was expected.

    Example:
        >>> check_value(FIELDS[6], "1800")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        custody_lab.core.errors.CaseError: field 'bytes' must be ...; got the string '1800' (remove the quotes)
    """
    name = spec.name
    if value is None:
        if spec.nullable:
            return None
        if not spec.required and spec.kind in ("text", "bool"):
            return None
        raise CaseError(f"field {name!r} must be {spec.expected()}; got null", name)
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise CaseError(f"field {name!r} must be {spec.expected()}; got {describe(value)}", name)
        return value
    if spec.kind == "int":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            hint = " (remove the quotes)" if isinstance(value, str) and value.strip().isdigit() else ""
            hint = hint or (unit_hint(value) if isinstance(value, str) else "")
            raise CaseError(f"field {name!r} must be {spec.expected()}; got {describe(value)}{hint}", name)
        if isinstance(value, float):
            if not math.isfinite(value) or not value.is_integer():
                raise CaseError(f"field {name!r} must be a whole number of bytes; got {value!r}", name)
            value = int(value)
        if value < 0:
            raise CaseError(f"field {name!r} must be 0 or more; got {short(value)}", name)
        if value > MAX_BYTES:
            raise CaseError(
                f"field {name!r} is {short(value)}, more than {MAX_BYTES} (1 GiB): "
                "no context payload is that large; check for a typo",
                name,
            )
        return value
    if not isinstance(value, str):
        raise CaseError(f"field {name!r} must be {spec.expected()}; got {describe(value)}", name)
    if spec.kind == "enum":
        for choice in spec.choices:
            if value == choice:
                return choice  # the one shared string: a million rows do not hold a million copies
        raise CaseError(f"field {name!r} must be {spec.expected()}; got {short(value)}", name)
    if spec.kind == "str" and not spec.nullable and is_blank(value):
        raise CaseError(f"field {name!r} must be a non-empty string; got {short(value)}", name)
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:  # a JSON "\ud800" escape without its pair
            raise CaseError(
                f"field {name!r} holds a lone surrogate U+{ord(value[e.start]):04X} at position {e.start}: "
                "that is half of a character, not text (in JSON, \\uD800-\\uDFFF escapes come in pairs)",
                name,
            ) from e
    return value


@dataclass(frozen=True, slots=True)
class Case:
    """One context-delivery need, in the seed's terms.

    ``uri``, ``mime``, ``provenance`` and ``side_effects`` may be ``None``: that is a custody gap
    the router rejects (``custody-incomplete``, ``side-effects-unknown``), not a default.
    ``title`` and ``description`` are free text from a server: shown as data, never decisive.

    Example:
        >>> c = Case.from_dict({"id": "h", "initiator": "application", "operation": "read",
        ...     "shape": "listed-resource", "uri": "kb://h", "mime": "text/plain", "bytes": 10,
        ...     "current": True, "allowed": True, "sideEffects": False, "provenance": "p@1"})
        >>> c.shape, c.requires_current
        ('listed-resource', False)
    """

    id: str
    initiator: Initiator
    operation: str
    shape: Shape
    uri: str | None
    mime: str | None
    bytes: int
    current: bool
    allowed: bool
    side_effects: bool | None
    provenance: str | None
    requires_current: bool = False
    title: str | None = None
    description: str | None = None

    def __post_init__(self) -> None:
        for spec in FIELDS:
            value = getattr(self, _attr(spec.name))
            if value is None and not spec.required:
                continue
            normalised = check_value(spec, value)
            if normalised is not value:
                object.__setattr__(self, _attr(spec.name), normalised)
        if self.requires_current is None:
            object.__setattr__(self, "requires_current", False)

    @classmethod
    def from_dict(cls, mapping: object) -> Case:
        """Build a case from the seed's camelCase keys, validating every field.

        Every key is checked: the error lists all the problems (``.problems``, one per key, in
        the field table's order after any unknown keys); ``.field`` is the first one's.

        Raises:
            CaseError: naming the offending key (``.field``) and what was expected.

        Example:
            >>> try:
            ...     Case.from_dict({"id": "x", "initiator": "robot", "operation": "read",
            ...         "shape": "listed-resource", "bytes": -1, "current": True, "allowed": "yes"})
            ... except CaseError as e:
            ...     print(e.field, [p.field for p in e.problems])
            initiator ['initiator', 'bytes', 'allowed']
        """
        if not isinstance(mapping, Mapping):
            raise CaseError(
                f"a case must be an object of field names to values; got {describe(mapping)}",
                None,
            )
        problems: list[CaseError] = []
        unknown = 0
        for key in mapping:
            if key in FIELD_SPECS:
                continue
            unknown += 1
            if unknown > MAX_EXPLAINED_COLUMNS:
                continue
            # a long key is no misspelt field name: no similarity search (the longest field has 15 characters)
            close = close_field(key)
            hint = f"; did you mean {close!r}?" if close else ""
            problems.append(
                CaseError(
                    f"unknown field {short(key)}{hint} (unknown fields are refused, not ignored; "
                    f"allowed fields: {', '.join(FIELD_SPECS)})",
                    str(key),
                )
            )
        if unknown > MAX_EXPLAINED_COLUMNS:
            more = unknown - MAX_EXPLAINED_COLUMNS
            problems.append(
                CaseError(
                    f"and {more:,} more unknown field{'s' if more != 1 else ''} (the first "
                    f"{MAX_EXPLAINED_COLUMNS} are explained one by one)",
                    None,
                )
            )
        kwargs: dict[str, Any] = {}
        for spec, attr in _SPEC_ATTRS:
            if spec.name not in mapping:
                if spec.required:
                    problems.append(
                        CaseError(f"missing required field {spec.name!r}: expected {spec.expected()}", spec.name)
                    )
                kwargs[attr] = False if spec.name == "requiresCurrent" else None
                continue
            try:
                kwargs[attr] = check_value(spec, mapping[spec.name])
            except CaseError as e:
                problems.append(e)
        if problems:
            raise CaseError.gather(problems)
        if kwargs["requires_current"] is None:
            kwargs["requires_current"] = False
        # Every field has just been through check_value, the same check __post_init__ makes: the
        # instance is filled directly instead of being checked twice (loading a file is half as slow).
        case = cls.__new__(cls)
        for attr, value in kwargs.items():
            object.__setattr__(case, attr, value)
        return case

    def to_dict(self) -> dict[str, Any]:
        """The case in the seed's camelCase keys (optional free text only when present)."""
        out: dict[str, Any] = {}
        for spec in FIELDS:
            value = getattr(self, _attr(spec.name))
            if spec.kind == "text" and value is None:
                continue
            out[spec.name] = value
        return out

    def with_changes(self, **changes: Any) -> Case:
        """A copy with some camelCase or snake_case fields changed (validated again)."""
        return replace(self, **{_attr(k): v for k, v in changes.items()})

    def get(self, key: str) -> Any:
        """The value of a camelCase key."""
        return getattr(self, _attr(key))

    __getitem__ = get


@dataclass(frozen=True)
class Policy:
    """The host's local policy. The embed limit is a teaching policy, not a protocol maximum.

    Attributes:
        embed_limit_bytes: an embedded resource larger than this is refused (seed: 4096).
        now: the retrieval time written into every receipt (seed: 2026-09-04T12:00:00.000Z).
        require_current: when true, every case is treated as requiring current content.
    """

    embed_limit_bytes: int = 4096
    now: str = "2026-09-04T12:00:00.000Z"
    require_current: bool = False

    def __post_init__(self) -> None:
        limit = self.embed_limit_bytes
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0 or limit > MAX_BYTES:
            raise PolicyError(
                f"embedLimitBytes must be a whole number from 0 to {MAX_BYTES}; got {short(limit)}",
                "embedLimitBytes",
            )
        if not isinstance(self.now, str) or not self.now:
            raise PolicyError(f"now must be a non-empty timestamp string; got {short(self.now)}", "now")
        if not isinstance(self.require_current, bool):
            raise PolicyError(
                f"requireCurrent must be true or false; got {short(self.require_current)}",
                "requireCurrent",
            )

    @classmethod
    def from_dict(cls, mapping: object) -> Policy:
        """Build a policy from ``{"embedLimitBytes", "now", "requireCurrent"}`` (all optional)."""
        if not isinstance(mapping, Mapping):
            raise PolicyError(f"a policy must be an object; got {describe(mapping)}")
        keys = {"embedLimitBytes": "embed_limit_bytes", "now": "now", "requireCurrent": "require_current"}
        unknown = [k for k in mapping if k not in keys]
        if unknown:
            raise PolicyError(f"unknown policy field {short(unknown[0])} (allowed: {', '.join(keys)})", str(unknown[0]))
        return cls(**{keys[k]: v for k, v in mapping.items()})

    def to_dict(self) -> dict[str, Any]:
        """The seed's policy object; ``requireCurrent`` only when it is switched on."""
        out: dict[str, Any] = {"embedLimitBytes": self.embed_limit_bytes, "now": self.now}
        if self.require_current:
            out["requireCurrent"] = True
        return out


@dataclass(frozen=True)
class Custody:
    """What a receipt keeps together (seed 000, "Ship a context-custody receipt")."""

    actor: str
    permission_checked: bool
    uri: str | None
    mime: str | None
    provenance: str | None
    bytes: int
    retrieved_at: str
    side_effects: bool | None

    def to_dict(self) -> dict[str, Any]:
        """The seed's custody object, key order included."""
        return {
            "actor": self.actor,
            "permissionChecked": self.permission_checked,
            "uri": self.uri,
            "mime": self.mime,
            "provenance": self.provenance,
            "bytes": self.bytes,
            "retrievedAt": self.retrieved_at,
            "sideEffects": self.side_effects,
        }


TraceStatus = Literal["passed", "failed", "not-reached"]


@dataclass(frozen=True)
class TraceStep:
    """One rule of the table as it applied to one case."""

    code: str
    status: TraceStatus
    test: str


class DecisionError(CustodyLabError, ValueError):
    """A decision's trace contradicts its outcome; ``.step`` is the position of the offending step.

    Attributes:
        step: the index into ``trace`` of the step at fault, or ``None`` when a step is missing.
    """

    def __init__(self, message: str, step: int | None = None) -> None:
        super().__init__(message)
        self.step = step


@dataclass(frozen=True)
class Decision:
    """The router's answer: exactly one of ``selected`` or ``rejection`` is set.

    The trace is checked when the decision is made: a rejected decision has exactly one
    ``failed`` step, it carries the rejection code, and no step after it ``passed``; an accepted
    decision has no failed step. An empty trace is allowed, for a decision built by hand (the
    router always writes one step per rule).

    Raises:
        DecisionError: naming the offending step.

    Example:
        >>> c = Custody("model", True, "a://b", "text/plain", "p@1", 1, "now", False)
        >>> Decision("x", False, None, "stale-content", c,
        ...     (TraceStep("stale-content", "passed", "t"),))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        custody_lab.core.model.DecisionError: decision 'x' is rejected for 'stale-content' but no step failed
    """

    id: str
    accepted: bool
    selected: str | None
    rejection: str | None
    custody: Custody
    trace: tuple[TraceStep, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        failed = [i for i, s in enumerate(self.trace) if s.status == "failed"]
        if self.accepted:
            if failed:
                i = failed[0]
                raise DecisionError(f"decision {self.id!r} is accepted but step {i} ({self.trace[i].code!r}) failed", i)
            return
        if not failed:
            if self.trace:
                raise DecisionError(f"decision {self.id!r} is rejected for {self.rejection!r} but no step failed")
            return
        first = failed[0]
        if len(failed) > 1:
            i = failed[1]
            raise DecisionError(
                f"decision {self.id!r} has a second failed step: step {i} ({self.trace[i].code!r}) after "
                f"step {first} ({self.trace[first].code!r}); the first failing rule decides",
                i,
            )
        if self.trace[first].code != self.rejection:
            raise DecisionError(
                f"decision {self.id!r} is rejected for {self.rejection!r} but step {first} failed with "
                f"{self.trace[first].code!r}",
                first,
            )
        for i in range(first + 1, len(self.trace)):
            if self.trace[i].status == "passed":
                raise DecisionError(
                    f"decision {self.id!r}: step {i} ({self.trace[i].code!r}) passed after the rule that "
                    f"decided (step {first}, {self.rejection!r}); every later step is not-reached",
                    i,
                )

    @property
    def outcome(self) -> str:
        """The selected shape when accepted, otherwise the rejection code."""
        return self.selected if self.accepted else self.rejection  # type: ignore[return-value]

    def to_dict(self) -> dict[str, Any]:
        """The seed's receipt shape, key order included."""
        out: dict[str, Any] = {"id": self.id, "accepted": self.accepted}
        if self.accepted:
            out["selected"] = self.selected
        else:
            out["rejection"] = self.rejection
        out["custody"] = self.custody.to_dict()
        return out
