"""Servers others could reach: free ports, loopback addresses, and the warnings the lab prints.

``custody-lab lab`` and ``custody-lab present`` (:mod:`custody_lab.delivery`) choose their port
here, and print :func:`exposure_warnings` before they start: a server bound beyond this machine,
or one without a token, lets other people run code here as the user who started it.
"""

from __future__ import annotations

__all__ = [
    "PORT_TRIES",
    "DeliveryError",
    "choose_port",
    "exposure_warnings",
    "free_port",
    "is_loopback",
    "url_host",
]

import errno
import ipaddress
import socket

from ..core.errors import CustodyLabError

#: How many ports from the default a server tries before asking for ``--port N``.
PORT_TRIES = 10


class DeliveryError(CustodyLabError, ValueError):
    """A server could not be started or did not answer; the message says which and why."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` right now (the OS picks it).

    Example:
        >>> 1024 <= free_port() <= 65535
        True
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine (``127.0.0.1``, ``::1``, ``localhost``).

    ``""`` and ``0.0.0.0`` mean every interface, and a host name may resolve anywhere: not loopback.

    Example:
        >>> [is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "0.0.0.0", "", "10.0.0.5")]
        [True, True, True, False, False, False]
    """
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _port_is_free(host: str, port: int) -> bool:
    """Whether a server could listen on ``host:port`` now; an address this machine does not have
    (or a port it may not use) is a :class:`DeliveryError`, not "busy"."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as tornado binds: TIME_WAIT is free
        try:
            s.bind((host.strip("[]"), port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return False
            raise DeliveryError(f"cannot listen on {host or 'every interface'} port {port}: {e.strerror or e}") from e
    return True


def choose_port(host: str, port: int | None, start: int, tries: int = PORT_TRIES) -> int:
    """``port`` when it is free on ``host``; without one, the first free port from ``start``.

    Raises:
        DeliveryError: ``port`` is in use (the message says ``--port N``), or none of the
            ``tries`` ports from ``start`` is free.

    Example:
        >>> p = free_port()
        >>> choose_port("127.0.0.1", p, 8866) == p
        True
    """
    if port is not None:
        if not _port_is_free(host, port):
            raise DeliveryError(
                f"port {port} on {host or 'every interface'} is in use (another server?): pick another "
                f"with --port N, or leave --port out to take the first free one from {start}"
            )
        return port
    for candidate in range(start, start + tries):
        if _port_is_free(host, candidate):
            return candidate
    raise DeliveryError(f"ports {start} to {start + tries - 1} on {host} are all in use: pick one with --port N")


def exposure_warnings(host: str, token: str | None, port: int, what: str) -> list[str]:
    """The warnings for a server that others could reach: a non-loopback bind, an empty token.

    ``token`` is ``None`` for a server with no token at all (``--no-token``) and ``""`` for a
    token emptied by a flag; ``what`` names the server in the sentences.

    Example:
        >>> exposure_warnings("127.0.0.1", "s3cret", 8866, "the presentation")
        []
        >>> [w.split(":")[0] for w in exposure_warnings("0.0.0.0", "", 8888, "JupyterLab")]
        ['warning', 'warning']
    """
    found = []
    if not is_loopback(host):
        found.append(
            f"warning: {what} listens on {host or 'every interface'!r}, not only on this machine: anyone "
            f"who can reach port {port} over the network can open it, and its kernels run code as "
            f"{_user()} here. Use --ip 127.0.0.1 unless people must connect from their own machines."
        )
    if not token:
        found.append(
            f"warning: {what} has no token: "
            + (
                f"any program or person on this machine can open port {port} and run code as {_user()}."
                if is_loopback(host)
                else "together with the address above, anyone on the network can run code on this machine."
            )
        )
    return found


def _user() -> str:
    try:
        import getpass

        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return "this user"


def url_host(host: str) -> str:
    """The host to put in a printed URL: the bound address, this machine's name for "every interface"."""
    if host in ("", "0.0.0.0", "::", "[::]"):
        return socket.gethostname()
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
