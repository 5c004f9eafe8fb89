"""The lab's router against the seed's own Node router, on thousands of random seed-domain cases."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

import custody_lab as cl
from custody_lab.core.model import INITIATORS, OPERATIONS, SHAPES
from custody_lab.core.paths import DATA_DIR

from ..conftest import NODE_MIN_MAJOR, find_node
from ..seed_facts import SEED_FIXTURE_SHA256

ORACLE = Path(__file__).resolve().parents[1] / "reference" / "seed_router.mjs"


def random_cases(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    alphabet = "abcXYZ:/?#é✅ <>\"'\\\n\t{}"
    # a letter first: a URI, MIME type or provenance of only whitespace is outside the seed's domain
    word = lambda: rng.choice("abcXYZé✅") + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 7)))  # noqa: E731
    cases = []
    for i in range(n):
        case = {
            "id": f"c{i}-{word()}",
            "initiator": rng.choice(INITIATORS),
            "operation": rng.choice(OPERATIONS),
            "shape": rng.choice(SHAPES),
            "uri": word(),
            "mime": word(),
            "bytes": rng.choice([0, 4095, 4096, 4097, rng.randint(0, 20000), rng.randint(0, 1 << 30)]),
            "current": rng.random() < 0.5,
            "allowed": rng.random() < 0.8,
            "sideEffects": rng.random() < 0.4,
            "provenance": word(),
        }
        if rng.random() < 0.6:
            case["requiresCurrent"] = rng.random() < 0.5
        cases.append(case)
    return cases


def test_the_seed_artifact_prints_the_same_fixture_and_sha256(node):
    out = subprocess.run(
        [node, str(ORACLE), "fixture", str(DATA_DIR / "cases.json")], capture_output=True, text=True, check=True
    ).stdout
    node_payload = json.loads(out)
    assert node_payload["sha256"] == SEED_FIXTURE_SHA256
    assert node_payload == cl.fixture_payload()


def test_route_decides_exactly_as_the_seeds_node_router_on_5000_random_cases(node):
    cases = random_cases(5000, seed=20260904)
    out = subprocess.run(
        [node, str(ORACLE), "batch"], input=json.dumps(cases), capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert len(out) == len(cases)
    mismatches = []
    for case, node_line in zip(cases, out):
        ours = cl.canonical_json(cl.route(case).to_dict())
        if ours != node_line:
            mismatches.append((case, node_line, ours))
    assert not mismatches, (
        f"{len(mismatches)} differ; first: input={mismatches[0][0]!r}\n node={mismatches[0][1]}\n ours={mismatches[0][2]}"
    )


# --------------------------------------------------------------------------------------------
# The oracle is never skipped in CI
# --------------------------------------------------------------------------------------------


def _node_on_path(monkeypatch, tmp_path: Path, version: str | None, ci: str | None) -> str | None:
    """Pretend ``node --version`` prints ``version`` (``None``: no node on PATH), with ``CI`` set or not."""
    node = None
    if version is not None:
        script = tmp_path / "node"
        script.write_text(f"#!/bin/sh\necho {version}\n")
        script.chmod(0o755)
        node = str(script)
    monkeypatch.setattr(shutil, "which", lambda name: node)
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    return node


@pytest.mark.parametrize(
    ("version", "ci", "outcome", "reason"),
    [
        (None, "true", pytest.fail.Exception, r"CI=true: node is not on PATH"),
        (None, "1", pytest.fail.Exception, r"CI=true: node is not on PATH"),
        (None, None, pytest.skip.Exception, r"^node is not on PATH.*apt-get install nodejs"),
        (f"v{NODE_MIN_MAJOR - 4}.22.0", "true", pytest.fail.Exception, rf"needs Node {NODE_MIN_MAJOR} or newer"),
        (f"v{NODE_MIN_MAJOR - 4}.22.0", None, pytest.skip.Exception, rf"needs Node {NODE_MIN_MAJOR} or newer"),
    ],
    ids=["missing-ci", "missing-ci-1", "missing-off-ci", "too-old-ci", "too-old-off-ci"],
)
def test_a_missing_or_too_old_node_fails_the_differential_tests_under_ci_and_skips_them_elsewhere(
    monkeypatch, tmp_path, version, ci, outcome, reason
):
    _node_on_path(monkeypatch, tmp_path, version, ci)
    with pytest.raises(outcome, match=reason):
        find_node()


def test_a_recent_enough_node_is_used(monkeypatch, tmp_path):
    recent = _node_on_path(monkeypatch, tmp_path, f"v{NODE_MIN_MAJOR}.0.0", "true")
    assert find_node() == recent
