"""Who may approve a tool call: a named person, or a policy the host has (the lab's host policy).

An approver is structured, never free text, so that a model's name cannot pass for one:

- ``{"person": "Dana Ruiz"}``: a person, named as the host's user directory names them: at least
  a given and a family name, letters only (a space, ``.``, ``'`` or ``-`` between them), and no
  word that names a machine (the server, a hint or annotation, the model, an agent, a bot);
- ``{"hostPolicy": "standing-approval"}``: one of :data:`HOST_POLICIES`, the policies this host
  has that approve a call without asking a person at that moment.

``"Claude"``, ``"the agent"``, ``"gpt-4o"`` or ``"auto-approve policy"`` is text, not an approver;
``{"person": "gpt-4o"}`` is no person (digits), ``{"person": "the agent"}`` names a machine, and
``{"hostPolicy": "auto-approve"}`` is no policy this host has. MCP (2026-07-28) defines no approval
field: who approved a call is the host's record (seed 000: the host shows "which actor approved
it"), and MCP says clients MUST treat tool annotations as untrusted unless the server is trusted
(since 2025-03-26), so a hint is never an approver either. The check is of the record's form: the
host still has to know that the person named did approve.
"""

from __future__ import annotations

__all__ = [
    "APPROVER_RULE",
    "HOST_POLICIES",
    "NOT_A_PERSON",
    "ApproverError",
    "approver_label",
    "approver_problem",
    "check_approver",
]

import re
import unicodedata
from collections.abc import Mapping
from types import MappingProxyType

from ..core.text import hidden_characters, visible

#: The host's named policies that may approve a tool call, and what each approves (the lab's host policy).
HOST_POLICIES: Mapping[str, str] = MappingProxyType(
    {
        "standing-approval": (
            "a call of this tool with exactly these arguments that a person approved ahead of the session, "
            "recorded by the host with that person's name"
        ),
    }
)

#: Words that name a machine, not a person: the server, its hints and annotations, the model or an
#: agent acting for it (compared case-folded, word by word).
NOT_A_PERSON: frozenset[str] = frozenset(
    "server servers hint hints readonlyhint destructivehint idempotenthint openworldhint annotation "
    "annotations model models llm assistant agent agents bot bots ai auto automatic policy system".split()
)

#: What an approver is, said in every refusal.
APPROVER_RULE = (
    'an approver is a named person, {"person": "Dana Ruiz"} (a given and a family name, letters only), '
    'or a policy the host has, {"hostPolicy": NAME} with NAME one of ' + ", ".join(map(repr, HOST_POLICIES))
)

_NAME_PUNCTUATION = " .'-"


class ApproverError(ValueError):
    """Not an approver (:data:`APPROVER_RULE`); ``.field`` names the argument or key at fault."""

    def __init__(self, message: str, *, field: str = "by") -> None:
        super().__init__(message)
        self.field = field


def _person_problem(name: str) -> str | None:
    cleaned = unicodedata.normalize("NFKC", name).strip()
    hidden = hidden_characters(name)
    if hidden:  # a Hangul filler or a braille blank is a "letter" that shows nothing
        return f"holds characters a reader cannot see ({', '.join(hidden)})"
    odd = sorted({ch for ch in cleaned if not (ch.isalpha() or ch in _NAME_PUNCTUATION)})
    if odd:
        return f"holds {', '.join(visible(repr(ch)) for ch in odd)}, which no name has (letters only)"
    words = [w for w in re.split(r"[ .'-]+", cleaned.casefold()) if w]
    machine = sorted(set(words) & NOT_A_PERSON)
    if machine:
        return f"names {', '.join(map(repr, machine))}: a machine, not a person"
    if len(words) < 2:
        return "is one name: a person is named with a given and a family name"
    return None


def approver_problem(approver: object) -> str | None:
    """Why ``approver`` is not an approver (:data:`APPROVER_RULE`), or ``None`` when it is one.

    Example:
        >>> approver_problem({"person": "Dana Ruiz"}) is None, approver_problem({"hostPolicy": "standing-approval"})
        (True, None)
        >>> approver_problem("Claude")
        "is text ('Claude'), not an approver"
        >>> approver_problem({"person": "gpt-4o"})
        "the person 'gpt-4o' holds '4', which no name has (letters only)"
        >>> approver_problem({"person": "the agent"}), approver_problem({"person": "Claude"})
        ("the person 'the agent' names 'agent': a machine, not a person", \
"the person 'Claude' is one name: a person is named with a given and a family name")
    """
    if not isinstance(approver, Mapping):
        kind = "text" if isinstance(approver, str) else type(approver).__name__
        return f"is {kind} ({visible(repr(approver))}), not an approver"
    keys = list(approver)
    if len(keys) != 1 or keys[0] not in ("person", "hostPolicy"):
        return f"has the keys {visible(repr(keys))}; an approver has one key, 'person' or 'hostPolicy'"
    (key,) = keys
    value = approver[key]
    if not isinstance(value, str) or not value.strip():
        return f"names no {key} ({visible(repr(value))})"
    if key == "hostPolicy":
        return None if value in HOST_POLICIES else f"names {visible(repr(value))}, which is no policy this host has"
    why = _person_problem(value)
    return None if why is None else f"the person {visible(repr(value))} {why}"


def check_approver(approver: object) -> dict[str, str]:
    """``approver`` as a plain dict, if it is one (:func:`approver_problem`).

    Raises:
        ApproverError: it is not; the message says why and what an approver is.
    """
    why = approver_problem(approver)
    if why is not None:
        raise ApproverError(f"the approver {why}; {APPROVER_RULE}")
    assert isinstance(approver, Mapping)  # approver_problem found it one
    return {str(k): str(v) for k, v in approver.items()}


def approver_label(approver: Mapping[str, str]) -> str:
    """How the host names an approver in a label.

    Example:
        >>> approver_label({"person": "Dana Ruiz"}), approver_label({"hostPolicy": "standing-approval"})
        ('Dana Ruiz, a person', "the host's policy 'standing-approval'")
    """
    if "hostPolicy" in approver:
        return f"the host's policy {visible(repr(approver['hostPolicy']))}"
    return f"{visible(approver.get('person'))}, a person"
