"""Internal: check one instance against one JSON Schema, in a process of its own, and print the verdict.

Run by :mod:`custody_lab.live.schema_check` as ``python -I _schema_worker.py``: it loads
``jsonschema``, writes ``ready`` and a newline, reads one JSON object ``{"schema": ..., "instance":
...}`` from stdin and writes one JSON object to stdout. It
imports only the standard library and ``jsonschema`` (no ``custody_lab``: ``-I`` leaves the
package's folder off ``sys.path``), so the parent can kill it at any moment; checking a schema can
take exponential time (an ``allOf``/``$ref`` chain) and only a process can be stopped mid-check.
Nothing it prints on stderr reaches the learner (the parent discards it).
"""

from __future__ import annotations

__all__ = ["MEMORY_BYTES", "check", "main"]

import json
import sys
from typing import Any

#: Address space the worker may use before the check is stopped (``RLIMIT_AS``, where the OS has it).
MEMORY_BYTES = 1024 * 1024 * 1024


def _limit_memory() -> None:
    try:
        import resource
    except ImportError:  # not POSIX: the parent's deadline still bounds the check
        return
    try:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    except (ValueError, OSError):
        return


def check(schema: Any, instance: Any) -> dict[str, Any]:
    """The verdict: the dialect, and a schema error, an unresolvable ``$ref`` or the best error."""
    import jsonschema
    from referencing import Registry
    from referencing.exceptions import Unresolvable

    if not isinstance(schema, dict | bool):
        return {"dialect": None, "schemaError": "a schema is a JSON object (or true/false)"}
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    out: dict[str, Any] = {"dialect": cls.__name__}
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        return {**out, "schemaError": e.message}
    # an empty registry: a $ref resolves within the schema or not at all; nothing is fetched
    validator = cls(schema, registry=Registry())
    try:
        error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
    except Unresolvable as e:
        return {**out, "unresolvable": str(e)}
    if error is None:
        return {**out, "valid": True}
    return {**out, "valid": False, "error": error.message, "path": [str(p) for p in error.absolute_path]}


def main() -> int:
    _limit_memory()
    import jsonschema  # noqa: F401 - loaded before "ready": the parent's check deadline starts after it

    sys.stdout.write("ready\n")
    sys.stdout.flush()
    try:
        job = json.loads(sys.stdin.buffer.read())
        verdict = check(job["schema"], job["instance"])
    except MemoryError:
        verdict = {"memory": MEMORY_BYTES}
    except RecursionError:
        verdict = {"recursion": True}
    sys.stdout.write(json.dumps(verdict))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
