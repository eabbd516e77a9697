"""The address that phones on the same Wi-Fi should open, and QR codes for links."""

from __future__ import annotations

import os
import socket
from functools import lru_cache

import segno


def lan_ip() -> str:
    """This machine's LAN address (the one its default route uses), or 127.0.0.1."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        # connect() on a UDP socket only picks the outgoing interface: no packet is sent.
        probe.connect(("10.254.254.254", 9))
        return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def lan_base_url(request) -> str:
    """``http://<lan ip>:<port>`` for the running server (the request's port, else $PORT)."""
    return lan_base_url_for(request.get_host(), request.is_secure())


def lan_base_url_for(host: str, secure: bool) -> str:
    """:func:`lan_base_url` for a Host header and scheme (a socket's, or a request's)."""
    port = host.rsplit(":", 1)[1] if ":" in host and not host.endswith("]") else os.environ.get("PORT", "8000")
    scheme = "https" if secure else "http"
    return f"{scheme}://{lan_ip()}:{port}"


@lru_cache(maxsize=256)
def qr_svg(data: str) -> str:
    """An inline SVG QR code (dark on white, for bright light and phone cameras); drawn once per text
    in a process (every phone and board of a table shows the same join link between games)."""
    return segno.make(data, error="m").svg_inline(scale=6, border=2, dark="#111", light="#fff", omitsize=True)
