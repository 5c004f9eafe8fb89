"""Issue 24 §2: progress is never lost and the progress file is handled as untrusted.

Several kernels share one file (each change is re-read and written under a lock); a link planted
at a temporary name is never followed; a read-only file is respected; a FIFO, a device or a directory is never
read (nor waited on) or replaced; an oversized file is not read; a corrupt file is kept aside.
Each case is said once, as a ``UserWarning``.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import custody_lab.teaching.exercises as ex
from custody_lab.exercises import all_exercises, check, get, progress, reset_progress, reveal
from custody_lab.teaching import progress_store
from tests.timing import scaled

ROOT = Path(__file__).resolve().parents[2]
WRITERS = 8
EACH = 6


@pytest.fixture(autouse=True)
def _progress_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv(progress_store.ENV_VAR, str(tmp_path / "progress.json"))
    monkeypatch.setattr(progress_store, "_warned", set())
    progress_store.restart()
    yield
    progress_store.restart()


def _restart_kernel() -> None:
    progress_store.restart()


def _saved(path: Path) -> dict[str, dict[str, object]]:
    return json.loads(path.read_text(encoding="utf-8"))["exercises"]


def _right(exercise_id: str) -> object:
    return get(exercise_id).reference()


# --------------------------------------------------------------------------------------------
# Many kernels, one file
# --------------------------------------------------------------------------------------------


def _kernel(path: str, mine: list[str], shared: str, start: multiprocessing.synchronize.Barrier, wait: float) -> None:
    """One notebook kernel: solve its own exercises, and after each try the shared one, wrongly."""
    os.environ[progress_store.ENV_VAR] = path
    from custody_lab.exercises import check as kernel_check
    from custody_lab.exercises import get as kernel_get

    answers = [(i, kernel_get(i).reference()) for i in mine]
    start.wait(wait)  # every kernel writes at the same moment (a kernel that never comes breaks it)
    for exercise_id, answer in answers:
        assert kernel_check(exercise_id, answer).passed, exercise_id
        kernel_check(shared, "zz-not-it")


@pytest.mark.slow
def test_eight_kernels_solving_six_exercises_each_keep_all_48_entries_and_every_try(tmp_path):
    ids = [e.id for e in all_exercises()]
    shared = ids[0]
    own = ids[1 : 1 + WRITERS * EACH]
    assert len(own) == WRITERS * EACH, f"need {WRITERS * EACH} exercises besides {shared}; have {len(ids) - 1}"
    path = tmp_path / "progress.json"
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(WRITERS)
    kernels = [
        context.Process(target=_kernel, args=(str(path), own[k * EACH : (k + 1) * EACH], shared, start, scaled(60)))
        for k in range(WRITERS)
    ]
    try:
        for kernel in kernels:
            kernel.start()
        for kernel in kernels:
            kernel.join(scaled(120))
    finally:
        for kernel in kernels:
            if kernel.is_alive():
                kernel.terminate()
                kernel.join()
    assert [k.exitcode for k in kernels] == [0] * WRITERS, [k.exitcode for k in kernels]
    saved = _saved(path)
    passed = sorted(i for i, e in saved.items() if e["state"] == "passed")
    assert passed == sorted(own), (
        f"{len(passed)} of {len(own)} solved exercises survived; lost {set(own) - set(passed)}"
    )
    assert saved[shared] == {"state": "tried", "tries": WRITERS * EACH}, saved[shared]


def test_an_entry_another_kernel_saved_is_kept_and_seen(tmp_path):
    check("blob-01", _right("blob-01"))
    path = tmp_path / "progress.json"
    record = _saved(path)
    record["uri-01"] = {"state": "revealed", "tries": 2}  # what another kernel wrote meanwhile
    path.write_text(json.dumps({"version": 1, "exercises": record}), encoding="utf-8")
    check("blob-02", "zz-not-it")
    assert set(_saved(path)) == {"blob-01", "blob-02", "uri-01"}, _saved(path)
    assert progress()["uri-01"] == "revealed", progress()
    assert check("uri-01", "zz-not-it").tries == 3, "the other kernel's two tries were not counted"


# --------------------------------------------------------------------------------------------
# A file handled as untrusted
# --------------------------------------------------------------------------------------------


def test_a_link_planted_at_the_old_temporary_name_is_never_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    (tmp_path / "progress.json.tmp").symlink_to(victim)  # where the lab used to write first
    check("blob-01", _right("blob-01"))
    assert victim.read_text(encoding="utf-8") == "keep me"
    assert _saved(tmp_path / "progress.json")["blob-01"]["state"] == "passed"


def test_a_link_planted_at_the_next_temporary_name_is_never_followed(tmp_path, monkeypatch):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    tokens = iter(["0" * 16, "1" * 16])
    monkeypatch.setattr(progress_store.secrets, "token_hex", lambda _n: next(tokens))
    (tmp_path / f".progress.json.{'0' * 16}.tmp").symlink_to(victim)  # the name the next save picks first
    check("blob-01", _right("blob-01"))
    assert victim.read_text(encoding="utf-8") == "keep me", "the save wrote through the planted link"
    assert _saved(tmp_path / "progress.json")["blob-01"]["state"] == "passed"
    assert not list(tmp_path.glob(f".progress.json.{'1' * 16}.tmp")), "the temporary file was left behind"


def test_a_link_planted_at_the_lock_name_is_never_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    (tmp_path / "progress.json.lock").symlink_to(victim)
    with pytest.warns(UserWarning, match="lock file"):
        result = check("blob-01", _right("blob-01"))
    assert result.passed and progress() == {"blob-01": "passed"}, "progress is kept in memory"
    assert not victim.exists(), "opening the lock created the link's target"


def test_a_read_only_file_is_respected_and_said_once(tmp_path):
    path = tmp_path / "progress.json"
    check("blob-01", _right("blob-01"))
    before = path.read_bytes()
    path.chmod(0o444)
    _restart_kernel()
    with pytest.warns(UserWarning, match="read-only, so progress is not saved") as said:
        check("blob-02", "zz-not-it")
        check("blob-03", "zz-not-it")
        reset_progress()  # a reset does not delete it either
        check("blob-02", "zz-not-it again")
    assert len([w for w in said if "read-only" in str(w.message)]) == 1, [str(w.message) for w in said]
    assert path.read_bytes() == before and stat.S_IMODE(path.stat().st_mode) == 0o444
    assert progress() == {"blob-01": "passed", "blob-02": "tried"}, "in memory, the tries still count"
    assert ex.wrong_tries("blob-02") == 1


def _check_in_a_subprocess(progress_file: str) -> subprocess.CompletedProcess[str]:
    """``check()`` in a fresh interpreter, which must finish (a blocking open would hang it)."""
    code = (
        "from custody_lab.exercises import check, get\n"
        "r = check('blob-01', get('blob-01').reference())\n"
        "print(r.status)\n"
    )
    env = {**os.environ, progress_store.ENV_VAR: progress_file, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=scaled(60), check=False
    )


def test_a_fifo_is_neither_waited_on_nor_replaced(tmp_path):
    fifo = tmp_path / "progress.json"
    os.mkfifo(fifo)
    done = _check_in_a_subprocess(str(fifo))  # a blocking open() of a FIFO without a writer never returns
    assert (done.returncode, done.stdout.strip()) == (0, "passed"), done
    assert "is not a regular file" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"


def test_a_directory_is_neither_read_nor_replaced_and_said_once(tmp_path, monkeypatch):
    folder = tmp_path / "progress.json"
    folder.mkdir()
    (folder / "inside.txt").write_text("kept", encoding="utf-8")
    monkeypatch.setenv(progress_store.ENV_VAR, str(folder))
    _restart_kernel()
    with pytest.warns(UserWarning, match="is not a regular file") as said:
        first = check("blob-01", _right("blob-01"))
        check("blob-02", "zz-not-it")
        check("blob-02", "zz-not-it again")
    shown = [str(w.message) for w in said]
    assert len([m for m in shown if "not a regular file" in m]) == 1, f"expected one warning, got {shown}"
    assert first.status == "passed", first
    assert progress() == {"blob-01": "passed", "blob-02": "tried"}, "in memory, the tries still count"
    assert folder.is_dir() and [p.name for p in folder.iterdir()] == ["inside.txt"], "the directory was changed"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_is_neither_read_nor_replaced():
    done = _check_in_a_subprocess("/dev/zero")  # read without a bound, it never ends
    assert (done.returncode, done.stdout.strip()) == (0, "passed"), done
    assert "is not a regular file" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert stat.S_ISCHR(os.lstat("/dev/zero").st_mode)
    assert not [p for p in os.listdir("/dev") if p.startswith(".zero.")], "a temporary file was made in /dev"


def test_an_oversized_file_is_not_read_nor_replaced(tmp_path, monkeypatch):
    path = tmp_path / "progress.json"
    with path.open("wb") as f:
        f.truncate(300 * 2**20)  # 300 MB, sparse: no disk used
    reads: list[int] = []
    real_read = progress_store._read_bytes

    def counting(p: Path) -> bytes | None:
        try:
            data = real_read(p)
        except progress_store._Unusable:
            reads.append(-1)
            raise
        reads.append(len(data or b""))
        return data

    monkeypatch.setattr(progress_store, "_read_bytes", counting)
    with pytest.warns(UserWarning, match="larger than the 1,048,576 bytes"):
        result = check("blob-01", _right("blob-01"))
    assert result.passed and progress() == {"blob-01": "passed"}
    assert path.stat().st_size == 300 * 2**20, "the oversized file was replaced"
    assert reads and all(n <= progress_store.MAX_FILE_BYTES for n in reads), reads


@pytest.mark.parametrize(
    ("content", "valid"),
    [
        (b"not json", set()),
        (b"\xff\xfe", set()),
        (b"[]", set()),
        (b'{"exercises": 5}', set()),
        (b'{"exercises": {"blob-01": {"state": "passed", "tries": 1}, "x": {"state": "owned"}}}', {"blob-01"}),
        (b"[" * 100_000, set()),
    ],
    ids=["text", "not-utf8", "a-list", "no-object", "one-bad-entry", "deep"],
)
def test_a_corrupt_file_is_kept_aside_and_said_once(tmp_path, content, valid):
    path = tmp_path / "progress.json"
    path.write_bytes(content)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        check("blob-02", "zz-not-it")
        check("blob-02", "zz-not-it again")
    messages = [str(w.message) for w in said]
    assert len(messages) == 1 and "kept aside as progress.json.corrupt-" in messages[0], messages
    aside = list(tmp_path.glob("progress.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == content, aside
    assert set(_saved(path)) == valid | {"blob-02"}, _saved(path)
    assert _saved(path)["blob-02"]["tries"] == 2


def test_an_empty_file_is_an_empty_record_without_a_word(tmp_path):
    path = tmp_path / "progress.json"
    path.write_bytes(b"")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check("blob-01", _right("blob-01"))
    assert _saved(path) == {"blob-01": {"state": "passed", "tries": 0, "passed_after": 0}}


def test_progress_kept_in_memory_is_saved_once_the_file_is_writable_again(tmp_path):
    path = tmp_path / "progress.json"
    check("blob-01", _right("blob-01"))
    path.chmod(0o444)
    with pytest.warns(UserWarning, match="read-only"):
        reveal("blob-03")
    path.chmod(0o644)
    check("blob-02", "zz-not-it")
    assert _saved(path) == {
        "blob-01": {"state": "passed", "tries": 0, "passed_after": 0},
        "blob-02": {"state": "tried", "tries": 1},
        "blob-03": {"state": "revealed", "tries": 0},
    }, _saved(path)


# --------------------------------------------------------------------------------------------
# Merging two kernels' records of one exercise (issue 37 §6)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("in_file", "unsaved", "merged"),
    [
        ({"state": "passed", "tries": 1}, {"state": "tried", "tries": 4}, {"state": "passed", "tries": 4}),
        ({"state": "tried", "tries": 4}, {"state": "passed", "tries": 1}, {"state": "passed", "tries": 4}),
        ({"state": "revealed", "tries": 2}, {"state": "tried", "tries": 3}, {"state": "revealed", "tries": 3}),
        ({"state": "tried", "tries": 5}, {"state": "revealed", "tries": 2}, {"state": "revealed", "tries": 5}),
    ],
    ids=["file-passed", "kernel-passed", "file-revealed", "kernel-revealed"],
)
def test_merging_two_kernels_records_keeps_the_higher_state_and_the_larger_tries(tmp_path, in_file, unsaved, merged):
    """Whichever side holds the pass (or the reveal), it is kept; the tries are the larger count."""
    path = tmp_path / "progress.json"
    path.write_text(json.dumps({"version": 1, "exercises": {"blob-01": in_file}}), encoding="utf-8")
    progress_store.save(path, {"blob-01": unsaved})
    assert _saved(path)["blob-01"] == merged, (in_file, unsaved, _saved(path)["blob-01"], merged)


def test_a_pass_kept_in_memory_is_not_lost_to_tries_another_kernel_saved_meanwhile(tmp_path):
    """A kernel passes while the file is read-only; another kernel then records two wrong tries of
    the same exercise; once the file is writable, the pass and the larger count of tries are kept."""
    path = tmp_path / "progress.json"
    check("blob-02", "zz-not-it")
    path.chmod(0o444)
    with pytest.warns(UserWarning, match="read-only"):
        assert check("blob-01", _right("blob-01")).passed
    path.chmod(0o644)
    path.write_text(
        json.dumps({"version": 1, "exercises": {**_saved(path), "blob-01": {"state": "tried", "tries": 2}}}),
        encoding="utf-8",
    )
    check("blob-03", "zz-not-it")  # the file can be written: what was kept in memory goes into it
    assert _saved(path)["blob-01"]["state"] == "passed", _saved(path)
    assert _saved(path)["blob-01"]["tries"] == 2, _saved(path)


# --------------------------------------------------------------------------------------------
# How an exercise was passed (issue 37 §4)
# --------------------------------------------------------------------------------------------


def test_a_pass_records_the_wrong_tries_before_it_and_later_tries_do_not_change_that(tmp_path):
    path = tmp_path / "progress.json"
    assert check("blob-01", _right("blob-01")).passed
    for wrong in ("zz-1", "zz-2", "zz-3"):
        check("blob-02", wrong)
    assert check("blob-02", _right("blob-02")).passed
    check("blob-02", "zz-after")  # a wrong try after the pass counts as a try, not as a later pass
    saved = _saved(path)
    assert saved["blob-01"] == {"state": "passed", "tries": 0, "passed_after": 0}, saved
    assert saved["blob-02"] == {"state": "passed", "tries": 4, "passed_after": 3}, saved
    assert progress_store.entry("blob-02")["passed_after"] == 3


def test_a_shown_answer_then_a_right_one_is_still_shown_not_passed(tmp_path):
    check("blob-01", "zz-not-it")
    reveal("blob-01")
    assert check("blob-01", _right("blob-01")).passed
    assert _saved(tmp_path / "progress.json")["blob-01"] == {"state": "revealed", "tries": 1}


def test_an_old_progress_file_reads_as_passed_with_the_tries_not_recorded(tmp_path):
    """A version-1 file (no passed_after) stays readable: its passes are passes, how is unknown."""
    path = tmp_path / "progress.json"
    old = {"blob-01": {"state": "passed", "tries": 2}, "blob-02": {"state": "tried", "tries": 1}}
    path.write_text(json.dumps({"version": 1, "exercises": old}), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an old file is not corrupt: no word about it
        assert progress() == {"blob-01": "passed", "blob-02": "tried"}
    assert progress_store.entry("blob-01") == {"state": "passed", "tries": 2, "passed_after": None}
    assert check("blob-02", _right("blob-02")).passed  # the next save writes the new form
    saved = _saved(path)
    assert saved["blob-01"] == {"state": "passed", "tries": 2} and saved["blob-02"]["passed_after"] == 1, saved
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == 2


@pytest.mark.parametrize("bad", [-1, "2", 1.5, True, [1]])
def test_a_passed_after_that_is_not_a_count_is_a_corrupt_entry(tmp_path, bad):
    path = tmp_path / "progress.json"
    entry = {"state": "passed", "tries": 2, "passed_after": bad}
    path.write_text(json.dumps({"version": 2, "exercises": {"blob-01": entry}}), encoding="utf-8")
    with pytest.warns(UserWarning, match="kept aside"):
        assert progress() == {}, progress()


@pytest.mark.parametrize(
    ("in_file", "unsaved", "after"),
    [
        ({"state": "passed", "tries": 5, "passed_after": 5}, {"state": "passed", "tries": 2, "passed_after": 2}, 2),
        ({"state": "passed", "tries": 2, "passed_after": 2}, {"state": "passed", "tries": 5, "passed_after": 5}, 2),
        ({"state": "tried", "tries": 6}, {"state": "passed", "tries": 1, "passed_after": 1}, 1),
        ({"state": "passed", "tries": 1, "passed_after": 1}, {"state": "tried", "tries": 6}, 1),
        ({"state": "passed", "tries": 3}, {"state": "passed", "tries": 4, "passed_after": 4}, 4),
    ],
    ids=["kernel-fewer", "file-fewer", "kernel-passed", "file-passed", "old-file-pass"],
)
def test_merging_keeps_the_fewest_wrong_tries_before_a_pass(tmp_path, in_file, unsaved, after):
    path = tmp_path / "progress.json"
    path.write_text(json.dumps({"version": 2, "exercises": {"blob-01": in_file}}), encoding="utf-8")
    progress_store.save(path, {"blob-01": unsaved})
    merged = _saved(path)["blob-01"]
    assert merged["state"] == "passed" and merged.get("passed_after") == after, (in_file, unsaved, merged)
