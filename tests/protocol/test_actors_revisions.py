"""Initiator and executor kept apart in the receipt; versioned vs moving URIs (issue 17, section 2)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

import custody_lab as cl
from custody_lab.core.model import APPLICATION_SHAPES
from custody_lab.core.receipts import EXECUTORS, actor_labels
from custody_lab.exercises import all_exercises, input_for, reveal
from custody_lab.protocol.catalog import Catalog
from custody_lab.protocol.revisions import (
    READ_COMPARISONS,
    REVISION_POLICY,
    classify,
    compare_reads,
    evidence,
)
from custody_lab.protocol.uri_templates import expand, match, parse
from custody_lab.teaching.exercise_sets.actors import SOURCES

SEED_IDS = ["handbook", "customer-record", "generated-report", "risk-score", "live-status", "approve-draft"]

# --------------------------------------------------------------------------------------------
# initiator and executor
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case_id", SEED_IDS)
def test_a_resource_shape_is_executed_by_the_application_and_a_tool_shape_by_the_server(fixture, case_id):
    case = fixture.case(case_id)
    expected = {
        "initiator": case.initiator,
        "executor": "application" if case.shape in APPLICATION_SHAPES else "server",
    }
    got = actor_labels(case)
    assert got == expected, f"{case_id} ({case.initiator}, {case.shape}): expected {expected}, got {got}"


def test_exactly_the_three_model_initiated_seed_cases_have_labels_that_differ(fixture):
    # notebook 02: "three of the six seed cases ... the labels differ"
    differ = [c.id for c in fixture.cases if len(set(actor_labels(c).values())) > 1]
    expected = ["generated-report", "risk-score", "approve-draft"]
    assert differ == expected, f"expected {expected}, got {differ}"


def test_the_extended_receipt_keeps_both_labels_beside_the_byte_identical_seed_receipt(fixture):
    report = fixture.case("generated-report")
    decision = cl.route(report)
    ext = cl.extended_receipt(decision, actors=actor_labels(report))
    seed_part = {k: ext[k] for k in ("id", "accepted", "selected", "custody")}
    assert cl.canonical_json(seed_part) == cl.canonical_json(decision.to_dict()), ext
    assert ext["digest"] == cl.digest(decision.to_dict()), ext
    assert ext["custody"]["actor"] == "model", ext["custody"]
    assert ext["actors"] == {"initiator": "model", "executor": "server"}, ext["actors"]


def test_a_model_proposed_read_keeps_the_model_as_initiator_while_the_seed_actor_says_application(fixture):
    # notebook 02's worked example: the router treats the read as the application's
    record = fixture.case("customer-record")
    labels = actor_labels(initiator="model", method="resources/read")
    ext = cl.extended_receipt(cl.route(record), actors=labels)
    got = (ext["custody"]["actor"], ext["actors"])
    expected = ("application", {"initiator": "model", "executor": "application"})
    assert got == expected, f"expected {expected}, got {got}"


def test_without_actors_the_extended_receipt_has_no_actors_block(fixture):
    ext = cl.extended_receipt(cl.route(fixture.case("handbook")))
    assert "actors" not in ext, f"expected no actors key, got {sorted(ext)}"


@pytest.mark.parametrize(
    ("actors", "field"),
    [
        ({"initiator": "model", "executor": "tool"}, "actors.executor"),
        ({"initiator": "server", "executor": "server"}, "actors.initiator"),
        ({"initiator": "model"}, "actors.executor"),
    ],
)
def test_an_actors_block_with_an_unknown_or_missing_label_is_refused_naming_the_field(fixture, actors, field):
    with pytest.raises(cl.CaseError) as raised:
        cl.extended_receipt(cl.route(fixture.case("handbook")), actors=actors)
    assert raised.value.field == field, f"{actors}: expected field {field}, got {raised.value.field}"
    assert field in str(raised.value), str(raised.value)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"initiator": "model", "method": "sampling/createMessage"}, "method"), ({"method": "tools/call"}, "initiator")],
)
def test_actor_labels_refuses_an_unknown_method_or_a_missing_initiator_naming_the_field(kwargs, field):
    with pytest.raises(cl.CaseError) as raised:
        actor_labels(**kwargs)
    assert raised.value.field == field, f"{kwargs}: expected field {field}, got {raised.value.field}"


def test_every_exercise_source_gets_labels_from_the_known_sets():
    for source in SOURCES:
        labels = source.labels()
        assert labels["initiator"] == source.initiator and labels["executor"] in EXECUTORS, (source, labels)


# --------------------------------------------------------------------------------------------
# versioned and moving URIs
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "kind", "revision"),
    [
        ("kb://handbook/v4", "versioned", "4"),
        ("invoices://2026-09", "versioned", "2026-09"),
        ("report://synthetic/weekly-7", "versioned", "7"),
        ("status://service/current", "moving", None),
        ("logs://api/today", "moving", None),
        ("invoices://current", "undeclared", None),
        ("invoices://2026-13", "undeclared", None),
        ("kb://handbook/vX", "undeclared", None),
        ("kb://shipping", "undeclared", None),
    ],
)
def test_the_host_policy_classifies_a_uri_by_its_first_matching_declaration(uri, kind, revision):
    got = classify(uri)
    assert (got.kind, got.revision) == (kind, revision), f"{uri}: expected {(kind, revision)}, got {got}"


def test_every_versioned_declaration_names_a_variable_of_its_template():
    for rule in REVISION_POLICY:
        variables = set(parse(rule.template).variable_names)
        if rule.kind == "versioned":
            assert rule.revision in variables, f"{rule.template}: revision {rule.revision!r} not in {variables}"
        else:
            assert rule.revision is None, rule


def test_a_template_filled_with_a_closed_month_makes_a_versioned_uri():
    # notebook 03: templates naturally produce versioned URIs
    uri = expand("invoices://{month}", {"month": "2026-09"})
    assert (uri, classify(uri).kind) == ("invoices://2026-09", "versioned"), uri


SHA = "ab" * 32


@pytest.mark.parametrize(
    ("uri", "sha256", "names", "proves", "pinned", "may_cache"),
    [
        ("kb://handbook/v4", None, True, False, False, True),
        (None, SHA, False, True, False, False),
        ("status://service/current", SHA, False, True, False, False),
        ("kb://shipping", SHA, False, True, False, False),
        ("kb://handbook/v4", SHA, True, True, True, True),
    ],
)
def test_only_a_versioned_uri_paired_with_a_digest_names_the_revision_and_proves_the_bytes(
    uri, sha256, names, proves, pinned, may_cache
):
    got = evidence(uri, sha256)
    actual = (got.names_revision, got.proves_bytes, got.pinned, got.may_cache)
    assert actual == (names, proves, pinned, may_cache), (
        f"{uri}, {sha256}: expected {(names, proves, pinned, may_cache)}, got {actual}"
    )
    assert bool(got.missing) is not pinned, f"{uri}, {sha256}: missing {got.missing} but pinned={pinned}"


@pytest.mark.parametrize("bad", ["AB" * 32, "ab" * 31, 42, ""])
def test_a_malformed_digest_is_refused_naming_the_field(bad):
    with pytest.raises(cl.CaseError) as raised:
        evidence("kb://handbook/v4", bad)
    assert raised.value.field == "sha256", f"{bad!r}: got field {raised.value.field}"


@pytest.mark.parametrize("bad", ["", None, 7])
def test_classify_refuses_a_uri_that_is_not_a_non_empty_string(bad):
    with pytest.raises(cl.CaseError) as raised:
        classify(bad)
    assert raised.value.field == "uri", f"{bad!r}: got field {raised.value.field}"


@pytest.mark.parametrize(
    ("uri", "same", "expected"),
    [
        ("kb://handbook/v4", True, "same-bytes"),
        ("kb://handbook/v4", False, "versioned-uri-changed"),
        ("status://service/current", False, "new-revision"),
        ("kb://shipping", False, "new-revision"),
    ],
)
def test_two_reads_of_one_uri_are_judged_by_digest_and_by_what_the_uri_promises(uri, same, expected):
    second = SHA if same else "cd" * 32
    got = compare_reads(uri, SHA, second)
    assert got == expected and got in READ_COMPARISONS, f"{uri} same={same}: expected {expected}, got {got}"


def test_the_catalogs_handbook_digest_is_the_sha256_of_the_file_it_serves():
    read = Catalog.load().read("kb://handbook/v4")
    assert read.sha256 == hashlib.sha256(read.data).hexdigest() and evidence(read.uri, read.sha256).pinned


def test_the_status_document_at_revisions_12_and_13_is_a_new_revision_under_the_same_uri():
    # notebook 03's worked example: the live server's status document moves on
    from custody_lab.live.lab_server import LabState

    digests = [hashlib.sha256(LabState(status_revision=r).status_text().encode()).hexdigest() for r in (12, 13)]
    got = compare_reads("status://service/current", *digests)
    assert digests[0] != digests[1] and got == "new-revision", f"digests {digests}: got {got}"


def test_invoices_current_fits_the_month_template_but_no_declaration_covers_it():
    # notebook 03: "`invoices://current` fits the template `invoices://{month}`, but `current` is not a month"
    fits = match("invoices://{month}", "invoices://current")
    got = (fits, classify("invoices://current").kind, evidence("invoices://current").may_cache)
    assert got == ({"month": "current"}, "undeclared", False), got


def test_a_listed_resource_of_the_catalog_is_still_undeclared():
    # notebook 03: "`kb://shipping` is a listed resource of the catalog, and still undeclared"
    listed = Catalog.load().entry("kb://shipping")
    assert listed is not None and classify("kb://shipping").kind == "undeclared", (listed, classify("kb://shipping"))


# --------------------------------------------------------------------------------------------
# the notebooks use them
# --------------------------------------------------------------------------------------------

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
GLOSSARY_LINK = re.compile(r"\[([^\]]+)\]\(\.\./docs/glossary\.md(#[^)]*)?\)")


def _cells(stem: str, kind: str) -> list[str]:
    nb = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == kind]


def test_notebook_02_uses_every_actor_exercise_and_closes_with_their_progress_panel():
    code = "\n".join(_cells("02-read-the-custody-matrix", "code"))
    ids = [e.id for e in all_exercises("actor")]
    missing = [i for i in ids if f'ExercisePanel("{i}")' not in code and f'PredictThenSee("{i}",' not in code]
    assert len(ids) == 3 and not missing, f"actor exercises {ids}; not in notebook 02: {missing}"
    assert 'ProgressPanel(("actor",))' in _cells("02-read-the-custody-matrix", "code")[-1], "no closing actor panel"


def test_notebook_03_checks_every_revision_exercise_and_shows_each_prompt_as_defined():
    stem = "03-expand-and-match-uri-templates"
    text = "\n".join(_cells(stem, "code") + _cells(stem, "markdown"))
    exercises = all_exercises("revision")
    assert len(exercises) == 3, [e.id for e in exercises]
    for exercise in exercises:
        if exercise.id == "revision-01":  # the predict-then-see panel shows the prompt from the definition
            assert 'PredictThenSee("revision-01"' in text, "notebook 03 does not ask revision-01 in its panel"
            continue
        assert f'check("{exercise.id}", answer)' in text, f"notebook 03 does not check {exercise.id}"
        assert exercise.prompt in text, f"notebook 03: the prompt of {exercise.id} differs from its definition"
    assert 'ProgressPanel("revision")' in _cells(stem, "code")[-1], "no closing revision panel"


def test_actor_02s_input_is_the_seed_receipt_that_says_application_while_the_model_asked():
    given = input_for("actor-02")
    got = (given["id"], given["custody"]["actor"], reveal("actor-02"))
    expected = ("customer-record", "application", {"initiator": "model", "executor": "application"})
    assert got == expected, f"expected {expected}, got {got}"


def _glossary_terms() -> set[str]:
    text = (NOTEBOOKS.parent / "docs" / "glossary.md").read_text(encoding="utf-8")
    return {m.group(1).casefold() for m in re.finditer(r"^- <a id=\"[^\"]+\"></a>\*\*([^*]+)\*\*:", text, re.M)}


@pytest.mark.parametrize(
    "stem", ["01-route-a-custody-case", "02-read-the-custody-matrix", "03-expand-and-match-uri-templates"]
)
def test_every_glossary_link_names_a_glossary_term_and_the_cheat_sheet_is_linked(stem):
    markdown = "\n".join(_cells(stem, "markdown"))
    terms = _glossary_terms()
    links = GLOSSARY_LINK.findall(markdown)
    assert len(links) >= 5, f"{stem}: only {len(links)} glossary links"
    for text, fragment in links:
        said = " ".join(text.strip("*`").split()).casefold()
        known = said == "glossary" or any(t in (said, said.removesuffix("s")) or t.endswith(" " + said) for t in terms)
        # the fragment itself (an anchor of that term) is checked by tests/test_curriculum.py
        assert known, f"{stem}: link {text!r}{fragment} names no glossary term"
    assert "(../docs/cheatsheet.md)" in markdown, f"{stem}: the cheat sheet is not linked"


def test_notebook_02s_alt_text_counts_what_the_matrix_draws(fixture):
    # notebook 02's alt text: five shape rows (two application, three model), ten cases, 4,096 bytes
    from custody_lab.core.model import MODEL_SHAPES

    got = (len(APPLICATION_SHAPES), len(MODEL_SHAPES), len(fixture.all_cases), cl.Policy().embed_limit_bytes)
    assert got == (2, 3, 10, 4096), f"expected (2, 3, 10, 4096), got {got}"
    code = "\n".join(_cells("02-read-the-custody-matrix", "code"))
    images = code.count("display(chart.show_png(")
    assert images == 2 and code.count("alt=(") == images, f"{images} images, {code.count('alt=(')} with alt text"
    assert "chart.matrix_table(fixture.all_cases, strict)" in code, "the stricter map has no table equivalent"
