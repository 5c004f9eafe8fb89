"""Write ``data/inventories/synthetic-200.csv``: 200 made-up capabilities of several MCP servers.

    python benchmarks/make_synthetic_inventory.py [--rows 200] [--seed 7] [--out PATH]

Deterministic (a seeded ``random.Random``), so re-running it reproduces the committed file byte for
byte. The mix is meant to look like a real inventory, not a uniform grid: mostly honest
capabilities, plus the mistakes a review finds — stale snapshots that must be current, reads the
caller may not make, a "resource" that mutates, embeds far over budget, a shape on the wrong side,
undeclared side effects and missing custody facts.
"""

from __future__ import annotations

import argparse
import csv
import math
import random
import sys
from pathlib import Path

from custody_lab.core.model import FIELDS

ROOT = Path(__file__).resolve().parent.parent
#: The case fields in the seed's key order, with the two free-text fields placed for people: the
#: title after the id, the description last.
COLUMNS = ("id", "title", *(f.name for f in FIELDS if f.name != "id" and f.kind != "text"), "description")

SERVERS = {  # server -> (URI scheme, nouns it serves)
    "billing": ("billing", ["invoice", "payment", "refund", "plan", "usage-report"]),
    "crm": ("crm", ["account", "contact", "opportunity", "note", "segment"]),
    "docs": ("kb", ["handbook", "runbook", "faq", "style-guide", "changelog"]),
    "ops": ("ops", ["incident", "deploy", "alert", "rota", "metric"]),
    "hr": ("hr", ["policy", "holiday-calendar", "org-chart", "leave-request", "payslip"]),
}
READS = [("read", "listed-resource"), ("read-template", "templated-resource"), ("read-subscribed", "listed-resource")]
TOOLS = [
    ("search", "structured-tool-result"),
    ("calculate", "structured-tool-result"),
    ("validate", "structured-tool-result"),
    ("generate", "resource-link"),
    ("generate", "embedded-resource"),
    ("read", "embedded-resource"),
    ("mutate", "structured-tool-result"),
    ("mutate", "resource-link"),
    ("mutate", "embedded-resource"),
]
MIMES = ["application/json", "text/markdown", "text/plain", "text/html", "text/csv", "application/pdf", "image/png"]


def plural(noun: str) -> str:
    return noun[:-1] + "ies" if noun.endswith("y") else noun + "s"


def size(rng: random.Random) -> int:
    """Payload sizes spread log-uniformly from 80 B to 400 KB, many near the 4096-byte limit."""
    if rng.random() < 0.2:
        return rng.randint(1800, 6000)
    return int(math.exp(rng.uniform(math.log(80), math.log(400_000))))


def capability(rng: random.Random, k: int) -> dict[str, object]:
    server = rng.choice(sorted(SERVERS))
    scheme, nouns = SERVERS[server]
    noun = rng.choice(nouns)
    app = rng.random() < 0.4
    operation, shape = rng.choice(READS if app else TOOLS)
    side_effects: bool | None = operation == "mutate"
    mime = rng.choice(MIMES)
    key = f"{noun[:2].upper()}-{rng.randint(100, 9999)}"
    uri = f"{scheme}://{plural(noun)}/{key}" if shape != "listed-resource" else f"{scheme}://{plural(noun)}"
    row: dict[str, object] = {
        "id": f"{server}-{noun}-{operation}-{k:03d}",
        "title": f"{operation.replace('-', ' ').capitalize()} {noun.replace('-', ' ')}",
        "initiator": "application" if app else "model",
        "operation": operation,
        "shape": shape,
        "uri": uri,
        "mime": mime,
        "bytes": size(rng),
        "current": rng.random() > 0.12,
        "allowed": rng.random() > 0.07,
        "sideEffects": side_effects,
        "provenance": f"{server}-server@{rng.randint(1, 12)}.{rng.randint(0, 9)}",
        "requiresCurrent": operation == "read-subscribed" or rng.random() < 0.15,
        "description": f"{noun.replace('-', ' ').capitalize()} from the {server} server",
    }
    mistake = rng.random()
    if mistake < 0.03:  # a "resource" that changes state
        row.update(initiator="application", operation="read", shape="listed-resource", sideEffects=True)
    elif mistake < 0.06:  # a tool result dressed as a resource (or the reverse)
        row["shape"] = "templated-resource" if not app else "resource-link"
    elif mistake < 0.10:  # nobody declared whether it changes anything
        row["sideEffects"] = None
    elif mistake < 0.13:  # a custody fact is missing
        row[rng.choice(["uri", "mime", "provenance"])] = None
    return row


def cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "inventories" / "synthetic-200.csv")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(COLUMNS)
        for k in range(1, args.rows + 1):
            row = capability(rng, k)
            writer.writerow([cell(row[c]) for c in COLUMNS])
    print(f"wrote {args.rows} capabilities to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
