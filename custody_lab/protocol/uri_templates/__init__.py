"""RFC 6570 URI Templates: expand them, and match URIs back against them.

An MCP server publishes *resource templates* such as ``orders://{order_id}``. A client fills one
in (expansion) to get a URI for ``resources/read``; the server then has to find which template
that URI came from, and with which values (matching). This package does both, with the standard
library only, split as the ``uritemplate`` library splits its template, variable and API:

- :mod:`.template`: :func:`parse` reads a template once into literal text and
  :class:`Expression` parts, each an operator and its :class:`VarSpec` variables, checking every
  character against the grammar (§2); the operator table of Appendix A lives there too;
- :mod:`.expansion`: :func:`expand` and :func:`expand_parts` turn a template and values into a
  URI (§3), and say which values are allowed;
- :mod:`.matching`: :func:`match` reads the values back from a URI and says which templates can
  be matched; both directions are bounded alike (:data:`MAX_TEMPLATE_LENGTH`,
  :data:`MAX_EXPRESSIONS`, :data:`MAX_VARIABLES`, :data:`MAX_URI_LENGTH`, in :mod:`.template`);
- :mod:`.errors`: every error is a :class:`UriTemplateError`, of the lab's ``CustodyLabError``
  family, naming the position of the offending character;
- :mod:`.cache`: the caches of parsed templates and compiled matchers, bounded in characters.

The public path is :mod:`custody_lab.uri_templates`.
"""

from __future__ import annotations

__all__ = [
    "MAX_EXPRESSIONS",
    "MAX_PREFIX_LENGTH",
    "MAX_TEMPLATE_LENGTH",
    "MAX_URI_LENGTH",
    "MAX_VARIABLES",
    "AmbiguousTemplateError",
    "Expression",
    "UriTemplate",
    "UriTemplateError",
    "UriTemplateTypeError",
    "VarSpec",
    "expand",
    "expand_parts",
    "match",
    "parse",
]

from .errors import AmbiguousTemplateError, UriTemplateError, UriTemplateTypeError
from .expansion import expand, expand_parts
from .matching import match
from .template import (
    MAX_EXPRESSIONS,
    MAX_PREFIX_LENGTH,
    MAX_TEMPLATE_LENGTH,
    MAX_URI_LENGTH,
    MAX_VARIABLES,
    Expression,
    UriTemplate,
    VarSpec,
    parse,
)
