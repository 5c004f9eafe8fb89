"""The glossary and the cheat sheet say what the package does: each fact is read from the code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import custody_lab as cl
from custody_lab.core.model import OPERATIONS, SHAPES
from custody_lab.core.rules import EXCHANGE_RULES, HOST_RULES, INVALID_PARAMS, LEGACY_RESOURCE_NOT_FOUND, RULES

DOCS = Path(__file__).resolve().parent.parent / "docs"
CHEATSHEET = DOCS / "cheatsheet.md"
GLOSSARY = DOCS / "glossary.md"

CODES = {r.code for r in RULES + EXCHANGE_RULES + HOST_RULES}
TERM = re.compile(r'^- <a id="[a-z0-9-]+"></a>\*\*(?P<term>[^*]+)\*\*: (?P<text>.+)$')
KEBAB = re.compile(r"`([a-z]+(?:-[a-z]+)+)`")


def section(text: str, heading: str) -> str:
    """The body of the ``## heading`` section (up to the next ``## ``)."""
    parts = re.split(r"^## ", text, flags=re.M)
    found = [p for p in parts if p.splitlines()[0].strip() == heading]
    assert len(found) == 1, f"expected one section '## {heading}', found {len(found)}"
    return found[0]


def table_rows(body: str) -> list[list[str]]:
    """The cells of a markdown table's body rows (header and divider left out)."""
    rows = [line for line in body.splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]
    return cells[2:]


def backticked(cell: str) -> str:
    match = re.fullmatch(r"`([^`]+)`", cell)
    assert match, f"expected a single backticked value, got {cell!r}"
    return match.group(1)


def field_lines(body: str) -> list[list[str]]:
    """Each line that is only a comma-separated list of backticked names."""
    lines = [line for line in body.splitlines() if re.fullmatch(r"`\w+`(, `\w+`)*", line.strip())]
    return [re.findall(r"`(\w+)`", line) for line in lines]


def glossary_terms() -> list[tuple[str, str]]:
    lines = [line for line in GLOSSARY.read_text().splitlines() if line.startswith("- ")]
    parsed = [TERM.match(line) for line in lines]
    bad = [line for line, m in zip(lines, parsed, strict=True) if m is None]
    assert not bad, f"glossary lines not in the form '- <a id=(anchor)></a>**term**: text': {bad}"
    return [(m.group("term"), m.group("text")) for m in parsed if m]


def test_the_cheat_sheet_lists_the_rules_in_the_order_and_words_of_the_rule_table():
    rows = table_rows(section(CHEATSHEET.read_text(), "The rule order"))
    doc = [(row[0], backticked(row[1]), row[2]) for row in rows]
    code = [(str(i), r.code, r.test) for i, r in enumerate(RULES, 1)]
    assert doc == code, f"cheat sheet rules:\n{doc}\nexpected RULES:\n{code}"


def test_the_cheat_sheet_lists_the_exchange_rules_in_order_with_their_stage_and_words():
    rows = table_rows(section(CHEATSHEET.read_text(), "The exchange rules (live mode)"))
    doc = [(row[0], backticked(row[1]), row[2], row[3]) for row in rows]
    code = [(str(i), r.code, r.stage, r.test) for i, r in enumerate(EXCHANGE_RULES, 1)]
    assert doc == code, f"cheat sheet exchange rules:\n{doc}\nexpected EXCHANGE_RULES:\n{code}"


def test_the_cheat_sheet_shows_the_five_shapes_in_order_each_with_json_that_parses():
    body = section(CHEATSHEET.read_text(), "The five shapes")
    subsections = re.split(r"^### ", body, flags=re.M)[1:]
    names = [backticked(s.splitlines()[0].strip()) for s in subsections]
    assert names == list(SHAPES), f"shape headings {names}, expected SHAPES {list(SHAPES)}"
    wire = {}
    for name, sub in zip(names, subsections, strict=True):
        blocks = re.findall(r"^```json\n(.*?)^```", sub, flags=re.M | re.S)
        assert len(blocks) == 1, f"{name}: expected one JSON example, found {len(blocks)}"
        wire[name] = json.loads(blocks[0])
    # the fields that make each shape what it is on the wire (MCP 2026-07-28)
    assert "uri" in wire["listed-resource"] and "uriTemplate" not in wire["listed-resource"], wire
    assert "uriTemplate" in wire["templated-resource"] and "uri" not in wire["templated-resource"], wire
    assert wire["resource-link"]["type"] == "resource_link" and "text" not in wire["resource-link"], wire
    embedded = wire["embedded-resource"]
    assert embedded["type"] == "resource" and {"uri", "text"} <= set(embedded["resource"]), embedded
    structured = wire["structured-tool-result"]
    assert "outputSchema" in structured["tool"] and "structuredContent" in structured["result"], structured
    required = structured["tool"]["outputSchema"]["required"]
    assert set(required) <= set(structured["result"]["structuredContent"]), structured
    text = json.loads(structured["result"]["content"][0]["text"])
    assert text == structured["result"]["structuredContent"], "the TextContent copy must be the same JSON"
    # MCP 2026-07-28: every result a server sends MUST carry resultType
    assert structured["result"].get("resultType") == "complete", structured["result"]


def test_every_json_block_in_the_cheat_sheet_parses():
    blocks = re.findall(r"^```json\n(.*?)^```", CHEATSHEET.read_text(), flags=re.M | re.S)
    assert blocks, "the cheat sheet has no JSON blocks"
    for block in blocks:
        json.loads(block)


def test_the_cheat_sheet_gives_the_missing_resource_code_of_each_protocol_revision():
    rows = table_rows(section(CHEATSHEET.read_text(), "Error codes per protocol revision"))
    doc = {row[0]: int(row[1]) for row in rows}
    expected = {
        "2026-07-28": INVALID_PARAMS,
        "2025-11-25": LEGACY_RESOURCE_NOT_FOUND,
        "2025-06-18": LEGACY_RESOURCE_NOT_FOUND,
    }
    assert doc == expected, f"cheat sheet error codes {doc}, expected {expected}"


def test_the_cheat_sheet_lists_the_receipt_fields_in_the_fixture_order():
    payload = cl.fixture_payload()
    accepted, refused = payload["accepted"][0], payload["adversarial"][0]
    expected = [list(accepted), list(refused), list(accepted["custody"])]
    doc = field_lines(section(CHEATSHEET.read_text(), "The receipt fields"))
    assert doc == expected, f"cheat sheet receipt fields {doc}, expected {expected}"


def test_the_glossary_is_alphabetical_without_duplicates():
    terms = [term for term, _ in glossary_terms()]
    keys = [term.casefold().lstrip("-") for term in terms]
    assert keys == sorted(keys), f"glossary out of order: {terms}"
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    assert not dupes, f"glossary terms defined twice: {dupes}"


def test_every_backticked_code_shape_or_operation_in_the_glossary_exists_in_the_package():
    known = CODES | set(SHAPES) | set(OPERATIONS)
    named = {name for _, text in glossary_terms() for name in KEBAB.findall(text)}
    unknown = sorted(named - known)
    assert not unknown, f"glossary names {unknown}, which the package does not define"


def test_the_glossary_names_every_rejection_code_and_every_shape():
    named = {name for _, text in glossary_terms() for name in KEBAB.findall(text)}
    missing = sorted((CODES | set(SHAPES)) - named)
    assert not missing, f"glossary never names {missing}"


def test_the_cheat_sheet_states_live_modes_order_as_live_rules_walks_it():
    from custody_lab.core.rules import LIVE_RULES

    text = CHEATSHEET.read_text(encoding="utf-8")
    first_two = [r.code for r in LIVE_RULES[:2]]
    assert first_two == ["permission-denied", "side-effects-unknown"], first_two
    assert "`permission-denied` and `side-effects-unknown` first" in text and "`LIVE_RULES`" in text
    stages = [r.stage for r in LIVE_RULES[2:]]
    assert stages.index("content") > stages.index("exchange") and stages.index("promise") > stages.index("content")
