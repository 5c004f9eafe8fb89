"""RFC 6570 URI templates: expand, match and parse, with errors that name the position.

The public path of the package :mod:`custody_lab.protocol.uri_templates` (the protocol layer;
template, expansion and matching modules, and the matcher's limits ``MAX_TEMPLATE_LENGTH``,
``MAX_EXPRESSIONS``, ``MAX_VARIABLES`` and ``MAX_URI_LENGTH``): notebooks and learners type
``from custody_lab.uri_templates import …``; the code lives there, and this module only re-exports it.
"""

from .protocol.uri_templates import *  # noqa: F403  (a re-export: the names are that package's __all__)
from .protocol.uri_templates import __all__ as __all__
