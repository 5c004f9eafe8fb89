"""The protocol layer: URI templates, base64 blobs, the sample catalog, template reading and
link-or-embed arithmetic. Standard library only; it may use the core.
"""

__all__: list[str] = []  # a layer, not an API: import from its modules
