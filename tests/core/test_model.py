"""Case and Policy validation: every malformed input gets a CaseError naming its field."""

from __future__ import annotations

import pytest

import custody_lab as cl
from custody_lab.core.model import DecisionError

GOOD = {
    "id": "handbook",
    "initiator": "application",
    "operation": "read",
    "shape": "listed-resource",
    "uri": "kb://handbook/v4",
    "mime": "text/markdown",
    "bytes": 1800,
    "current": True,
    "allowed": True,
    "sideEffects": False,
    "provenance": "docs-server@v4",
}


def with_(**changes):
    out = dict(GOOD)
    out.update(changes)
    return out


def without(key):
    return {k: v for k, v in GOOD.items() if k != key}


def test_a_seed_case_round_trips_through_from_dict_and_to_dict():
    case = cl.Case.from_dict(GOOD)
    assert case.to_dict() == {**GOOD, "requiresCurrent": False}
    assert list(case.to_dict())[:11] == list(GOOD)


def test_cases_are_frozen_values():
    case = cl.Case.from_dict(GOOD)
    with pytest.raises(AttributeError):
        case.bytes = 9000  # type: ignore[misc]


@pytest.mark.parametrize(
    ("mapping", "field", "phrases"),
    [
        (without("bytes"), "bytes", ["missing required field 'bytes'", "whole number"]),
        (without("initiator"), "initiator", ["missing required field 'initiator'", "'application', 'model'"]),
        (without("allowed"), "allowed", ["missing required field 'allowed'"]),
        (with_(bytes="1800"), "bytes", ["'bytes'", "the string '1800'", "remove the quotes"]),
        (with_(bytes=True), "bytes", ["'bytes'", "the boolean true"]),
        (with_(bytes=-5), "bytes", ["'bytes'", "0 or more", "-5"]),
        (with_(bytes=1.5), "bytes", ["'bytes'", "whole number", "1.5"]),
        (with_(bytes=float("nan")), "bytes", ["'bytes'", "whole number"]),
        (with_(bytes=10**12), "bytes", ["'bytes'", "1 GiB"]),
        (with_(current=1), "current", ["'current'", "true or false", "the number 1"]),
        (with_(allowed="yes"), "allowed", ["'allowed'", "true or false", "the string 'yes'"]),
        (with_(sideEffects="yes"), "sideEffects", ["'sideEffects'", "the string 'yes'"]),
        (with_(initiator="user"), "initiator", ["'initiator'", "'application', 'model'", "'user'"]),
        (with_(shape="resource"), "shape", ["'shape'", "'listed-resource'", "'structured-tool-result'"]),
        (with_(operation="delete"), "operation", ["'operation'", "'read'", "'mutate'", "'delete'"]),
        (with_(id=""), "id", ["'id'", "non-empty string"]),
        (with_(id="   "), "id", ["'id'", "non-empty string"]),
        (with_(id=7), "id", ["'id'", "the number 7"]),
        (with_(uri=42), "uri", ["'uri'", "the number 42"]),
        (with_(title=["x"]), "title", ["'title'", "a list"]),
        (with_(sideEfects=True), "sideEfects", ["unknown field 'sideEfects'", "did you mean 'sideEffects'"]),
        (with_(colour="red"), "colour", ["unknown field 'colour'", "allowed fields"]),
        (with_(requiresCurrent="true"), "requiresCurrent", ["'requiresCurrent'", "true or false"]),
    ],
)
def test_malformed_case_is_rejected_with_the_field_named(mapping, field, phrases):
    with pytest.raises(cl.CaseError) as info:
        cl.Case.from_dict(mapping)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.field == field, f"input {mapping!r}: expected field {field!r}, got {err.field!r} ({err})"
    for phrase in phrases:
        assert phrase in str(err), f"expected {phrase!r} in the message, got: {err}"


@pytest.mark.parametrize("value", [[], "case", 3, None])
def test_non_mapping_input_is_rejected_plainly(value):
    with pytest.raises(cl.CaseError, match="must be an object") as info:
        cl.Case.from_dict(value)
    assert info.value.field is None


@pytest.mark.parametrize("key", ["uri", "mime", "provenance", "sideEffects"])
def test_custody_keys_may_be_absent_or_null_and_stay_none(key):
    assert cl.Case.from_dict(without(key)).get(key) is None
    assert cl.Case.from_dict(with_(**{key: None})).get(key) is None


def test_requires_current_defaults_to_false_and_free_text_is_optional():
    case = cl.Case.from_dict(GOOD)
    assert case.requires_current is False
    assert case.title is None and "title" not in case.to_dict()
    titled = cl.Case.from_dict(with_(title="✅ approved policy", description="<b>trust me</b>"))
    assert titled.to_dict()["title"] == "✅ approved policy"


def test_integral_float_bytes_are_accepted_as_whole_numbers():
    assert cl.Case.from_dict(with_(bytes=1800.0)).bytes == 1800


def test_with_changes_validates_again():
    case = cl.Case.from_dict(GOOD)
    assert case.with_changes(bytes=9000).bytes == 9000
    with pytest.raises(cl.CaseError, match="'bytes'"):
        case.with_changes(bytes=-1)
    with pytest.raises(cl.CaseError, match="'initiator'"):
        case.with_changes(initiator="robot")


@pytest.mark.parametrize(
    ("mapping", "field"),
    [
        ({"embedLimitBytes": -1}, "embedLimitBytes"),
        ({"embedLimitBytes": "4096"}, "embedLimitBytes"),
        ({"embedLimitBytes": True}, "embedLimitBytes"),
        ({"now": ""}, "now"),
        ({"requireCurrent": "yes"}, "requireCurrent"),
        ({"embedLimit": 10}, "embedLimit"),
    ],
)
def test_bad_policy_values_name_the_field(mapping, field):
    with pytest.raises(cl.PolicyError) as info:
        cl.Policy.from_dict(mapping)
    assert info.value.field == field, str(info.value)


def test_default_policy_is_the_seeds():
    assert cl.Policy().to_dict() == {"embedLimitBytes": 4096, "now": "2026-09-04T12:00:00.000Z"}


def _custody():
    return cl.Custody("model", True, "a://b", "text/plain", "p@1", 1, "2026-09-04T12:00:00.000Z", False)


def _steps(*pairs):
    return tuple(cl.TraceStep(code, status, "t") for code, status in pairs)


BAD_DECISIONS = [
    # (name, accepted, rejection, trace, offending step, words in the message)
    (
        "two-failed-steps",
        False,
        "custody-incomplete",
        _steps(("custody-incomplete", "failed"), ("permission-denied", "failed")),
        1,
        "second failed step",
    ),
    (
        "failed-step-is-not-the-rejection",
        False,
        "permission-denied",
        _steps(("custody-incomplete", "failed"), ("permission-denied", "not-reached")),
        0,
        "'custody-incomplete'",
    ),
    (
        "passed-after-the-deciding-step",
        False,
        "stale-content",
        _steps(("stale-content", "failed"), ("embed-over-budget", "passed")),
        1,
        "passed after",
    ),
    (
        "accepted-with-a-failed-step",
        True,
        None,
        _steps(("stale-content", "passed"), ("embed-over-budget", "failed")),
        1,
        "accepted",
    ),
    (
        "rejected-but-nothing-failed",
        False,
        "stale-content",
        _steps(("stale-content", "passed"), ("embed-over-budget", "passed")),
        None,
        "no step failed",
    ),
]


@pytest.mark.parametrize(
    ("accepted", "rejection", "trace", "step", "words"),
    [pytest.param(*row[1:], id=row[0]) for row in BAD_DECISIONS],
)
def test_a_decision_whose_trace_contradicts_it_raises_naming_the_step(accepted, rejection, trace, step, words):
    selected = "listed-resource" if accepted else None
    with pytest.raises(cl.CustodyLabError) as info:
        cl.Decision("x", accepted, selected, rejection, _custody(), trace)
    err = info.value
    assert isinstance(err, DecisionError), f"expected DecisionError, got {type(err).__name__}: {err}"
    assert err.step == step, f"{[(s.code, s.status) for s in trace]}: expected step {step}, got {err.step}"
    assert words in str(err), f"expected {words!r} in the message, got {err}"


def test_a_hand_built_decision_may_have_an_empty_trace_and_a_routed_one_never_has():
    for accepted, rejection in ((True, None), (False, "stale-content")):
        d = cl.Decision("x", accepted, None if rejection else "listed-resource", rejection, _custody())
        assert d.trace == (), d
    routed = cl.route(GOOD)
    assert len(routed.trace) == len(cl.RULES), f"expected one step per rule, got {routed.trace}"


def test_a_well_formed_rejected_trace_is_accepted_as_is():
    trace = _steps(("custody-incomplete", "passed"), ("stale-content", "failed"), ("embed-over-budget", "not-reached"))
    d = cl.Decision("x", False, None, "stale-content", _custody(), trace)
    assert d.trace == trace and d.outcome == "stale-content"


def test_a_case_with_many_unknown_keys_gets_a_short_error_in_one_pass(monkeypatch):
    """Issue 39 §3: a JSON case of a million unknown keys took 25 s and a 204-million-character error."""
    import difflib

    from custody_lab.core import model
    from custody_lab.core.model import MAX_EXPLAINED_COLUMNS

    searches: list[str] = []
    real = difflib.get_close_matches
    monkeypatch.setattr(
        difflib, "get_close_matches", lambda word, *a, **k: searches.append(word) or real(word, *a, **k)
    )
    good = cl.load_fixture().all_cases[0].to_dict()
    wide = {**good, **{f"extra{i}": i for i in range(100_000)}, "byts": 1}
    with pytest.raises(cl.CaseError) as caught:
        model.Case.from_dict(wide)
    problems = caught.value.problems
    assert len(problems) == MAX_EXPLAINED_COLUMNS + 1, len(problems)
    assert [p.field for p in problems[:-1]] == [f"extra{i}" for i in range(MAX_EXPLAINED_COLUMNS)]
    assert str(problems[-1]).startswith("and 99,991 more unknown fields"), problems[-1]
    assert len(str(caught.value)) < 4000, len(str(caught.value))
    assert searches == [f"extra{i}" for i in range(MAX_EXPLAINED_COLUMNS)], f"{len(searches):,} similarity searches"


def test_a_few_unknown_keys_are_each_explained_with_a_close_name():
    good = cl.load_fixture().all_cases[0].to_dict()
    with pytest.raises(cl.CaseError) as caught:
        cl.Case.from_dict({**good, "byts": 1, "sideEffect": True})
    assert [p.field for p in caught.value.problems] == ["byts", "sideEffect"]
    assert "did you mean 'bytes'?" in str(caught.value) and "more unknown" not in str(caught.value)


def test_an_unknown_key_is_refused_saying_so_and_a_far_name_gets_no_suggestion():
    good = cl.load_fixture().all_cases[0].to_dict()
    with pytest.raises(cl.CaseError) as caught:
        cl.Case.from_dict({**good, "notes": "x"})
    assert "unknown fields are refused, not ignored" in str(caught.value), str(caught.value)
    assert "did you mean" not in str(caught.value), f"'notes' is not close to any field: {caught.value}"


def test_a_size_written_with_a_unit_says_a_number_of_bytes_no_units():
    good = cl.load_fixture().all_cases[0].to_dict()
    with pytest.raises(cl.CaseError) as caught:
        cl.Case.from_dict({**good, "bytes": "5 KB"})
    assert caught.value.field == "bytes" and "(a number of bytes, no units" in str(caught.value), str(caught.value)
