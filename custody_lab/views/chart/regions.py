"""The custody matrix as data: its rows, the advisor's regions, the table and the words drawn.

Everything here is pure (no matplotlib): which shape each row stands for and the need the advisor
is asked about, where along the size axis the advisor changes its answer
(:func:`matrix_regions`), the text equivalent of the figure (:func:`matrix_rows`, :func:`matrix_table`), and the
strings a drawing writes (labels, status lines, the caption derived from the rule table). Text
that came from a case is made safe to draw here (:func:`safe_text`).
"""

from __future__ import annotations

__all__ = [
    "GROUPS",
    "LINTHRESH",
    "MARK_DY",
    "REGION_KINDS",
    "ROWS",
    "ROW_OF",
    "SEPARATOR_Y",
    "TABLE_COLUMNS",
    "TICKS",
    "TICK_LABELS",
    "XMAX",
    "YBOTTOM",
    "YTOP",
    "ChartError",
    "Region",
    "RegionKind",
    "Row",
    "as_case",
    "caption_text",
    "label_text",
    "matrix_regions",
    "matrix_rows",
    "matrix_table",
    "region_advice",
    "safe_text",
    "short_status",
    "status_text",
    "x_of",
]

import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...core.advisor import advise
from ...core.errors import CustodyLabError
from ...core.model import Case, Decision, Policy
from ...core.router import route
from ...core.rules import RULES, Rule
from ...whatif.theme import Theme, drawable
from ..table import Table

# ---------------------------------------------------------------------------------------------
# The map: rows, typical needs, regions
# ---------------------------------------------------------------------------------------------

#: The right edge of the x axis (1 MB). Larger payloads are drawn on the edge, labelled "≥ 1 MB".
XMAX = 1_000_000
LINTHRESH = 10  # the symlog axis is linear from 0 to 10 B, logarithmic above
#: No tick at 0: on a log-looking axis a "0" reads as a power of ten (the axis still starts at 0 B).
TICKS = (10, 100, 1_000, 10_000, 100_000, 1_000_000)
TICK_LABELS = ("10 B", "100 B", "1 kB", "10 kB", "100 kB", "1 MB")


class ChartError(CustodyLabError, ValueError):
    """A chart request that cannot be honoured (unknown highlight id, unsupported file type)."""


@dataclass(frozen=True)
class Row:
    """One row of the matrix: a shape, its initiator group and the typical need asked of the advisor.

    Attributes:
        shape: the custody shape the row stands for.
        initiator: "application" (the resource group) or "model" (the tool-result group).
        y: the row's centre in data units (the axis is inverted: the first row is on top).
        need: keyword arguments for :func:`custody_lab.core.advisor.advise` describing the row's
            typical need (the payload size is the x axis).
    """

    shape: str
    initiator: str
    y: float
    need: tuple[tuple[str, Any], ...]

    def advice_kwargs(self) -> dict[str, Any]:
        return dict(self.need)


_GAP = 0.4  # the space between the application group and the model group, in row units

#: The five rows, top to bottom. Seed 000, "MCP resources vs tool results start with control":
#: resources are application-driven, tools are model-controlled; the typical needs follow
#: "Separate listed resources from URI templates" and "Distinguish resource links from embedded
#: content" (link vs embed judged for content used once; seed 001's size x reuse table).
ROWS: tuple[Row, ...] = (
    Row(
        "listed-resource",
        "application",
        0.0,
        (("initiator", "application"), ("operation", "read"), ("address_known", True)),
    ),
    Row(
        "templated-resource",
        "application",
        1.0,
        (("initiator", "application"), ("operation", "read-template"), ("address_known", False)),
    ),
    Row(
        "structured-tool-result",
        "model",
        2.0 + _GAP,
        (("initiator", "model"), ("operation", "calculate"), ("validated_fields", True)),
    ),
    Row(
        "embedded-resource",
        "model",
        3.0 + _GAP,
        (("initiator", "model"), ("operation", "generate"), ("reuse", 1)),
    ),
    Row(
        "resource-link",
        "model",
        4.0 + _GAP,
        (("initiator", "model"), ("operation", "generate"), ("reuse", 1)),
    ),
)
ROW_OF = {r.shape: r for r in ROWS}
GROUPS = (
    ("application", "application\nreads a resource"),
    ("model", "model\ncalls a tool"),
)
YTOP = ROWS[0].y - 0.5
YBOTTOM = ROWS[-1].y + 0.5
SEPARATOR_Y = (ROWS[1].y + ROWS[2].y) / 2


@dataclass(frozen=True)
class RegionKind:
    """What a shaded stretch of a row means, and how it is drawn (hatch + fill + legend text).

    ``face`` is the fill in the light theme, ``dark`` the fill in the dark theme.
    """

    key: str
    legend: str
    hatch: str
    face: str
    dark: str

    def fill(self, theme: Theme) -> str:
        return self.dark if theme.name == "dark" else self.face


#: Region meanings. The hatch carries the meaning; the fill colour only repeats it.
REGION_KINDS: dict[str, RegionKind] = {
    k.key: k
    for k in (
        RegionKind("resource", "resource region (advisor agrees)", "///", "#d6e4f3", "#1f3550"),
        RegionKind("tool", "tool-result region (advisor agrees)", "\\\\\\", "#f9e0cb", "#4a3020"),
        RegionKind("prefer-link", "advisor prefers a link here", "xx", "#e2e2e2", "#3a3a3a"),
        RegionKind("prefer-embed", "advisor prefers embedding here", "..", "#f3f3f3", "#2a2a2a"),
        RegionKind("prefer-other", "advisor prefers another shape", "++", "#ececec", "#333333"),
    )
}
#: The in-band words for each (row shape, region kind); anything else reads "advisor: <shape>".
_REGION_TEXT = {
    ("listed-resource", "resource"): "resource · known address: list it",
    ("templated-resource", "resource"): "resource · one of many: template it",
    ("structured-tool-result", "tool"): "tool result · fields to validate",
    ("embedded-resource", "tool"): "fits: embed",
    ("embedded-resource", "prefer-link"): "over budget → link",
    ("resource-link", "prefer-embed"): "embedding would be simpler",
    ("resource-link", "tool"): "large: link it",
}


@dataclass(frozen=True)
class Region:
    """A stretch ``[x0, x1]`` (bytes) of one row where the advisor gives one answer."""

    shape: str
    x0: int
    x1: int
    advised: str | None
    kind: str
    text: str


def region_advice(shape: str, nbytes: int, policy: Policy | None = None) -> str | None:
    """The shape the advisor recommends for the typical need of ``shape``'s row at ``nbytes``.

    Example:
        >>> region_advice("embedded-resource", 760), region_advice("embedded-resource", 9000)
        ('embedded-resource', 'resource-link')
    """
    try:
        row = ROW_OF[shape]
    except KeyError as e:
        raise ChartError(f"no matrix row for shape {shape!r}; the rows are {', '.join(ROW_OF)}") from e
    return advise(**row.advice_kwargs(), payload_bytes=int(nbytes), policy=policy).shape


def _kind(row: Row, advised: str | None) -> str:
    if advised == row.shape:
        return "resource" if row.initiator == "application" else "tool"
    if advised == "resource-link":
        return "prefer-link"
    if advised == "embedded-resource":
        return "prefer-embed"
    return "prefer-other"


def _first_change(advice: Callable[[int], str | None], lo: int, hi: int) -> int:
    """The smallest byte count in (lo, hi] whose ``advice`` differs from the advice at ``lo``."""
    base = advice(lo)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if advice(mid) == base:
            lo = mid
        else:
            hi = mid
    return hi


def matrix_regions(policy: Policy | None = None) -> tuple[Region, ...]:
    """Every row split into stretches where the advisor's answer is constant (0 B .. 1 MB).

    The advisor is sampled on a log grid plus the policy's limit, and each change is located to
    the byte by bisection, so the map follows the advisor even if its thresholds change. Rows with
    the same typical need (the embed and link rows) ask the advisor once for each size.

    Example:
        >>> [(r.x1, r.kind) for r in matrix_regions() if r.shape == "embedded-resource"]
        [(4096, 'tool'), (1000000, 'prefer-link')]
    """
    limit = (policy or Policy()).embed_limit_bytes
    grid = {0, XMAX, *(round(10 ** (i / 20)) for i in range(0, 121))}
    grid.update(v for v in (limit, limit + 1) if 0 <= v <= XMAX)
    samples = sorted(v for v in grid if 0 <= v <= XMAX)
    known: dict[tuple[Any, int], str | None] = {}
    out: list[Region] = []
    for row in ROWS:

        def advice(n: int, row: Row = row) -> str | None:
            key = (row.need, n)
            if key not in known:
                known[key] = region_advice(row.shape, n, policy)
            return known[key]

        start = 0
        current = advice(0)
        prev = 0
        for x in samples[1:]:
            advised = advice(x)
            if advised != current:
                change = _first_change(advice, prev, x)
                out.append(_region(row, start, change - 1, current))
                start, current = change - 1, advice(change)
            prev = x
        out.append(_region(row, start, XMAX, current))
    return tuple(out)


def _region(row: Row, x0: int, x1: int, advised: str | None) -> Region:
    kind = _kind(row, advised)
    text = _REGION_TEXT.get((row.shape, kind), f"advisor: {advised or 'no honest shape'}")
    return Region(row.shape, x0, x1, advised, kind, text)


# ---------------------------------------------------------------------------------------------
# The table (the text equivalent of the figure)
# ---------------------------------------------------------------------------------------------

TABLE_COLUMNS = (
    "id",
    "initiator",
    "shape",
    "bytes",
    "accepted",
    "outcome",
    "advisor_shape",
    "agrees",
    "rejected_by",
)


def as_case(case: Case | Mapping[str, object]) -> Case:
    return case if isinstance(case, Case) else Case.from_dict(case)


def matrix_rows(cases: Iterable[Case | Mapping[str, object]], policy: Policy | None = None) -> list[dict[str, object]]:
    """The matrix as rows, one mapping per case in input order, keyed by :data:`TABLE_COLUMNS`.

    The same content as :func:`matrix_table` without pandas: the case explorer shows a dozen
    rows and needs no table library for them.

    Raises:
        CaseError: when a mapping is not a valid case.

    Example:
        >>> from custody_lab import load_fixture
        >>> row = matrix_rows([load_fixture().case("oversize-embed")])[0]
        >>> row["outcome"], row["advisor_shape"], row["agrees"], list(row) == list(TABLE_COLUMNS)
        ('embed-over-budget', 'resource-link', False, True)
    """
    rows: list[dict[str, object]] = []
    for item in cases:
        case = as_case(item)
        d = route(case, policy)
        advised = region_advice(case.shape, case.bytes, policy)
        rows.append(
            {
                "id": case.id,
                "initiator": case.initiator,
                "shape": case.shape,
                "bytes": case.bytes,
                "accepted": d.accepted,
                "outcome": d.outcome,
                "advisor_shape": advised or "",
                "agrees": advised == case.shape,
                "rejected_by": d.rejection or "",
            }
        )
    return rows


def matrix_table(cases: Iterable[Case | Mapping[str, object]], policy: Policy | None = None) -> Table:
    """The matrix as a table: one row per case, in input order (:func:`matrix_rows` as a
    :class:`~custody_lab.views.table.Table`, shown as HTML in a notebook; no table library loads).

    Columns: ``id``, ``initiator``, ``shape`` (declared), ``bytes``, ``accepted``, ``outcome``
    (selected shape or rejection code, from :func:`~custody_lab.core.router.route`),
    ``advisor_shape`` (what the region under the case recommends for its row's typical need),
    ``agrees`` (the declared shape is that recommendation; rejection is a separate question) and
    ``rejected_by`` (the rule code, or ``""``).

    Raises:
        CaseError: when a mapping is not a valid case.

    Example:
        >>> from custody_lab import load_fixture
        >>> t = matrix_table(load_fixture().all_cases)
        >>> [(r["outcome"], r["advisor_shape"], r["agrees"]) for r in t if r["id"] == "oversize-embed"]
        [('embed-over-budget', 'resource-link', False)]
    """
    return Table(matrix_rows(cases, policy), TABLE_COLUMNS)


# ---------------------------------------------------------------------------------------------
# The words a drawing writes
# ---------------------------------------------------------------------------------------------

MARK_DY = 0.1  # markers sit a little below the row centre: the band's top strip holds its words
_ID_MAX = 26  # characters of an id shown before an ellipsis


def safe_text(text: object, limit: int = _ID_MAX) -> str:
    """Text from a case made safe to draw: one line, no control characters, truncated.

    A character the chart font lacks becomes a look-alike or its code point (``✅`` → ``✓``).
    """
    s = "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in str(text))
    s = drawable(" ".join(s.split())) or "(blank)"
    return s if len(s) <= limit else s[: limit - 1] + "…"


def x_of(nbytes: int) -> float:
    """The x position of a payload: payloads above 1 MB are clamped to the right edge."""
    return float(min(nbytes, XMAX))


def label_text(case: Case, d: Decision) -> str:
    """A case's label on the map: its id, → the selected shape or ✕ the rule that refused it."""
    sign = "→" if d.accepted else "✕"
    note = " (≥ 1 MB)" if case.bytes > XMAX else ""
    return f"{safe_text(case.id)} {sign} {d.outcome}{note}"


def status_text(case: Case, d: Decision, policy: Policy | None) -> str:
    """The figure's status line for a highlighted case: its facts, its outcome, its region."""
    advised = region_advice(case.shape, case.bytes, policy)
    verdict = f"accepted → {d.selected}" if d.accepted else f"rejected ✕ {d.rejection}"
    region = "the region agrees" if advised == case.shape else f"the region recommends {advised or 'no shape'}"
    return f"{safe_text(case.id)} · {case.initiator} · {case.bytes:,} B · {verdict} · {region}"


def short_status(case: Case, policy: Policy | None) -> str:
    """The interactive map's status line: the row and what the region under the case recommends.

    It leaves out the byte count on purpose: few distinct lines means their pixels can be cached.
    """
    advised = region_advice(case.shape, case.bytes, policy)
    region = "agrees" if advised == case.shape else f"recommends {advised or 'no shape'}"
    return f"{case.initiator} initiates · {case.shape} row · the advisor's region here {region}"


def caption_text(rules: Sequence[Rule] = RULES) -> str:
    """The figure's caption: the check every row meets first, in the rule table's own words.

    The map's regions say which shape the advisor prefers; they never override the rules. The
    first rule of the table is checked before any other, whatever the row, so the caption names
    it (its code and its test) and says how far the axis reaches.

    Example:
        >>> caption_text().splitlines()[0][:66]
        'Checked first on every row: a case is refused (custody-incomplete)'
    """
    first = rules[0]
    return (
        f"Checked first on every row: a case is refused ({first.code})\nwhen {first.test}.\n"
        "Payloads above 1 MB sit on the right edge, labelled ≥ 1 MB."
    )
