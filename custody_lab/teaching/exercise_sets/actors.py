"""Initiator and executor (notebook 02): two labels beside every context source, both kept.

==========  =====  ===================================================================
id          level  task
==========  =====  ===================================================================
actor-01    1      the two labels of the generated report (a tool the model calls)
actor-02    2      the actors block of a read the model proposed and the host performed
actor-03    2      which sources carry labels that differ
==========  =====  ===================================================================

Seed 000 ("Decide who initiates the context transfer"): write two labels beside every context
source, initiator and executor, and when they differ keep both in the receipt instead of
flattening them into one. The labels are the package's (:func:`custody_lab.core.receipts.actor_labels`),
so every reference answer is computed. Keeping an ``actors`` block in the receipt is the lab's
host policy: MCP (2026-07-28) has no executor field, and the seed receipt's ``custody.actor``
holds one label.

The lab's one model of who does what (the same in notebook 02, the glossary's *executor* and
these hints): the **executor** is the party whose action brings the content in. A
``resources/read`` is the host's action: its client *issues* the read through the lab's gate, and
the server *serves* it (under MCP 2026-07-28 the server may compute what it serves, return several
contents, or answer with an ``InputRequiredResult``), so the label is ``application``. A
``tools/call`` asks the server to *run an operation* the model chose, so the label is ``server``.
"""

from __future__ import annotations

__all__ = ["EXERCISES", "SOURCES", "Source"]

from dataclasses import dataclass

from ...core.loading import load_fixture
from ...core.receipts import EXECUTORS, actor_labels
from ...core.router import route
from ..exercises import Exercise, Mistake
from . import _answers as ans


@dataclass(frozen=True)
class Source:
    """A context source as a design review lists it: who decided, and by which MCP method.

    Attributes:
        id: a short name.
        what: the source in one sentence.
        initiator: who decided that the context enters (``application`` or ``model``).
        method: how it travels (``resources/read`` or ``tools/call``).
    """

    id: str
    what: str
    initiator: str
    method: str

    def labels(self) -> dict[str, str]:
        """The two labels (:func:`custody_lab.core.receipts.actor_labels`)."""
        return actor_labels(initiator=self.initiator, method=self.method)


#: The sources of actor-03: situations of their own, none of them actor-01's or actor-02's, so
#: the exercise is a transfer and the demonstrations shown after actor-01 and actor-02 answer none of it.
SOURCES: tuple[Source, ...] = (
    Source(
        "shipping-policy",
        "the user drags the shipping policy from the host's resource list into the chat",
        "application",
        "resources/read",
    ),
    Source(
        "quote-tool",
        "the model calls the server's shipping_quote tool, which computes a price for a parcel",
        "model",
        "tools/call",
    ),
    Source(
        "model-asked-invoice",
        "the model asks for invoices://2026-08 through the host's read_mcp_resource tool; the host's "
        "client then issues resources/read through its gate",
        "model",
        "resources/read",
    ),
    Source(
        "host-prefetch",
        "at session start the host itself calls the server's search tool to prefetch FAQ answers",
        "application",
        "tools/call",
    ),
    Source(
        "status-reread", "the host re-reads the status document after an update notice", "application", "resources/read"
    ),
)

_BY_ID = {s.id: s for s in SOURCES}


def _labels_of(answer: object) -> tuple[str, str] | None:
    """An answer as ``(initiator, executor)``: a dict with both keys, or a pair; else ``None``."""
    if isinstance(answer, dict):
        pair = (ans.text(answer.get("initiator")), ans.text(answer.get("executor")))
    elif isinstance(answer, list | tuple) and len(answer) == 2:
        pair = (ans.text(answer[0]), ans.text(answer[1]))
    else:
        return None
    if pair[0] is None or pair[1] is None:
        return None
    return pair[0].lower(), pair[1].lower()


def _same_labels(answer: object, expected: object) -> bool:
    return isinstance(expected, dict) and _labels_of(answer) == _labels_of(expected)


def _flattened(answer: object) -> bool:
    """One label where two are wanted: a single string, or both labels the same."""
    pair = _labels_of(answer)
    return ans.text(answer) is not None or (pair is not None and pair[0] == pair[1])


# --------------------------------------------------------------------------------------------
# actor-01: the generated report
# --------------------------------------------------------------------------------------------


def _report_labels() -> object:
    return actor_labels(load_fixture().case("generated-report"))


_ACTOR_01 = Exercise(
    id="actor-01",
    title="Two labels for the generated report",
    why=(
        "the model chose to call the tool, and the server ran the operation that wrote the report: on a "
        "tools/call the server is the party whose action brings the content in"
    ),
    level=1,
    prompt=(
        "The seed's `generated-report` case: the model calls a tool that writes an 18,000-byte "
        'report (`input_for("actor-01")` is the case). Write the two labels a design review puts '
        'beside it, as a dict: `{"initiator": ..., "executor": ...}`. The initiator is who decided '
        "that this context enters (`application` or `model`); the executor is the party whose "
        "action brings it in (`application` or `server`)."
    ),
    input_label="the generated-report case",
    wanted='a dict {"initiator": ..., "executor": ...}',
    kind="mapping",
    given=lambda: load_fixture().case("generated-report"),
    reference=_report_labels,
    compare=_same_labels,
    mistakes=(
        Mistake(
            "flattened-to-one-label",
            _flattened,
            "That is one label written twice (or once). Seed 000 asks for two: who decided that the "
            "report enters, and who actually ran the operation that wrote it. Ask each question on its own.",
            example={"initiator": "model", "executor": "model"},
        ),
        Mistake(
            "swapped",
            lambda a: _labels_of(a) == ("server", "model"),
            "Take each label on its own. Who chose to call the tool, before anything ran? And where "
            "does the code that writes the report run, once that call is made?",
            example={"initiator": "server", "executor": "model"},
        ),
        Mistake(
            "host-runs-tools",
            lambda a: (p := _labels_of(a)) is not None and p[1] == "application" and p[0] != "application",
            "The host's client sends tools/call, but that only asks for the operation: which party "
            "runs it? (Seed 000: an operation is executed where the tool lives.)",
            example={"initiator": "model", "executor": "application"},
        ),
        Mistake(
            "unknown-label",
            lambda a: (
                (p := _labels_of(a)) is not None and (p[0] not in ("application", "model") or p[1] not in EXECUTORS)
            ),
            "Use the labels of the review: the initiator is application or model, the executor application or server.",
            example={"initiator": "user", "executor": "tool"},
        ),
    ),
    hints=(
        "Ask two questions: who decided that this report should enter the context, and where does "
        "the code that writes it run?",
        "Look at the case's operation and shape: they say whose choice put a tool call in motion "
        "(MCP 2026-07-28 names who controls each primitive), and on which side of the connection "
        "the report's bytes were written.",
    ),
)


# --------------------------------------------------------------------------------------------
# actor-02: a read the model proposed and the host performed
# --------------------------------------------------------------------------------------------


def _proposed_read_labels() -> object:
    return actor_labels(initiator="model", method="resources/read")


_ACTOR_02 = Exercise(
    id="actor-02",
    title="Complete the actors block of a read the model asked for",
    why=(
        "the model decided that the record should be read, but the host's client issued the resources/read "
        "through its own gate: a read is the application's action even when the model asked for it"
    ),
    level=2,
    prompt=(
        "The model asks for `crm://customer/fixture-17` through the host's `read_mcp_resource` "
        "tool; the host's client then issues an ordinary `resources/read` through its permission "
        "gate, and the server serves it (notebook 08 does this live). The router treats it as the "
        "application's read, so the "
        'seed receipt says `"actor": "application"` (`input_for("actor-02")` is that receipt). '
        'Complete the extended receipt\'s `actors` block: `{"initiator": ..., "executor": ...}`.'
    ),
    input_label="the seed receipt of the read the model asked for",
    wanted='a dict {"initiator": ..., "executor": ...}',
    kind="mapping",
    given=lambda: route(load_fixture().case("customer-record")).to_dict(),
    reference=_proposed_read_labels,
    compare=_same_labels,
    mistakes=(
        Mistake(
            "copied-the-receipts-actor",
            lambda a: _labels_of(a) == ("application", "application"),
            "That copies the seed receipt's one actor into both labels: exactly the flattening "
            "seed 000 warns about. Who proposed this read in the first place?",
            example={"initiator": "application", "executor": "application"},
        ),
        Mistake(
            "flattened-to-one-label",
            _flattened,
            "One label is not enough here: the one who asked and the one who performed the read "
            "are different parties. Answer each question on its own.",
            example={"initiator": "model", "executor": "model"},
        ),
        Mistake(
            "the-server-serves-it-but-does-not-issue-it",
            lambda a: (p := _labels_of(a)) is not None and p[1] == "server",
            "The server serves this read, and under MCP 2026-07-28 it may even compute what it "
            "serves; but the executor label names the party whose action the read is: the one that "
            "issues it through the gate. Which side sends resources/read?",
            example={"initiator": "model", "executor": "server"},
        ),
    ),
    hints=(
        "The method on the wire is resources/read, but a method does not say whose idea it was. "
        "Ask who asked, then who read.",
        "Follow the read back one step: which call came before the resources/read, and who made "
        "it? Then look at which process sent the resources/read itself, through the gate.",
    ),
)


# --------------------------------------------------------------------------------------------
# actor-03: which sources carry labels that differ
# --------------------------------------------------------------------------------------------


def _differing() -> object:
    return [s.id for s in SOURCES if len(set(s.labels().values())) > 1]


_ACTOR_03 = Exercise(
    id="actor-03",
    title="Where must the receipt keep both labels?",
    why=(
        "the labels differ wherever the party that decided is not the one whose method brings the content in:"
        " a model's tools/call runs on the server, a read the model asked for is issued by the host, and a "
        "tool the host calls itself still runs on the server"
    ),
    level=2,
    prompt=(
        'Five context sources (`input_for("actor-03")`: each with its `what`, `initiator` and '
        "`method`). For which of them do the initiator and the executor differ, so that a single "
        "`actor` would flatten two parties into one? Answer with a list of their ids."
    ),
    input_label="five context sources",
    wanted="a list of source ids",
    kind="list",
    given=lambda: SOURCES,
    reference=_differing,
    compare=ans.same_names,
    mistakes=(
        Mistake(
            "only-the-model-initiated",
            lambda a: ans.names(a) == frozenset(s.id for s in SOURCES if s.initiator == "model"),
            "Those are the sources the model initiated. Look again at the host's own decisions: "
            "does the host also run every operation it asks for?",
            example=[s.id for s in SOURCES if s.initiator == "model"],
        ),
        Mistake(
            "only-the-tool-calls",
            lambda a: ans.names(a) == frozenset(s.id for s in SOURCES if s.method == "tools/call"),
            "Those are the tool calls. A resource read can have two parties too, when someone "
            "other than the host asked for it.",
            example=[s.id for s in SOURCES if s.method == "tools/call"],
        ),
        Mistake(
            "none-differ",
            lambda a: (ans.text(a) or "").lower() in ("none", "[]", "nothing"),
            "At least one source has a model deciding and a server doing the work: write both labels "
            "for each source first.",
            example="none",
        ),
        Mistake(
            "not-a-source-id",
            lambda a: (n := ans.names(a)) is not None and not n <= set(_BY_ID),
            "Use the ids of the sources exactly as input_for gives them.",
            example=["report"],
        ),
    ),
    hints=(
        "Write both labels for each source (actor_labels(initiator=..., method=...) does it), then "
        "keep the ones where they are not the same.",
        "A source keeps one label only when the application both decides and performs the step.",
    ),
)


EXERCISES = (_ACTOR_01, _ACTOR_02, _ACTOR_03)
