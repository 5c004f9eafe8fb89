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
from custody_lab.core.receipts import FIXTURE_SHA256

from .conftest import NODE_MIN_MAJOR, find_node

ORACLE = Path(__file__).parent / "reference" / "seed_router.mjs"


def random_cases(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    alphabet = "abcXYZ:/?#é✅ <>\"'\\\n\t{}"
    word = lambda: "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8)))  # noqa: E731
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
    assert node_payload["sha256"] == FIXTURE_SHA256
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


def _fake_node(tmp_path: Path, version: str) -> str:
    script = tmp_path / "node"
    script.write_text(f"#!/bin/sh\necho {version}\n")
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize("ci", ["true", "1"])
def test_a_missing_node_fails_the_differential_tests_under_ci(monkeypatch, ci):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.fail.Exception, match=r"CI=true: node is not on PATH"):
        find_node()


def test_a_missing_node_skips_the_differential_tests_off_ci_with_the_reason(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"node is not on PATH.*apt-get install nodejs"):
        find_node()


def test_a_node_too_old_for_es_modules_fails_under_ci(monkeypatch, tmp_path):
    old = _fake_node(tmp_path, f"v{NODE_MIN_MAJOR - 4}.22.0")
    monkeypatch.setattr(shutil, "which", lambda name: old)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=rf"needs Node {NODE_MIN_MAJOR} or newer"):
        find_node()


def test_a_recent_enough_node_is_used(monkeypatch, tmp_path):
    recent = _fake_node(tmp_path, f"v{NODE_MIN_MAJOR}.0.0")
    monkeypatch.setattr(shutil, "which", lambda name: recent)
    monkeypatch.setenv("CI", "true")
    assert find_node() == recent
