"""The lab server's prompts and completions (MCP "Prompts" and "Completion", 2024-11-05 and later).

Prompts are user-controlled: a person picks one and the host puts its messages into the
conversation. Two of the lab's prompts embed a resource, which makes each a custody case of its own
(an embed is context delivered without a read): ``handbook_answer`` embeds ``kb://handbook/v4`` and
``customer_follow_up`` the customer record, each as an ``EmbeddedResource`` with the very bytes,
MIME type and ``_meta`` provenance a ``resources/read`` of that URI answers
(:mod:`~custody_lab.live.lab_content` is the one home of both). ``draft_reply`` is plain text with
an argument. A bad argument is ``-32602`` (invalid params).

``completion/complete`` (the ``completions`` capability, 2025-03-26 and later) offers the customer
ids for ``crm://customer/{id}`` and ``customer_follow_up``, and the tones of ``draft_reply``, by prefix.
"""

from __future__ import annotations

__all__ = ["PROMPT_NAMES", "TONES", "embedded", "register_completions", "register_prompts"]

from collections.abc import Sequence
from typing import Annotated, Any

import mcp.types as mt
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts.base import Message, UserMessage
from mcp.shared.exceptions import MCPError
from pydantic import Field

from ..core.rules import INVALID_PARAMS
from .lab_content import (
    CUSTOMER_PREFIX,
    CUSTOMER_TEMPLATE,
    CUSTOMERS,
    HANDBOOK_URI,
    customer_text,
    handbook_text,
    static_provenance,
)
from .meta_keys import PROVENANCE_KEY

#: The lab's prompts (``prompts/list`` order).
PROMPT_NAMES = ("handbook_answer", "customer_follow_up", "draft_reply")
#: The tones ``draft_reply`` accepts (and ``completion/complete`` offers).
TONES = ("brief", "formal", "friendly")


def embedded(uri: str, mime: str, text: str) -> mt.EmbeddedResource:
    """``uri``'s contents as a prompt embeds them: the text, MIME type and provenance a read answers.

    Example:
        >>> embedded("kb://handbook/v4", "text/markdown", "# v4").resource.meta
        {'org.custody-lab/provenance': 'docs-server@v4'}
    """
    prov = static_provenance(uri)  # the prompts embed no moving resource
    meta = {PROVENANCE_KEY: prov} if prov is not None else None
    return mt.EmbeddedResource(
        type="resource", resource=mt.TextResourceContents(uri=uri, mime_type=mime, text=text, _meta=meta)
    )


def register_prompts(mcp: MCPServer[Any]) -> None:
    """Register the three prompts on ``mcp``."""

    @mcp.prompt(
        name="handbook_answer",
        title="Answer from the handbook",
        description="Answer a support question from the handbook, which the prompt embeds (1800 bytes).",
    )
    def handbook_answer(
        question: Annotated[str, Field(description="the customer's question")],
    ) -> list[Message]:
        return [
            UserMessage(f"Answer this support question from the handbook below, citing its section: {question}"),
            UserMessage(embedded(HANDBOOK_URI, "text/markdown", handbook_text())),
        ]

    @mcp.prompt(
        name="customer_follow_up",
        title="Plan a customer follow-up",
        description="Plan the follow-up for one customer, whose record the prompt embeds (try fixture-17).",
    )
    def customer_follow_up(
        customer_id: Annotated[str, Field(description="the customer's id, as in crm://customer/{id}")],
    ) -> list[Message]:
        if customer_id not in CUSTOMERS:
            raise MCPError(INVALID_PARAMS, f"no customer record {customer_id!r}; the lab has fixture-17")
        return [
            UserMessage("Plan the next follow-up for this customer; use only the record below."),
            UserMessage(embedded(CUSTOMER_PREFIX + customer_id, "application/json", customer_text(customer_id))),
        ]

    @mcp.prompt(
        name="draft_reply",
        title="Draft a reply",
        description="Draft a reply to customer fixture-17 in a given tone (plain text, nothing embedded).",
    )
    def draft_reply(
        tone: Annotated[str, Field(description=f"one of {', '.join(TONES)}")],
    ) -> str:
        if tone not in TONES:
            raise MCPError(INVALID_PARAMS, f"no tone {tone!r}; the lab has {', '.join(TONES)}")
        return (
            f"Draft a {tone} reply to customer fixture-17 about their refund. Link the handbook "
            f"({HANDBOOK_URI}) instead of quoting it, and promise nothing the record does not support."
        )


#: What ``completion/complete`` offers for a prompt argument, by (prompt, argument).
_PROMPT_VALUES: dict[tuple[str, str], Sequence[str]] = {
    ("customer_follow_up", "customer_id"): tuple(CUSTOMERS),
    ("draft_reply", "tone"): TONES,
}


def register_completions(mcp: MCPServer[Any]) -> None:
    """Register ``completion/complete`` on ``mcp``: the values the lab knows, by prefix."""

    @mcp.completion()
    async def complete(ref: Any, argument: mt.CompletionArgument, context: Any) -> mt.Completion:
        # An unknown reference is -32602, not an empty list (MCP "Completion", Error Handling, since
        # 2025-03-26: servers SHOULD answer an invalid prompt name or argument with Invalid params).
        known: Sequence[str] = ()
        if isinstance(ref, mt.ResourceTemplateReference):
            if ref.uri != CUSTOMER_TEMPLATE or argument.name != "id":
                raise MCPError(INVALID_PARAMS, f"no template variable {argument.name!r} of {ref.uri!r} to complete")
            known = tuple(CUSTOMERS)
        elif isinstance(ref, mt.PromptReference):
            prompts = {p.name: p for p in await mcp.list_prompts()}
            if ref.name not in prompts:
                raise MCPError(INVALID_PARAMS, f"Unknown prompt: {ref.name!r}; the lab has {', '.join(prompts)}")
            if argument.name not in {a.name for a in prompts[ref.name].arguments or ()}:
                raise MCPError(INVALID_PARAMS, f"prompt {ref.name!r} has no argument {argument.name!r}")
            known = _PROMPT_VALUES.get((ref.name, argument.name), ())
        values = [v for v in known if v.startswith(argument.value)]
        return mt.Completion(values=values, total=len(values), has_more=False)
