"""Base64 blobs in MCP ``resources/read`` results: strict decoding, sniffing, reading contents items.

Three concerns, one module each:

- :mod:`.base64_codec`: :func:`encode`, :func:`decode`, :func:`decode_report`,
  :func:`decoded_size`, :func:`overhead` and the checks that explain every refusal;
- :mod:`.sniffing`: :func:`sniff_mime` (what the bytes look like) and the declared-vs-sniffed
  judgement;
- :mod:`.contents`: :func:`read_contents` (:class:`ContentsReading`) and :func:`hex_preview`.

Every error is a :class:`BlobError` (:mod:`.errors`). The public path is :mod:`custody_lab.blobs`.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_MAX_BYTES",
    "BlobError",
    "BlobTypeError",
    "ContentsReading",
    "DecodeResult",
    "decode",
    "decode_report",
    "decoded_size",
    "encode",
    "hex_preview",
    "overhead",
    "read_contents",
    "sniff_mime",
]

from .base64_codec import DEFAULT_MAX_BYTES, DecodeResult, decode, decode_report, decoded_size, encode, overhead
from .contents import ContentsReading, hex_preview, read_contents
from .errors import BlobError, BlobTypeError
from .sniffing import sniff_mime
