"""The URI-template exercises (uri-01 … uri-08): answers, the hints of typical mistakes, panels.

The two-way gate over every registered exercise (reference passes, stub fails, each listed
mistake's example gets its own hint, no answer type raises) lives in ``tests/teaching/test_exercises.py``;
this file checks what is specific to the URI set.
"""

from __future__ import annotations

import pytest

from custody_lab.exercises import all_exercises, check, get, input_for, reset_progress, reveal
from custody_lab.uri_templates import AmbiguousTemplateError, UriTemplateError, expand, match, parse

URI = all_exercises("uri")
IDS = [e.id for e in URI]


@pytest.fixture(autouse=True)
def _fresh_progress():
    reset_progress()
    yield
    reset_progress()


def test_there_are_at_least_six_uri_exercises_rising_in_difficulty():
    assert len(URI) >= 6, f"expected at least 6 uri exercises, got {IDS}"
    levels = [e.level for e in URI]
    assert levels == sorted(levels) and levels[0] == 1 and levels[-1] >= 4, f"levels: {levels}"


def test_the_uri_exercises_are_registered_with_the_framework():
    from custody_lab.teaching.exercise_sets import SET_MODULES

    assert {"uri_expand", "uri_match"} <= set(SET_MODULES), SET_MODULES
    assert IDS == [f"uri-{n:02d}" for n in range(1, len(IDS) + 1)], IDS


# The reference answers, written out by hand: if the engine or an exercise drifts, this says so.
REFERENCES = {
    "uri-01": "tickets://returns/T-588",
    "uri-02": "exports://Q3%20report%2Ffinal.csv",
    "uri-03": "files://shared/Q3%20plans/budget%20final.xlsx",
    "uri-04": "müller/de",
    "uri-05": "tickets://search?status=open&q=",
    "uri-06": "search://kb?tag=returns&tag=eu",
    "uri-07": 15,
    "uri-08": ["users://{user_id}/avatar", "archive://{+prefix}/index", "metrics://{host}/{metric}{?window}"],
}
MATCHABLE = REFERENCES["uri-08"]


@pytest.mark.parametrize("exercise_id", list(REFERENCES))
def test_each_reference_answer_is_the_one_worked_out_by_hand(exercise_id):
    assert reveal(exercise_id) == REFERENCES[exercise_id], (
        f"{exercise_id}: expected {REFERENCES[exercise_id]!r}, got {reveal(exercise_id)!r}"
    )


def test_the_inputs_are_what_the_prompts_describe():
    assert input_for("uri-01") == {
        "template": "tickets://{queue}/{ticket_id}",
        "values": {"queue": "returns", "ticket_id": "T-588"},
    }
    for exercise_id in ("uri-01", "uri-02", "uri-03", "uri-05", "uri-06"):
        given = input_for(exercise_id)
        assert expand(given["template"], given["values"]) == REFERENCES[exercise_id], exercise_id  # type: ignore[index]
    given = input_for("uri-04")
    assert match(given["template"], given["uri"]) == {"id": REFERENCES["uri-04"]}  # type: ignore[index]
    assert input_for("uri-05")["values"]["assignee"] is None and input_for("uri-05")["values"]["q"] == ""  # type: ignore[index]
    assert "%20" in input_for("uri-03")["values"]["path"]  # type: ignore[index]  # the triplet the prompt names
    with pytest.raises(UriTemplateError) as info:
        parse(input_for("uri-07"))  # type: ignore[arg-type]
    assert info.value.position == REFERENCES["uri-07"]
    templates = input_for("uri-08")
    assert len(templates) == 5  # type: ignore[arg-type]
    refused = [t for t in templates if t not in MATCHABLE]  # type: ignore[union-attr]
    assert len(refused) == 2, refused
    for template in refused:
        with pytest.raises(AmbiguousTemplateError):
            match(template, "x://")


def test_uri_08s_accepted_templates_really_round_trip_and_the_refused_ones_really_split_two_ways():
    """What the uri-08 hints claim: the end of the URI pins a trailing literal, and the two refused
    templates have URIs that two different value sets expand to."""
    values = {
        "users://{user_id}/avatar": {"user_id": "ana/b"},
        "archive://{+prefix}/index": {"prefix": "2026/q3/index"},
        "metrics://{host}/{metric}{?window}": {"host": "db-1", "metric": "p99?x", "window": "5m"},
    }
    for template, given in values.items():
        assert match(template, expand(template, given)) == given, template
    assert expand("pkg://{name}-{version}", {"name": "live", "version": "chat-2"}) == expand(
        "pkg://{name}-{version}", {"name": "live-chat", "version": "2"}
    )
    assert expand("backup://{+dir}/{+file}", {"dir": "a", "file": "b/c"}) == expand(
        "backup://{+dir}/{+file}", {"dir": "a/b", "file": "c"}
    )


def test_the_uri_08_prompt_says_what_rfc_6570_says_and_that_the_rule_is_the_labs():
    prompt = get("uri-08").prompt
    assert "§1.4" in prompt and "delimited by the beginning or end of the URI" in prompt, prompt
    assert "left to each implementation" in prompt and "The lab's `match`" in prompt, prompt
    assert "unless" in prompt, "the rule must name the exception its own reference answer relies on"


# The typical mistakes the brief names, and more: (exercise, wrong answer, mistake, words in the hint).
# The answers here are NOT the mistakes' own examples: each detector must recognise a family.
HINTS = [
    ("uri-01", "tickets://{queue}/{ticket_id}", "sent-the-template", "never sends a template"),
    ("uri-01", " tickets://{returns}/T-588 ", "kept-the-braces", "braces"),
    ("uri-01", "tickets://T-588/returns", "swapped-the-values", "its own variable"),
    ("uri-01", "tickets://queue=returns/T-588", "named-the-variables", "named operators"),
    ("uri-02", "exports://Q3 report/final.csv", "forgot-percent-encoding", "%20"),
    ("uri-02", "exports://Q3%20report/final.csv", "kept-the-slash", "%2F"),
    ("uri-02", "exports://Q3+report/final.csv", "plus-for-space", "form encoding"),
    ("uri-02", "exports://Q3%2520report%2Ffinal.csv", "encoded-twice", "twice"),
    ("uri-02", "exports://Q3%20report%2Ffinal%2ecsv", "encoded-the-dot", "unreserved"),
    ("uri-03", "files://shared/Q3%20plans%2fbudget%20final.xlsx", "encoded-the-slash-under-plus", "{+path}"),
    ("uri-03", "files://shared/Q3%20plans/budget%2520final.xlsx", "re-encoded-the-triplet", "§3.2.3"),
    ("uri-03", "files://shared/Q3 plans/budget final.xlsx", "decoded-the-triplet", "never decodes"),
    ("uri-03", "files://shared/Q3 plans/budget%20final.xlsx", "kept-the-space", "%20"),
    ("uri-04", "m%c3%bcller%2fde", "kept-the-percent-encoding", "UTF-8"),
    ("uri-04", {"id": "müller/de"}, "gave-the-dict", 'result["id"]'),
    ("uri-04", "mÃ¼ller/de", "decoded-as-latin-1", "Latin-1"),
    ("uri-04", "müller", "split-after-decoding", "%2F"),
    ("uri-05", "tickets://search?status=open&assignee=&q=", "wrote-the-undefined-name", "empty string"),
    ("uri-05", "tickets://search?status=open&assignee&q=", "wrote-the-undefined-name", "undefined"),
    ("uri-05", "tickets://search?status=open&q=&assignee=None", "wrote-none", "None"),
    ("uri-05", "tickets://search?status=open&&q=", "kept-a-separator", "separator"),
    ("uri-05", " tickets://search?status=open ", "dropped-the-empty-value", "defined, only empty"),
    ("uri-05", "tickets://search?status=open&q", "empty-without-equals", "keeps its '='"),
    ("uri-05", "tickets://search&status=open&q=", "ampersand-first", "'?'"),
    ("uri-06", "search://kb?tag=returns,eu", "joined-with-commas", "NOT exploded"),
    ("uri-06", "search://kb?tag=returns&eu", "named-it-once", "repeats the variable's name"),
    ("uri-06", "search://kb?tag=returns?tag=eu", "question-mark-twice", "one query"),
    ("uri-06", "search://kb/returns/eu", "path-segments", "{/tag*}"),
    ("uri-07", 16, "counted-from-one", "count from 0"),
    ("uri-07", 16.0, "counted-from-one", "count from 0"),
    ("uri-07", 9, "pointed-at-the-brace", "MCP SDK"),
    ("uri-07", 5, "counted-inside-the-expression", "whole template"),
    (
        "uri-08",
        (*MATCHABLE, "pkg://{name}-{version}", "backup://{+dir}/{+file}"),
        "hyphen-inside-and-after",
        "unreserved",
    ),
    ("uri-08", {*MATCHABLE, "backup://{+dir}/{+file}"}, "slash-inside-a-reserved-value", "keeps '/'"),
    (
        "uri-08",
        ["users://{user_id}/avatar", "metrics://{host}/{metric}{?window}"],
        "left-out-the-reserved-one",
        "end of the URI",
    ),
    ("uri-08", ["users://{user_id}/avatar", "archive://{+prefix}/index"], "left-out-the-query", "%3F"),
    (
        "uri-08",
        ["archive://{+prefix}/index", "metrics://{host}/{metric}{?window}"],
        "left-out-the-literal-suffix",
        "%2F",
    ),
    ("uri-08", (1, 3, 5), "gave-positions", "strings"),
]


@pytest.mark.parametrize(
    ("exercise_id", "answer", "mistake", "words"), HINTS, ids=[f"{i}:{m}:{n}" for n, (i, _, m, _) in enumerate(HINTS)]
)
def test_a_typical_mistake_gets_its_specific_hint(exercise_id, answer, mistake, words):
    result = check(exercise_id, answer)
    assert not result.passed and result.status == "wrong", f"{exercise_id} {answer!r}: {result}"
    assert result.mistake == mistake, (
        f"{exercise_id}: answer {answer!r} expected mistake {mistake!r}, got {result.mistake!r}"
    )
    assert words in (result.hint or ""), f"{words!r} missing from the hint {result.hint!r}"
    expected = str(reveal(exercise_id))
    if expected not in str(answer):  # beyond what the learner typed, nothing names the answer
        assert expected not in str(result), (
            f"{exercise_id}: the feedback to {answer!r} gives away {expected!r}: {result}"
        )


def test_the_mistakes_named_in_the_brief_exist():
    names = {(e.id, m.name) for e in URI for m in e.mistakes}
    for wanted in [
        ("uri-02", "forgot-percent-encoding"),
        ("uri-03", "encoded-the-slash-under-plus"),
        ("uri-05", "wrote-the-undefined-name"),
        ("uri-05", "dropped-the-empty-value"),
        ("uri-06", "joined-with-commas"),
        ("uri-03", "re-encoded-the-triplet"),
    ]:
        assert wanted in names, f"missing {wanted}"


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("uri-01", "  tickets://returns/T-588\n"),
        ("uri-01", "TICKETS://returns/T-588"),  # RFC 3986 §3.1: the scheme is case-insensitive
        ("uri-01", "'tickets://returns/T-588'"),  # the quoted form custody-lab solutions prints
        ("uri-02", "exports://Q3%20report%2ffinal.csv"),  # RFC 3986 §2.1: hex case is equivalent
        ("uri-07", 15.0),
        ("uri-07", " 15 "),
        ("uri-08", tuple(reversed(MATCHABLE))),
        ("uri-08", set(MATCHABLE)),
    ],
)
def test_harmless_variations_of_a_right_answer_pass(exercise_id, answer):
    assert check(exercise_id, answer).passed, f"{exercise_id}: {answer!r} should pass"


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("uri-07", True),
        ("uri-07", 15.5),
        ("uri-08", ["users://{user_id}/avatar"] * 3 + ["x"]),
        ("uri-02", "exports://Q3%20report%2Ffinal.csv/"),
        ("uri-01", "tickets://returns/t-588"),  # only the scheme and the hex digits are case-insensitive
        ("uri-02", "exports://q3%20report%2Ffinal.csv"),
    ],
)
def test_near_misses_without_a_known_mistake_still_fail_naming_the_input(exercise_id, answer):
    result = check(exercise_id, answer)
    assert not result.passed
    assert get(exercise_id).input_label in result.message or result.mistake is not None, result.message


def test_an_unanswered_stub_names_the_input_and_what_is_wanted():
    result = check("uri-05", ...)
    assert result.status == "not-answered"
    assert "tickets://search{?status,assignee,q}" in result.message and "expanded URI" in result.message


def test_a_hostile_answer_is_escaped_in_the_result_html():
    page = check("uri-01", "tickets://<img src=x onerror=alert(1)>")._repr_html_()
    assert "<img" not in page and "&lt;img" in page


@pytest.mark.parametrize(
    ("exercise_id", "typed"),
    [
        ("uri-01", "tickets://returns/T-588"),
        ("uri-04", "müller/de"),
        ("uri-07", "15"),
        ("uri-08", str(MATCHABLE)),
    ],
)
def test_answers_typed_into_a_check_panel_pass(exercise_id, typed):
    from custody_lab.teaching.panels import ExercisePanel

    panel = ExercisePanel(exercise_id)
    panel.answer.value = typed
    panel.check_button.click()
    assert panel.result is not None and panel.result.passed, f"{exercise_id}: typed {typed!r}: {panel.result}"


def test_a_panel_shows_the_slash_under_plus_hint():
    from custody_lab.teaching.panels import ExercisePanel

    panel = ExercisePanel("uri-03")
    panel.answer.value = "files://shared/Q3%20plans%2Fbudget%20final.xlsx"
    panel.check_button.click()
    assert panel.result.mistake == "encoded-the-slash-under-plus"
    assert "Hint:" in panel.output.value and "reserved character" in panel.output.value


def test_what_the_exercises_say_about_the_mcp_sdk_is_true():
    from mcp.shared import uri_template as sdk  # a hard dependency: missing, the test fails

    # uri-07's hint: the SDK reports the position of the '{'
    with pytest.raises(ValueError) as info:
        sdk.UriTemplate.parse("orders://{order-id}")
    assert getattr(info.value, "position", None) == "orders://{order-id}".index("{")
    # notebook 03's SDK comparison: the SDK accepts files://{name}{.ext} and splits at the last dot
    assert sdk.UriTemplate.parse("files://{name}{.ext}").match("files://report.tar.gz") == {
        "name": "report.tar",
        "ext": "gz",
    }
