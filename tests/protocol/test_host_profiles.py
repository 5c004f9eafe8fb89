"""Host profiles are data (issue 41 §1): the lab's rows, and a loader whose errors name the row and field."""

from __future__ import annotations

import json

import pytest

from custody_lab.protocol.host_profiles import CHOICES, HostProfile, HostProfileError, load_host_profiles, profile

#: The lab's four rows, written out by hand from data/hosts/profiles.json's documentation.
EXPECTED = {
    "custodian": ("structured-when-present", "on-request", "kept-from-model", "authorised", "refused", "per-budget"),
    "plain-reader": ("blocks", "never", "sent-to-model", "authorised", "truncated-recorded", "per-budget"),
    "both-forms": ("both", "on-request", "kept-from-model", "trusted", "truncated-recorded", "combined"),
    "eager-fetcher": ("blocks", "silently", "sent-to-model", "trusted", "truncated-silently", "tool-name-only"),
}

GOOD = {
    "id": "x",
    "label": "X",
    "content": "both",
    "links": "never",
    "userBlocks": "sent-to-model",
    "embeds": "trusted",
    "overBudget": "refused",
    "logs": "combined",
    "basis": "hypothetical",
}


def test_the_labs_profiles_are_the_four_documented_rows_each_a_hypothetical_host():
    rows = load_host_profiles()
    got = {p.id: (p.content, p.links, p.user_blocks, p.embeds, p.over_budget, p.logs) for p in rows}
    assert got == EXPECTED, got
    assert all(p.basis.startswith("hypothetical") for p in rows), [p.basis for p in rows]


def test_between_them_the_profiles_use_every_value_of_every_choice():
    rows = load_host_profiles()
    for key, values in CHOICES.items():
        used = {p.to_dict()[key] for p in rows}
        assert used == set(values), f"{key}: the profiles use {sorted(used)} of {values}"


def test_a_row_round_trips_through_its_camel_case_keys():
    p = HostProfile.from_dict(GOOD)
    assert p.to_dict() == GOOD
    assert profile("eager-fetcher").links == "silently"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"links": "always"}, "profiles[1].links"),
        ({"overBudget": "cut"}, "profiles[1].overBudget"),
        ({"content": None}, "profiles[1].content"),
        ({"label": "  "}, "profiles[1].label"),
        ({"logz": "per-budget"}, "profiles[1].logz"),
    ],
)
def test_a_bad_row_is_refused_naming_its_row_and_field(tmp_path, change, field):
    bad = {**GOOD, "id": "y", **change}
    path = tmp_path / "profiles.json"
    path.write_text(json.dumps({"profiles": [GOOD, bad]}), encoding="utf-8")
    with pytest.raises(HostProfileError) as info:
        load_host_profiles(path)
    assert info.value.field == field, info.value.field
    assert str(path) in str(info.value) and field in str(info.value)


def test_a_missing_field_twice_an_id_no_list_and_bad_json_are_each_refused(tmp_path):
    path = tmp_path / "p.json"
    missing = {k: v for k, v in GOOD.items() if k != "embeds"}
    for doc, field in (
        ({"profiles": [missing]}, "profiles[0].embeds"),
        ({"profiles": [GOOD, GOOD]}, "profiles[1].id"),
        ({"profiles": []}, "profiles"),
        ([GOOD], "profiles"),
    ):
        path.write_text(json.dumps(doc), encoding="utf-8")
        with pytest.raises(HostProfileError) as info:
            load_host_profiles(path)
        assert info.value.field == field, (doc, info.value.field)
    path.write_text('{"profiles": [', encoding="utf-8")
    with pytest.raises(HostProfileError, match="not valid JSON"):
        load_host_profiles(path)
    with pytest.raises(HostProfileError, match="no host profile 'nobody'"):
        profile("nobody")
