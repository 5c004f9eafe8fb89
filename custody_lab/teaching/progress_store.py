"""Where exercise progress is kept between kernel restarts: one small JSON file, shared safely.

The file holds, per exercise id, its state (``"passed"``, ``"tried"`` or ``"revealed"``), the
number of wrong tries (which decides whether the second hint and the Show me button appear) and,
once it is passed, how: ``passed_after`` is the number of wrong tries before the first pass (``0``:
the first try), so a pass found by trying every answer reads as such, and a shown answer stays
``"revealed"``:

.. code-block:: json

    {"version": 2, "exercises": {"blob-01": {"state": "passed", "tries": 2, "passed_after": 2}}}

A file written before ``passed_after`` existed (version 1) is read as it is: a pass without it is a
pass whose tries were not recorded (``passed_after`` ``None``).

Where it lives (:func:`progress_path`):

1. ``$CUSTODY_LAB_PROGRESS`` when it is set: that file (the tests point it at a temporary path;
   an empty value means "keep progress in memory only", which ``custody-lab present`` sets for its
   kernels so that each presented page's progress is its own, :mod:`custody_lab.delivery.present`);
2. inside a Jupyter kernel, ``.custody-lab-progress.json`` in the working directory, which is the
   notebook's folder, or in the user's home when that folder is not writable (on Binder the file
   lasts as long as the session);
3. anywhere else (plain Python, doctests, the CLI): no file, progress is kept in memory only.

**Any number of kernels share it.** Every change is one :func:`update`: under an exclusive lock
(``fcntl.flock`` on ``<file>.lock`` beside it) the file is read again, the one exercise's entry is
changed from what the file holds *now*, and the whole record is written back. So two notebooks
open at once never drop each other's entries or tries.

**The file is handled as untrusted.** It is written to an unpredictable temporary name in the same
folder (created with ``O_CREAT | O_EXCL | O_NOFOLLOW``, so a planted link there is never followed),
then renamed over the file. It is opened without blocking and read only when it is a regular file
of at most :data:`MAX_FILE_BYTES`. Each of these is said once (a ``UserWarning``), and progress is
then kept in memory only:

- a path that is not a regular file (a FIFO, ``/dev/zero``, a directory) is neither read nor replaced;
- a file larger than :data:`MAX_FILE_BYTES` is neither read nor replaced;
- a read-only file (no write permission for its owner) is respected: progress is not saved;
- a lock that stays held for :data:`LOCK_WAIT_SECONDS` (another process keeps it) is given up on;
- a file that cannot be written (a missing or read-only folder, a full disk).

A file that is not a valid progress record (not JSON, another shape, an unknown state) is not
overwritten without a word: it is kept aside as ``<file>.corrupt-<UTC time>``, said once, and the
valid entries it held are kept.

This kernel's view of the record (:func:`record`, :func:`entry`, :func:`change`, :func:`clear`)
is the file read again at each use, with the entries this kernel could not save laid over it;
they go into the file as soon as it can be written again. Stdlib only.
"""

from __future__ import annotations

__all__ = [
    "ENV_VAR",
    "FILE_NAME",
    "LOCK_WAIT_SECONDS",
    "MAX_FILE_BYTES",
    "Entry",
    "change",
    "clear",
    "entry",
    "load",
    "progress_path",
    "record",
    "remove",
    "restart",
    "revealed",
    "save",
    "tried",
    "update",
]

import contextlib
import json
import os
import secrets
import stat
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict

ENV_VAR = "CUSTODY_LAB_PROGRESS"
FILE_NAME = ".custody-lab-progress.json"
#: The largest progress file read (every exercise of the lab takes well under 10 KB).
MAX_FILE_BYTES = 1 << 20
#: How long a change waits for another kernel's lock before progress stays in memory.
LOCK_WAIT_SECONDS = 10.0
_STATES = ("passed", "tried", "revealed")
#: A state that outranks another when two records are merged (a pass is never lost).
_RANK = {"tried": 0, "revealed": 1, "passed": 2}
_warned: set[tuple[str, str]] = set()


class Entry(TypedDict):
    """One exercise's saved progress.

    Attributes:
        state: ``"passed"``, ``"tried"`` or ``"revealed"``.
        tries: wrong tries so far.
        passed_after: wrong tries before the first pass (``0``: passed on the first try); ``None``
            when it is not passed, or was passed before the lab recorded this (an old file).
    """

    state: str
    tries: int
    passed_after: int | None


def tried(entry: Entry | None, passed: bool) -> Entry:
    """The entry after one more check of the exercise (``passed``: this answer was right).

    A reveal is never turned into a pass, a pass is never lost to a later wrong try, and the
    first pass keeps the number of wrong tries before it.

    Example:
        >>> tried(tried(None, False), True)
        {'state': 'passed', 'tries': 1, 'passed_after': 1}
        >>> tried({"state": "revealed", "tries": 2, "passed_after": None}, True)["state"]
        'revealed'
    """
    old = entry or {"state": "", "tries": 0, "passed_after": None}
    if old["state"] in ("passed", "revealed"):
        state, after = old["state"], old["passed_after"]
    else:
        state, after = ("passed", old["tries"]) if passed else ("tried", None)
    return {"state": state, "tries": old["tries"] + (0 if passed else 1), "passed_after": after}


def revealed(entry: Entry | None) -> Entry:
    """The entry after the reference answer was shown: ``"revealed"``, unless already passed.

    Example:
        >>> revealed(None)
        {'state': 'revealed', 'tries': 0, 'passed_after': None}
    """
    if entry is not None and entry["state"] == "passed":
        return entry
    return {"state": "revealed", "tries": entry["tries"] if entry else 0, "passed_after": None}


class _Unusable(Exception):
    """The progress file cannot be used now; the message says why (it is said once)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def progress_path() -> Path | None:
    """The progress file to use now, or ``None`` for "in memory only" (see the module docstring).

    Example:
        >>> import os
        >>> os.environ["CUSTODY_LAB_PROGRESS"] = "/tmp/p.json"
        >>> str(progress_path())
        '/tmp/p.json'
        >>> del os.environ["CUSTODY_LAB_PROGRESS"]
    """
    configured = os.environ.get(ENV_VAR)
    if configured is not None:
        return Path(configured).expanduser() if configured.strip() else None
    if "ipykernel" not in sys.modules:
        return None
    here = Path.cwd()
    if os.access(here, os.W_OK):
        return here / FILE_NAME
    return Path.home() / FILE_NAME


def _say_once(path: Path, reason: str, message: str) -> None:
    if (str(path), reason) not in _warned:
        _warned.add((str(path), reason))
        warnings.warn(message, UserWarning, stacklevel=4)


# --------------------------------------------------------------------------------------------
# Reading: a regular file of bounded size, opened without blocking
# --------------------------------------------------------------------------------------------


def _read_bytes(path: Path) -> bytes | None:
    """The file's bytes (``None`` when there is no file).

    Raises:
        _Unusable: not a regular file, larger than :data:`MAX_FILE_BYTES`, or unreadable.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        raise _Unusable("unreadable", f"progress is kept in memory only: cannot read {path} ({e})") from e
    try:
        info = os.fstat(fd)
    except OSError as e:
        os.close(fd)
        raise _Unusable("unreadable", f"progress is kept in memory only: cannot read {path} ({e})") from e
    if not stat.S_ISREG(info.st_mode):  # before fdopen, which refuses a directory with IsADirectoryError
        os.close(fd)
        raise _Unusable(
            "not-regular",
            f"progress is kept in memory only: {path} is not a regular file (it is neither read nor replaced)",
        )
    with os.fdopen(fd, "rb") as handle:
        data = b"" if info.st_size > MAX_FILE_BYTES else handle.read(MAX_FILE_BYTES + 1)  # it may grow meanwhile
    if info.st_size > MAX_FILE_BYTES or len(data) > MAX_FILE_BYTES:
        raise _Unusable(
            "too-large",
            f"progress is kept in memory only: {path} is larger than the {MAX_FILE_BYTES:,} bytes a progress "
            "file may hold (it is neither read nor replaced)",
        )
    return data


def _parse(data: bytes) -> tuple[dict[str, Entry], str | None]:
    """The valid entries of a progress file's bytes, and what was wrong with it (``None``: nothing)."""
    if not data.strip():
        return {}, None  # an empty file is an empty record
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        return {}, f"it is not JSON ({type(e).__name__})"
    exercises = parsed.get("exercises") if isinstance(parsed, dict) else None
    if not isinstance(exercises, dict):
        return {}, 'it has no "exercises" object'
    record: dict[str, Entry] = {}
    bad = 0
    for key, value in exercises.items():
        state = value.get("state") if isinstance(value, dict) else None
        tries = value.get("tries", 0) if isinstance(value, dict) else None
        after = value.get("passed_after") if isinstance(value, dict) else None
        if state in _STATES and _count(tries) and (after is None or _count(after)):
            assert isinstance(tries, int)  # for mypy: _count said so
            record[str(key)] = {
                "state": str(state),
                "tries": tries,
                "passed_after": after if state == "passed" and isinstance(after, int) else None,
            }
        else:
            bad += 1
    return record, (f"{bad} of its entries are not a state and a number of tries" if bad else None)


def _count(value: object) -> bool:
    """A number of tries as a file may hold it: a whole number from 0 to a million."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**6


def _stored(entry: Entry) -> dict[str, object]:
    """An entry as the file holds it (``passed_after`` only once it is known)."""
    out: dict[str, object] = {"state": entry["state"], "tries": entry["tries"]}
    if entry.get("passed_after") is not None:
        out["passed_after"] = entry["passed_after"]
    return out


def _read_record(path: Path) -> tuple[dict[str, Entry], str | None]:
    data = _read_bytes(path)
    return ({}, None) if data is None else _parse(data)


def _keep_aside(path: Path, problem: str, kept: int) -> None:
    """Rename a file that is not a progress record to ``<file>.corrupt-<UTC time>`` and say so once."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    try:
        os.replace(path, aside)
    except OSError as e:
        _say_once(path, "corrupt", f"{path} is not a progress record ({problem}) and cannot be kept aside ({e})")
        raise _Unusable("corrupt", f"progress is kept in memory only: {path} is not a progress record") from e
    _say_once(
        path,
        "corrupt",
        f"{path} was not a progress record ({problem}); it is kept aside as {aside.name}, and progress goes on "
        + (f"from the {kept} valid entries it held" if kept else "from an empty record"),
    )


# --------------------------------------------------------------------------------------------
# The lock, and writing under it
# --------------------------------------------------------------------------------------------


def _check_target(path: Path) -> None:
    """Refuse a path that must not be replaced: not a regular file, too large, or read-only."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise _Unusable("unreadable", f"progress is kept in memory only: cannot read {path} ({e})") from e
    if stat.S_ISLNK(info.st_mode):
        try:
            info = os.stat(path)  # a link the user made: the rename replaces the link, never its target
        except OSError:
            return  # a dangling link: there is no file yet
    if not stat.S_ISREG(info.st_mode):
        raise _Unusable(
            "not-regular",
            f"progress is kept in memory only: {path} is not a regular file (it is neither read nor replaced)",
        )
    if info.st_size > MAX_FILE_BYTES:
        raise _Unusable(
            "too-large",
            f"progress is kept in memory only: {path} is larger than the {MAX_FILE_BYTES:,} bytes a progress "
            "file may hold (it is neither read nor replaced)",
        )
    if not info.st_mode & stat.S_IWUSR or not os.access(path, os.W_OK):
        raise _Unusable("read-only", f"{path} is read-only, so progress is not saved (it is kept in memory only)")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold the exclusive lock of ``path`` (``<file>.lock``, never following a link)."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): one kernel at a time is the limit there
        yield
        return
    lock = path.with_name(path.name + ".lock")
    flags = os.O_RDONLY | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(lock, flags, 0o600)
    except OSError as e:
        raise _Unusable("lock", f"progress is kept in memory only: cannot open the lock file {lock} ({e})") from e
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _Unusable("lock", f"progress is kept in memory only: the lock file {lock} is not a regular file")
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise _Unusable(
                        "lock",
                        f"progress is kept in memory only: {lock} stayed locked for {LOCK_WAIT_SECONDS:g} s",
                    ) from None
                time.sleep(0.005)
            except OSError as e:
                raise _Unusable("lock", f"progress is kept in memory only: cannot lock {lock} ({e})") from e
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _write(path: Path, record: Mapping[str, Entry]) -> None:
    """Write ``record`` to an unpredictable new file beside ``path``, then rename it over ``path``."""
    exercises = {key: _stored(value) for key, value in sorted(record.items())}
    text = json.dumps({"version": 2, "exercises": exercises}, indent=1) + "\n"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(8):
        temporary = path.with_name(f".{path.name.lstrip('.')}.{secrets.token_hex(8)}.tmp")  # hidden, beside it
        try:
            fd = os.open(temporary, flags, 0o600)
            break
        except FileExistsError:  # something already has this name (planted, or a rare clash): another name
            continue
    else:
        raise OSError(f"no unused temporary name beside {path}")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _merge(a: Entry | None, b: Entry) -> Entry:
    """Two records of one exercise as one: the higher state (a pass is never lost), the more tries,
    and for a pass the fewest wrong tries either kernel recorded before it."""
    if a is None:
        return b
    state = a["state"] if _RANK[a["state"]] >= _RANK[b["state"]] else b["state"]
    known = [n for e in (a, b) if e["state"] == state and (n := e.get("passed_after")) is not None]
    after = min(known) if state == "passed" and known else None
    return {"state": state, "tries": max(a["tries"], b["tries"]), "passed_after": after}


def _change(path: Path, edit: Callable[[dict[str, Entry]], None]) -> dict[str, Entry]:
    """Apply ``edit`` to the record as the file holds it now, under the lock, and write it back."""
    _check_target(path)
    with _locked(path):
        _check_target(path)
        record, problem = _read_record(path)
        if problem is not None:
            _keep_aside(path, problem, len(record))
        edit(record)
        _write(path, record)
    return record


# --------------------------------------------------------------------------------------------
# The public functions
# --------------------------------------------------------------------------------------------


def load(path: Path | None) -> dict[str, Entry]:
    """The saved record (empty when there is no file, or it cannot be used: said once, see above).

    A file that is not a valid record is kept aside (said once) and its valid entries are written
    back as the record; a read-only one is left as it is and its valid entries are used.

    Example:
        >>> load(None)
        {}
    """
    if path is None:
        return {}
    try:
        record, problem = _read_record(path)
    except _Unusable as e:
        _say_once(path, e.reason, str(e))
        return {}
    if problem is None:
        return record
    try:
        _check_target(path)
        with _locked(path):  # keep it aside once, unless another kernel has just rewritten it
            record, problem = _read_record(path)
            if problem is not None:
                _keep_aside(path, problem, len(record))
                _write(path, record)  # the valid entries stay the record
    except _Unusable as e:
        _say_once(path, e.reason, str(e))
    except OSError as e:
        _say_once(path, "unwritable", f"progress is kept in memory only: cannot write {path} ({e})")
    return record


def update(path: Path | None, exercise_id: str, change: Callable[[Entry | None], Entry]) -> dict[str, Entry] | None:
    """Change one exercise's entry from what the file holds now (under the lock) and save the record.

    ``change(entry)`` gets the exercise's current entry (``None`` when it has none) and returns the
    new one; it may run again in another kernel's turn, never twice in this call.

    Returns:
        The whole record as saved, or ``None`` when it could not be (there is no file, or it cannot
        be used: said once); the caller then keeps the change in memory.
    """
    if path is None:
        return None

    def edit(record: dict[str, Entry]) -> None:
        record[exercise_id] = change(record.get(exercise_id))

    try:
        return _change(path, edit)
    except _Unusable as e:
        _say_once(path, e.reason, str(e))
    except OSError as e:
        _say_once(path, "unwritable", f"progress is kept in memory only: cannot write {path} ({e})")
    return None


def save(path: Path | None, record: Mapping[str, Entry]) -> None:
    """Merge ``record`` into the file (each exercise: the higher state and the more tries), under the
    lock; say once if it cannot be saved."""
    if path is None:
        return

    def edit(saved: dict[str, Entry]) -> None:
        for key, entry in record.items():
            saved[key] = _merge(saved.get(key), entry)

    try:
        _change(path, edit)
    except _Unusable as e:
        _say_once(path, e.reason, str(e))
    except OSError as e:
        _say_once(path, "unwritable", f"progress is kept in memory only: cannot write {path} ({e})")


def remove(path: Path | None) -> None:
    """Delete the progress file (a reset), under the lock; a file that is already gone is fine."""
    if path is None or not os.path.lexists(path):
        return
    try:
        _check_target(path)  # never a FIFO or a device, nor a read-only file
        with _locked(path):
            path.unlink(missing_ok=True)
    except _Unusable as e:
        _say_once(path, e.reason, str(e))
    except OSError as e:
        warnings.warn(f"the progress file {path} is not deleted ({e})", UserWarning, stacklevel=3)


# --------------------------------------------------------------------------------------------
# This kernel's view of the record
# --------------------------------------------------------------------------------------------

#: The record as last read from the file, with :data:`_UNSAVED` laid over it.
_RECORD: dict[str, Entry] = {}
#: Entries this kernel could not save (the file is read-only, not a file, locked...).
_UNSAVED: dict[str, Entry] = {}
#: The file :data:`_RECORD` was read from (empty before the first use).
_FROM: list[Path | None] = []


def record() -> dict[str, Entry]:
    """This kernel's record: the progress file (:func:`progress_path`) read again, since another
    kernel may have added to it, with the entries this kernel could not save laid over it."""
    path = progress_path()
    if not _FROM or _FROM[0] != path:
        _UNSAVED.clear()
        _FROM[:] = [path]
    _RECORD.clear()
    _RECORD.update(load(path))
    _RECORD.update(_UNSAVED)
    return _RECORD


def entry(exercise_id: str) -> Entry:
    """One exercise's entry (``state`` ``""`` and no tries when it has none)."""
    found = record().get(exercise_id)
    if found is None:
        return {"state": "", "tries": 0, "passed_after": None}
    return {"state": found["state"], "tries": found["tries"], "passed_after": found.get("passed_after")}


def change(exercise_id: str, edit: Callable[[Entry | None], Entry]) -> Entry:
    """Change one exercise's entry from the record as the file holds it now (:func:`update`), or in
    memory when the file cannot be used; returns the new entry."""
    record()
    path = _FROM[0]
    saved = update(path, exercise_id, edit)
    if saved is None:
        new = edit(_RECORD.get(exercise_id))
        _UNSAVED[exercise_id] = _RECORD[exercise_id] = new
        return new
    if _UNSAVED:  # the file can be written again: what was kept in memory goes into it too
        _UNSAVED.pop(exercise_id, None)
        save(path, _UNSAVED)
        saved = load(path)
        _UNSAVED.clear()
    _RECORD.clear()
    _RECORD.update(saved)
    return saved[exercise_id]


def clear() -> None:
    """Forget every entry and delete the progress file (a reset)."""
    record()
    _RECORD.clear()
    _UNSAVED.clear()
    remove(_FROM[0])


def restart() -> None:
    """What a kernel restart does to this kernel's view: the memory is gone, the file stays."""
    _RECORD.clear()
    _UNSAVED.clear()
    _FROM.clear()
