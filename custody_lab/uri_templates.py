"""RFC 6570 URI templates: expand, match and parse, with errors that name the position.

The public path of the package :mod:`custody_lab.protocol.uri_templates` (the protocol layer:
template, expansion and matching modules, and the matcher's limits ``MAX_TEMPLATE_LENGTH``,
``MAX_EXPRESSIONS``, ``MAX_VARIABLES`` and ``MAX_URI_LENGTH``) and of the lessons' template
examples (:mod:`custody_lab.protocol.template_examples`: each operator on the same values, what a
listing costs beside one template, the lab's engine beside another one): notebooks and learners
type ``from custody_lab.uri_templates import …``; the code lives there, and this module only
re-exports it.
"""

from .protocol.template_examples import (
    EXAMPLE_VALUES,
    TRICKY_CASES,
    ListingCost,
    compare_engines,
    listing_cost,
    operator_examples,
)
from .protocol.uri_templates import (
    MAX_EXPRESSIONS,
    MAX_PREFIX_LENGTH,
    MAX_TEMPLATE_LENGTH,
    MAX_URI_LENGTH,
    MAX_VARIABLES,
    AmbiguousTemplateError,
    Expression,
    UriTemplate,
    UriTemplateError,
    UriTemplateTypeError,
    VarSpec,
    expand,
    expand_parts,
    match,
    parse,
)

__all__ = [
    "EXAMPLE_VALUES",
    "MAX_EXPRESSIONS",
    "MAX_PREFIX_LENGTH",
    "MAX_TEMPLATE_LENGTH",
    "MAX_URI_LENGTH",
    "MAX_VARIABLES",
    "TRICKY_CASES",
    "AmbiguousTemplateError",
    "Expression",
    "ListingCost",
    "UriTemplate",
    "UriTemplateError",
    "UriTemplateTypeError",
    "VarSpec",
    "compare_engines",
    "expand",
    "expand_parts",
    "listing_cost",
    "match",
    "operator_examples",
    "parse",
]
