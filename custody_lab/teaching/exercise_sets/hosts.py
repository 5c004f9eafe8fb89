"""One result, several hosts (notebook 10): what reaches the model under each host profile.

========  =====  =========================================================================
id        level  task
========  =====  =========================================================================
hosts-01  1      ``calculate_risk`` returns ``structuredContent`` and its JSON as text: the
                 bytes that reach the model under ``both-forms``
hosts-02  2      four hosts' logs and model texts for a link the caller may not read: which
                 host laundered it through its own fetch
hosts-03  2      five forms of one customer record: the one every profile reads whole with
                 no host rule broken by the form
hosts-04  2      a 9,000-byte embed under the ``custodian``: what the model's context holds
                 of it
hosts-05  3      the 18,000-byte report link the caller may read: the host rules
                 ``both-forms`` breaks
========  =====  =========================================================================

Every reference is computed by the host lens (:mod:`custody_lab.protocol.host_lens`) over the lab's
profiles (``data/hosts/profiles.json``, hypothetical hosts); the rules are the host rules of the one
rule table. What a host does with a result is the host's choice (MCP 2025-06-18 and later say
nothing of it); the rules it keeps are the seed's and the lab's host policy.
"""

from __future__ import annotations

__all__ = [
    "EXERCISES",
    "EXPORT_OPTIONS",
    "FORMS",
    "LAUNDER_LETTERS",
    "form_result",
    "launder_readings",
    "risk_result",
]

import functools
import json
from collections.abc import Callable
from typing import Any

from ...core.paths import data_path
from ...core.receipts import canonical_json
from ...protocol.host_lens import HostReading, LensInput, lens, read_result
from ...protocol.host_profiles import load_host_profiles, profile
from ..exercises import Exercise, Mistake
from . import _answers as ans


def _doc(name: str) -> Any:
    return json.loads(data_path("live", name).read_text(encoding="utf-8"))


def risk_result() -> LensInput:
    """``calculate_risk``'s result: the risk document as ``structuredContent`` and as a text block.

    Example:
        >>> len(risk_result().result["content"][0]["text"].encode())
        340
    """
    doc = _doc("risk-42.json")
    result = {"content": [{"type": "text", "text": canonical_json(doc)}], "structuredContent": doc}
    return LensInput("calculate_risk", result, provenance="risk-fixture@1")


# --------------------------------------------------------------------------------------------
# hosts-01: both forms
# --------------------------------------------------------------------------------------------


def _bytes_under(profile_id: str, inp: LensInput) -> int:
    return read_result(inp, profile(profile_id)).model_bytes


def _is(value: int) -> Any:
    return lambda a: ans.number(a) == value


_HOSTS_01 = Exercise(
    id="hosts-01",
    title="Two forms of one answer",
    why="both-forms puts the text block and the structuredContent into context: the same JSON twice, one part per line",
    level=1,
    prompt=(
        "`calculate_risk` returns its risk document twice: as `structuredContent` and, for older clients, "
        "serialized in a text block (340 bytes each, the same compact JSON). How many bytes reach the model "
        "under the `both-forms` profile? Answer with a number."
    ),
    input_label="calculate_risk's result (structuredContent and its JSON in a text block)",
    wanted="a number of bytes",
    reference=lambda: _bytes_under("both-forms", risk_result()),
    compare=lambda a, e: ans.number(a) == e,
    kind="number",
    given=lambda: risk_result().result,
    mistakes=(
        Mistake(
            "one-form",
            _is(340),
            "That is one form. Read the profile's content choice: which parts of the result does it take?",
            example=340,
        ),
        Mistake(
            "forgot-the-line",
            _is(680),
            "Close: the lens writes each part on its own line. What separates the two parts?",
            example=680,
        ),
        Mistake(
            "nothing",
            _is(0),
            "Something does reach the model here: this host takes the result's forms, it refuses none.",
            example=0,
        ),
    ),
    hints=(
        "Look at the profile's content choice, then count each part it takes.",
        "Parts reach the model one per line: add what joins them.",
    ),
)


# --------------------------------------------------------------------------------------------
# hosts-02: who laundered the link
# --------------------------------------------------------------------------------------------

#: The letters under which hosts-02 shows the four profiles (a fixed order, not the data's).
LAUNDER_LETTERS: dict[str, str] = {"A": "both-forms", "B": "eager-fetcher", "C": "custodian", "D": "plain-reader"}
_SECRET_URI = "crm://customer/fixture-99"


def _launder_input() -> LensInput:
    record = canonical_json({"id": "fixture-99", "name": "Sam Okafor", "note": "VIP: credit limit 40,000"})
    link = {"type": "resource_link", "uri": _SECRET_URI, "name": "customer fixture-99", "mimeType": "application/json"}
    return LensInput(
        "lookup_customer",
        {"content": [link]},
        linked={_SECRET_URI: {"uri": _SECRET_URI, "mimeType": "application/json", "text": record}},
        denied=frozenset({_SECRET_URI}),
        provenance="crm-fixture@99",
    )


def launder_readings() -> dict[str, dict[str, Any]]:
    """What hosts A to D put into the model's context and wrote in their logs, by letter.

    Example:
        >>> sorted(launder_readings())
        ['A', 'B', 'C', 'D']
    """
    inp = _launder_input()
    out = {}
    for letter, pid in LAUNDER_LETTERS.items():
        r = read_result(inp, profile(pid))
        out[letter] = {"model sees": r.model_text, "host's log": r.log}
    return out


def _launderers() -> list[str]:
    inp = _launder_input()
    return [k for k, pid in LAUNDER_LETTERS.items() if "link-laundered" in read_result(inp, profile(pid)).broken]


def _letters(answer: object) -> frozenset[str] | None:
    found = ans.names(answer)
    return None if found is None else frozenset(n.upper() for n in found)


def _has(letter: str) -> Any:
    return lambda a: letter in (_letters(a) or ())


_HOSTS_02 = Exercise(
    id="hosts-02",
    title="Who fetched the customer the caller may not see?",
    why=(
        "the caller may not read crm://customer/fixture-99; host B's model text holds the record and its "
        "log names only the tool: it read the link with its own access and logged the tool name"
    ),
    level=2,
    prompt=(
        "`lookup_customer` returns one `resource_link` to `crm://customer/fixture-99`, a record the caller "
        'may **not** read. Four hosts, A to D, handled the result; `input_for("hosts-02")` shows, for '
        "each, what reached the model and what it logged. Which host(s) laundered the link through a "
        'privileged fetch? Answer with the list of letters, e.g. `["A"]`.'
    ),
    input_label="four hosts' model texts and logs for one link the caller may not read",
    wanted="a list of letters",
    reference=_launderers,
    compare=lambda a, e: _letters(a) is not None and _letters(a) == _letters(e),
    kind="list",
    given=launder_readings,
    mistakes=(
        Mistake(
            "every-host",
            lambda a: (_letters(a) or frozenset()) >= {"A", "B", "C", "D"},
            "Not every host fetched: compare what each one's model sees.",
            example=["A", "B", "C", "D"],
        ),
        Mistake(
            "named-is-not-read",
            _has("D"),
            "Host D names the link to the model; does the record's text appear in what D's model sees?",
            example=["D"],
        ),
        Mistake(
            "checked-and-refused",
            lambda a: bool((_letters(a) or frozenset()) & {"A", "C"}),
            "A host whose log says the permission was checked and the read refused kept the link and fetched "
            "nothing. Look for a record's text in the model's context.",
            example=["A", "C"],
        ),
    ),
    hints=(
        "For each host, does the customer record's text reach the model?",
        "Then read that host's log: would an auditor learn which URI was read, and whether anyone checked?",
    ),
)


# --------------------------------------------------------------------------------------------
# hosts-03: the form every host keeps
# --------------------------------------------------------------------------------------------

_RECORD_URI = "crm://customer/fixture-17"
#: The forms hosts-03 offers for one customer record, by code.
FORMS: tuple[tuple[str, str], ...] = (
    ("embed", "the record embedded as a `resource` block"),
    ("link", "a `resource_link` to `crm://customer/fixture-17` (the caller may read it)"),
    ("structured-only", "the record as `structuredContent`, with no text block"),
    ("structured-and-text", "the record as `structuredContent` and its compact JSON in a text block"),
    ("text-for-the-user", 'the record\'s JSON in a text block annotated `audience: ["user"]`'),
)


def form_result(code: str) -> LensInput:
    """The customer record (``crm://customer/fixture-17``) sent in one of the :data:`FORMS`.

    Example:
        >>> sorted(form_result("link").linked)
        ['crm://customer/fixture-17']
    """
    doc = _doc("customer-fixture-17.json")
    text = canonical_json(doc)
    item = {"uri": _RECORD_URI, "mimeType": "application/json", "text": text}
    linked: dict[str, Any] = {}
    if code == "embed":
        result: dict[str, Any] = {"content": [{"type": "resource", "resource": item}]}
    elif code == "link":
        result = {"content": [{"type": "resource_link", "uri": _RECORD_URI, "name": "customer fixture-17",
                               "mimeType": "application/json"}]}  # fmt: skip
        linked = {_RECORD_URI: item}
    elif code == "structured-only":
        result = {"content": [], "structuredContent": doc}
    elif code == "structured-and-text":
        result = {"content": [{"type": "text", "text": text}], "structuredContent": doc}
    elif code == "text-for-the-user":
        result = {"content": [{"type": "text", "text": text, "annotations": {"audience": ["user"]}}]}
    else:
        raise ValueError(f"no form {code!r}; the forms are {', '.join(c for c, _ in FORMS)}")
    return LensInput("get_customer", result, linked=linked, provenance="crm-fixture@17")


def _keeps_custody(readings: tuple[HostReading, ...]) -> bool:
    """Every profile's model gets the whole record, and breaks no rule but its own logging choice."""
    text = canonical_json(_doc("customer-fixture-17.json"))
    whole = all(text in r.model_text for r in readings)
    return whole and all(set(r.broken) <= {"budgets-not-separate"} for r in readings)


@functools.cache
def _form_verdicts() -> dict[str, bool]:
    profiles = load_host_profiles()
    return {code: _keeps_custody(lens(form_result(code), profiles)) for code, _ in FORMS}


def _holds_for(code: str) -> Callable[[dict[str, bool]], bool]:
    return lambda seen: seen[code]


_FORM_OPTIONS: tuple[ans.Option[dict[str, bool]], ...] = tuple(ans.Option(c, t, _holds_for(c)) for c, t in FORMS)


def _picked(*codes: str) -> Any:
    return lambda a: ans.code(a) in codes


_HOSTS_03 = Exercise(
    id="hosts-03",
    title="One form for every host",
    why=(
        "only structuredContent with its JSON in a text block reaches every profile's model whole: a link "
        "is never read by one host and silently by another, an embed enters unchecked where embeds are "
        "trusted, structuredContent alone is invisible to hosts that read blocks, and a user-only block "
        "is either withheld or sent against its annotation"
    ),
    level=2,
    prompt=(
        "A server returns one customer record (748 bytes of JSON) and wants **every** host profile of "
        "this notebook to put the whole record into its model's context while breaking no host rule "
        "because of the form (how a host logs its budgets is the host's own choice). Which form should "
        "it send? Answer with the code of one option, as text.\n\n" + "\n".join(f"- `{c}`: {t}" for c, t in FORMS)
    ),
    input_label="five forms of crm://customer/fixture-17",
    wanted="the code of one option, as text",
    parse="text",
    reference=lambda: ans.the_one("hosts-03", _FORM_OPTIONS, _form_verdicts()),
    compare=lambda a, e: ans.code(a) == e,
    mistakes=(
        Mistake(
            "link-everywhere",
            _picked("link"),
            "Read the links choice of every profile: does each one read the link, and how?",
            example="link",
        ),
        Mistake(
            "embed-everywhere",
            _picked("embed"),
            "Read the embeds choice: which hosts let an embed's bytes in without asking whether the caller "
            "may read it?",
            example="embed",
        ),
        Mistake(
            "structured-alone",
            _picked("structured-only"),
            "Read the content choice: what does a host that takes only the content array see of structuredContent?",
            example="structured-only",
        ),
        Mistake(
            "user-only",
            _picked("text-for-the-user"),
            "An audience annotation is honoured by some hosts and ignored by others: either way, does every "
            "model get the record, within the rules?",
            example="text-for-the-user",
        ),
        *ans.one_option_mistakes([c for c, _ in FORMS], many="link, embed", other="resource"),
    ),
    hints=(
        "Take the forms one at a time, and for each walk through the four profiles' choices.",
        "A form fails if any profile's model misses the record or any profile breaks a rule because of it.",
    ),
)


# --------------------------------------------------------------------------------------------
# hosts-04: the custodian and a big embed
# --------------------------------------------------------------------------------------------

_EXPORT_URI = "orders://export/2026-09"


def _export_input() -> LensInput:
    orders = [{"id": f"A-{i:04d}", "total": 100 + i} for i in range(300)]
    bare = canonical_json({"orders": orders, "note": ""})
    body = canonical_json({"orders": orders, "note": "-" * (9000 - len(bare))})
    item = {"uri": _EXPORT_URI, "mimeType": "application/json", "text": body}
    return LensInput("export_orders", {"content": [{"type": "resource", "resource": item}]}, provenance="orders@9")


def _export_text_reaching(profile_id: str) -> int:
    """Bytes of the export's own text the model sees: the longest prefix of it that starts a line of the
    model's text (placed contents start a line; a line naming the resource starts with its kind)."""
    inp = _export_input()
    text = inp.result["content"][0]["resource"]["text"]
    seen = "\n" + read_result(inp, profile(profile_id)).model_text
    low, high = 0, len(text)  # a prefix in ``seen`` has every shorter prefix in it too
    while low < high:
        mid = (low + high + 1) // 2
        if "\n" + text[:mid] in seen:
            low = mid
        else:
            high = mid - 1
    return len(text[:low].encode("utf-8"))


def _export_seen(profile_id: str) -> dict[str, Any]:
    """What the export became in a profile's model text: bytes of its own text, and the other lines."""
    inp = _export_input()
    reading = read_result(inp, profile(profile_id))
    shown = _export_text_reaching(profile_id)
    total = len(inp.result["content"][0]["resource"]["text"].encode("utf-8"))
    lines = reading.model_text.split("\n") if reading.model_text else []
    return {"shown": shown, "total": total, "lines": len(lines), "names": any(_EXPORT_URI in line for line in lines)}


#: What the model's context holds of the export (hosts-04), by code.
EXPORT_OPTIONS: tuple[ans.Option[dict[str, Any]], ...] = (
    ans.Option("whole", "the whole export", lambda s: s["shown"] == s["total"]),
    ans.Option(
        "cut-with-a-note",
        "the export's first 4,096 bytes and a line saying where the rest is",
        lambda s: 0 < s["shown"] < s["total"] and s["names"],
    ),
    ans.Option(
        "cut-silently",
        "the export's first 4,096 bytes and nothing else",
        lambda s: 0 < s["shown"] < s["total"] and not s["names"],
    ),
    ans.Option(
        "a-line-naming-it",
        "one line naming the resource, its size and why it was not placed; none of its text",
        lambda s: s["shown"] == 0 and s["names"],
    ),
    ans.Option("nothing", "nothing at all", lambda s: s["lines"] == 0),
)

_HOSTS_04 = Exercise(
    id="hosts-04",
    title="The custodian and a 9,000-byte embed",
    why=(
        "9,000 bytes exceed the 4,096-byte content budget; the rule table says embed-over-budget and the "
        "custodian refuses rather than cuts: the model gets one line naming the resource, none of its text"
    ),
    level=2,
    prompt=(
        "`export_orders` embeds `orders://export/2026-09` (9,000 bytes of JSON, which the caller may read) in "
        "its result. The content budget is 4,096 bytes. Under the `custodian` profile, what does the model's "
        "context hold of the export? Answer with the code of one option, as text.\n\n"
        + "\n".join(f"- `{o.code}`: {o.text}" for o in EXPORT_OPTIONS)
    ),
    input_label="export_orders's result: one 9,000-byte embedded resource",
    wanted="the code of one option, as text",
    parse="text",
    reference=lambda: ans.the_one("hosts-04", EXPORT_OPTIONS, _export_seen("custodian")),
    compare=lambda a, e: ans.code(a) == e,
    mistakes=(
        Mistake(
            "cut-to-fit",
            _picked("cut-with-a-note", "cut-silently"),
            "Cutting to fit is one over-budget choice; read this profile's.",
            example="cut-with-a-note",
        ),
        Mistake(
            "all-of-it",
            _picked("whole"),
            "The export is larger than the content budget: read what this profile does with an embed over budget.",
            example="whole",
        ),
        Mistake(
            "said-nothing",
            _picked("nothing"),
            "A custodial host refuses without hiding: would the model learn the resource exists, and where?",
            example="nothing",
        ),
        *ans.one_option_mistakes([o.code for o in EXPORT_OPTIONS], many="whole, nothing", other="refused"),
    ),
    hints=(
        "Compare the embed's size with the content budget, then read the profile's over-budget choice.",
        "Ask what the model would need in order to ask for the export another way.",
    ),
)


# --------------------------------------------------------------------------------------------
# hosts-05: which rules both-forms breaks on a big link
# --------------------------------------------------------------------------------------------

_REPORT_URI = "report://synthetic/weekly-7"


def _report_input() -> LensInput:
    link = {"type": "resource_link", "uri": _REPORT_URI, "name": "weekly-report-7", "mimeType": "text/html"}
    text = data_path("resources", "weekly-report-7.html").read_text(encoding="utf-8")
    return LensInput(
        "generate_report",
        {"content": [link]},
        linked={_REPORT_URI: {"uri": _REPORT_URI, "mimeType": "text/html", "text": text}},
        provenance="report-tool@2",
    )


def _codes(answer: object) -> frozenset[str] | None:
    found = ans.names(answer)
    return None if found is None else frozenset(n.lower() for n in found)


def _includes(code: str) -> Any:
    return lambda a: code in (_codes(a) or ())


_HOSTS_05 = Exercise(
    id="hosts-05",
    title="A big report, read on request",
    why=(
        "both-forms reads the link after a second permission check (allowed), cuts the 18,000-byte report to "
        "the content budget and records the cut in the model's text and its log; only its one combined "
        "number breaks a rule"
    ),
    level=3,
    prompt=(
        "`generate_report` returns a `resource_link` to `report://synthetic/weekly-7` (18,000 bytes of HTML; "
        "the caller may read it) and the model asks for it. Which host rules does the `both-forms` profile "
        'break? Answer with the list of rule codes, e.g. `["link-laundered"]`.'
    ),
    input_label="generate_report's link to an 18,000-byte report the caller may read",
    wanted="a list of rule codes",
    reference=lambda: list(read_result(_report_input(), profile("both-forms")).broken),
    compare=lambda a, e: _codes(a) is not None and _codes(a) == _codes(e),
    kind="list",
    mistakes=(
        Mistake(
            "a-cut-is-not-silence",
            _includes("cut-not-recorded"),
            "This host cuts the report; read its over-budget choice: who is told about the cut?",
            example=["cut-not-recorded", "budgets-not-separate"],
        ),
        Mistake(
            "on-request-is-not-silent",
            _includes("link-dereferenced-silently"),
            "Read its links choice: does it check permission before the read, and does its log name the URI?",
            example=["link-dereferenced-silently"],
        ),
        Mistake(
            "no-embed-here",
            _includes("embed-not-authorised"),
            "Is there an embedded resource in this result?",
            example=["embed-not-authorised"],
        ),
    ),
    hints=(
        "Walk the profile's six choices against this one result: which of them does the result exercise?",
        "One rule is about how the host logs, whatever the result.",
    ),
)

EXERCISES = (_HOSTS_01, _HOSTS_02, _HOSTS_03, _HOSTS_04, _HOSTS_05)
