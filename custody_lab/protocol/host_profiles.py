"""Host profiles: what a host does with a ``tools/call`` result, as rows of data.

A result can carry the same output in several forms (content blocks, ``structuredContent``, resource
links, embedded resources, annotations such as ``audience``), and a server cannot know which form a
host puts into the model's context. A profile is one host's documented choices, one row of
``data/hosts/profiles.json``; the host lens (:mod:`custody_lab.protocol.host_lens`) reads a result
through each profile and the rule table says which custody rules the profile kept or broke.

Every profile in the lab's data is **hypothetical** (its ``basis`` says so): none describes a real
client's behaviour. The choices, one field each:

================  ===========================================================================
field             values
================  ===========================================================================
``content``       ``blocks`` (the content array only), ``structured-when-present``
                  (``structuredContent`` when the result has it, else the content array),
                  ``both``
``links``         ``never`` (shown to the model, never read), ``on-request`` (read when the
                  model asks, after a second permission check), ``silently`` (read at once,
                  with the host's own access: the seed's anti-pattern)
``userBlocks``    ``kept-from-model`` or ``sent-to-model`` (a block annotated
                  ``audience: ["user"]``)
``embeds``        ``authorised`` (routed through the rule table before its bytes enter) or
                  ``trusted`` (bytes that arrived enter)
``overBudget``    ``refused``, ``truncated-recorded``, ``truncated-silently``
``logs``          ``per-budget``, ``combined`` (one total), ``tool-name-only``
================  ===========================================================================

MCP facts used (2025-06-18, 2025-11-25 and 2026-07-28 alike): a tool result may carry
``structuredContent`` beside its ``content`` array, and a tool that returns structured content SHOULD
also return the serialized JSON in a text block; content blocks may carry ``annotations`` whose
``audience`` lists ``"user"`` and/or ``"assistant"``. What a host does with either is the host's
choice: MCP does not say.
"""

from __future__ import annotations

__all__ = [
    "CHOICES",
    "HostProfile",
    "HostProfileError",
    "load_host_profiles",
    "profile",
]

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import PolicyError
from ..core.paths import data_path
from ..core.tables import read_json_file

#: Each choice field (the data's camelCase key) and the values it takes, in the order the lab
#: ranks them from most to least custodial.
CHOICES: dict[str, tuple[str, ...]] = {
    "content": ("structured-when-present", "blocks", "both"),
    "links": ("on-request", "never", "silently"),
    "userBlocks": ("kept-from-model", "sent-to-model"),
    "embeds": ("authorised", "trusted"),
    "overBudget": ("refused", "truncated-recorded", "truncated-silently"),
    "logs": ("per-budget", "combined", "tool-name-only"),
}
_TEXT = ("id", "label", "basis")


class HostProfileError(PolicyError):
    """A host profile row is malformed; ``.field`` names the row and field (``profiles[2].links``)."""


@dataclass(frozen=True)
class HostProfile:
    """One host's choices (see the module's table for the values).

    Attributes:
        id, label: the profile's key and its display name.
        content, links, user_blocks, embeds, over_budget, logs: the six choices.
        basis: where the profile comes from ("hypothetical: ..." for every profile of the lab).
    """

    id: str
    label: str
    content: str
    links: str
    user_blocks: str
    embeds: str
    over_budget: str
    logs: str
    basis: str

    @classmethod
    def from_dict(cls, row: Mapping[str, Any], where: str = "profile") -> HostProfile:
        """A profile from one row of the data (camelCase keys); errors name ``where.field``.

        Example:
            >>> row = {"id": "x", "label": "X", "content": "both", "links": "always", "userBlocks": "sent-to-model",
            ...        "embeds": "trusted", "overBudget": "refused", "logs": "combined", "basis": "hypothetical"}
            >>> try:
            ...     HostProfile.from_dict(row, "profiles[0]")
            ... except HostProfileError as e:
            ...     print(e.field, "|", e)
            profiles[0].links | profiles[0].links: 'always' is not one of never, on-request, silently
        """
        if not isinstance(row, Mapping):
            raise HostProfileError(f"{where}: a profile is a JSON object", where)
        unknown = sorted(set(row) - set(CHOICES) - set(_TEXT))
        if unknown:
            raise HostProfileError(f"{where}.{unknown[0]}: not a profile field", f"{where}.{unknown[0]}")
        values: dict[str, str] = {}
        for key in (*_TEXT, *CHOICES):
            value = row.get(key)
            field = f"{where}.{key}"
            if not isinstance(value, str) or not value.strip():
                raise HostProfileError(f"{field}: missing or not a non-blank string", field)
            if key in CHOICES and value not in CHOICES[key]:
                allowed = ", ".join(sorted(CHOICES[key]))
                raise HostProfileError(f"{field}: {value!r} is not one of {allowed}", field)
            values[key] = value
        return cls(
            id=values["id"],
            label=values["label"],
            content=values["content"],
            links=values["links"],
            user_blocks=values["userBlocks"],
            embeds=values["embeds"],
            over_budget=values["overBudget"],
            logs=values["logs"],
            basis=values["basis"],
        )

    def to_dict(self) -> dict[str, str]:
        """The row's camelCase keys, as the data holds them."""
        return {
            "id": self.id,
            "label": self.label,
            "content": self.content,
            "links": self.links,
            "userBlocks": self.user_blocks,
            "embeds": self.embeds,
            "overBudget": self.over_budget,
            "logs": self.logs,
            "basis": self.basis,
        }


def load_host_profiles(path: str | Path | None = None) -> tuple[HostProfile, ...]:
    """Read the host profiles (``data/hosts/profiles.json`` when ``path`` is omitted).

    The file is read as the policy loader reads a policy: UTF-8, one object, no key twice, no NaN.

    Raises:
        HostProfileError: naming the file, and the row and field at fault.

    Example:
        >>> [p.id for p in load_host_profiles()]
        ['custodian', 'plain-reader', 'both-forms', 'eager-fetcher']
    """
    path = data_path("hosts", "profiles.json") if path is None else Path(path)
    data = read_json_file(path, "host profiles", HostProfileError)
    rows = data.get("profiles") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        raise HostProfileError(f"host profiles {path}: needs a non-empty 'profiles' list", "profiles")
    out: list[HostProfile] = []
    for i, row in enumerate(rows):
        try:
            out.append(HostProfile.from_dict(row, f"profiles[{i}]"))
        except HostProfileError as e:
            raise HostProfileError(f"host profiles {path}: {e}", e.field) from e
    seen: set[str] = set()
    for i, p in enumerate(out):
        if p.id in seen:
            raise HostProfileError(
                f"host profiles {path}: profiles[{i}].id {p.id!r} appears twice", f"profiles[{i}].id"
            )
        seen.add(p.id)
    return tuple(out)


def profile(profile_id: str, profiles: tuple[HostProfile, ...] | None = None) -> HostProfile:
    """The profile with this id (from the lab's data when ``profiles`` is omitted).

    Example:
        >>> profile("eager-fetcher").links
        'silently'
    """
    rows = load_host_profiles() if profiles is None else profiles
    for p in rows:
        if p.id == profile_id:
            return p
    raise HostProfileError(f"no host profile {profile_id!r}; the profiles are {', '.join(p.id for p in rows)}", "id")
