"""The capstone's judgement of text, URIs and fixes: what says nothing, and what is no design change."""

from __future__ import annotations

import pytest

import custody_lab as cl
from custody_lab.teaching.capstone.judgement import (
    case_findings,
    fix_findings,
    hidden_characters,
    says_nothing,
    sound_fix_exists,
    uri_says_nothing,
)

from .archives import BY_ID


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (None, "is missing"),
        ("", "is empty"),
        ("   ", "is empty"),
        ("x", "is a placeholder"),
        ("ok", "is a placeholder"),
        ("OK.", "is a placeholder"),
        ("TODO", "is a placeholder"),
        ("todo: write why this stays refused", "is a placeholder"),
        ("n/a", "is a placeholder"),
        ("administrators", "is only 1 word"),
        ("admins only", "is only 2 words"),
        ("no no no no", "repeats one word"),
        ("\u200b", "holds characters a reader cannot see (\\u200b)"),
        ("the host\u200b has no admin role", "holds characters a reader cannot see (\\u200b)"),
        ("the host has no admin\u202e role", "holds characters a reader cannot see (\\u202e)"),
        (42, "is not text"),
    ],
)
def test_a_reason_that_says_nothing_is_named_as_such(text, why):
    assert says_nothing(text) == why, f"{text!r}: expected {why!r}, got {says_nothing(text)!r}"


@pytest.mark.parametrize(
    "text",
    [
        "administrators only: this host has no admin role",
        "the export is read through a link\nwhen the user asks for it",
        "Die Protokolle sind nur für Administratoren",
    ],
)
def test_a_reason_in_a_sentence_says_something(text):
    assert says_nothing(text) is None, f"{text!r}: {says_nothing(text)}"


def test_an_actors_name_is_one_word_but_still_no_placeholder():
    assert says_nothing("learner", words=1) is None
    assert says_nothing("x", words=1) == "is a placeholder"
    assert says_nothing("le\u200barner", words=1) is not None


@pytest.mark.parametrize(
    ("uri", "why"),
    [
        ("x", "has no scheme (RFC 3986 §3.1)"),
        ("ok", "has no scheme (RFC 3986 §3.1)"),
        ("TODO", "has no scheme (RFC 3986 §3.1)"),
        ("urn:x", "names nothing after its scheme"),
        ("urn:notes", "names nothing after its scheme"),
        ("x:y", "has a placeholder scheme"),
        ("notes://todo", "names nothing after its scheme"),
        ("urn:notes:\u200bword-count", "holds characters a reader cannot see (\\u200b)"),
        ("urn:notes: word count", "holds white space (RFC 3986 §2: a URI has none)"),
        ("", "is missing"),
    ],
)
def test_a_uri_that_names_nothing_is_named_as_such(uri, why):
    assert uri_says_nothing(uri) == why, f"{uri!r}: expected {why!r}, got {uri_says_nothing(uri)!r}"


@pytest.mark.parametrize(
    "uri", ["urn:notes:word-count:7", "notes://7", "export://notes/all.md", "https://example.org/a"]
)
def test_a_uri_with_a_scheme_and_a_name_is_sound(uri):
    assert uri_says_nothing(uri) is None, f"{uri!r}: {uri_says_nothing(uri)}"


def test_hidden_characters_are_listed_once_each_made_visible():
    assert hidden_characters("a\u200bb\u200bc\x1b") == ["\\u200b", "\\x1b"]


def _changed(cid: str, **change: object) -> cl.Case:
    return cl.Case.from_dict({**BY_ID[cid].to_dict(), **change})


@pytest.mark.parametrize(
    ("cid", "field", "value", "says"),
    [
        ("audit-log", "allowed", True, "grants a permission"),
        ("export-notes", "bytes", 4000, "just under the host's embed limit of 4096 B"),
        ("note", "current", True, "claims the copy is current"),
    ],
)
def test_a_fix_that_is_no_design_change_is_named_without_the_fix(cid, field, value, says):
    designed = BY_ID[cid]
    if field == "current":
        designed = _changed(cid, current=False)
    (finding,) = fix_findings(designed, _changed(cid, **{field: value}), field, cl.Policy())
    assert says in finding and repr(cid) in finding, finding
    assert "resource-link" not in finding and "reason" not in finding, f"the finding gives a fix: {finding}"


def test_a_relabelled_export_and_a_side_effect_free_mutation_are_findings_whatever_changed_them():
    policy = cl.Policy()
    (relabelled,) = case_findings(_changed("export-notes", shape="structured-tool-result"), policy, accepted=True)
    assert "inline" in relabelled and "52000 bytes" in relabelled and "resource-link" not in relabelled, relabelled
    (mutation,) = case_findings(_changed("delete-note", sideEffects=False), policy, accepted=True)
    assert "mutate" in mutation and "sideEffects True" not in mutation, mutation
    assert case_findings(_changed("delete-note", sideEffects=True), policy, accepted=True) == []


@pytest.mark.parametrize(
    ("cid", "expected"),
    [("word-count", True), ("export-notes", True), ("delete-note", True), ("audit-log", False)],
)
def test_a_sound_one_input_fix_exists_for_every_refusal_but_the_permission(cid, expected):
    assert sound_fix_exists(BY_ID[cid], cl.Policy()) is expected, cid
