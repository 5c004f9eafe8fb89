"""Base64 blobs: strict decoding that explains itself, MIME sniffing, reading resource contents.

The public path of the package :mod:`custody_lab.protocol.blobs` (the protocol layer; base64, sniffing
and contents modules): notebooks and learners type
``from custody_lab.blobs import …``; the code lives there, and this module only re-exports it.
"""

from .protocol.blobs import *  # noqa: F403  (a re-export: the names are that package's __all__)
from .protocol.blobs import __all__ as __all__
