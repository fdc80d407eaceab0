"""A web address read the way a browser reads it (the WHATWG URL Standard, http and https only).

A server that asks the person to open a page (elicitation in URL mode) chooses the address; the
person is shown the host it leads to. Python's ``urlsplit`` follows RFC 3986, and browsers do
not, so an address can name one host to ``urlsplit`` and open another in the browser:
``https://evil.example\\@paypal.com/login`` is paypal.com to the first and evil.example to
Chromium, because for http(s) a backslash is a slash and ends the host. So this module parses
as the standard's basic URL parser does, for the parts that decide the host:

- leading and trailing C0 controls and spaces are dropped, and every tab, CR and LF anywhere;
- the scheme is case-insensitive; any run of ``/`` and ``\\`` after it (even none) starts the
  authority, which ends at the first ``/``, ``\\``, ``?`` or ``#``;
- user name and password are everything before the authority's last ``@``;
- the port is digits only, at most 65535 (443 and 80 are the defaults and go);
- the host is percent-decoded, then mapped and converted to ASCII by UTS #46 (non-transitional:
  ``faß.de`` is ``xn--fa-hia.de``, as browsers resolve it), and must not hold a forbidden
  character (space, ``<``, ``%``, ...);
- a host whose last label is a number is an IPv4 address, whose parts may be decimal, octal
  (``0177``) or hex (``0x7f``), and fewer than four (``127.1``, ``2130706433``); it is shown
  in the usual dotted form. ``[...]`` is an IPv6 address, shown compressed.

An address the standard's parser rejects is ``AddressError`` with the reason: a browser would
not open it, so neither is it offered. The domain-to-ASCII step is the ``idna`` package's
UTS #46 mapping (already installed with the MCP SDK's HTTP stack) with its IDNA 2008 label
check, which is stricter than browsers for a few labels (emoji): those are refused rather
than guessed at.

``WebAddress.misleading`` lists what in the address as written could make a person read
another host than the one it opens (a backslash, a dropped tab, a percent-escape in the host,
a number for a host in an unusual form). ``href`` is the address rebuilt from what was read, so
a link opens exactly the host shown (``https://evil.example/@paypal.com/login``).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from urllib.parse import unquote_to_bytes

import idna

from mcp_host.reported import InvalidValueError

WEB_SCHEMES = {"http": 80, "https": 443}
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
# Characters a domain may not hold once decoded (the standard's forbidden domain code points).
_FORBIDDEN = frozenset("\x00\t\n\r #/:<>?@[\\]^|%\x7f") | frozenset(chr(c) for c in range(0x20))
_C0_OR_SPACE = "".join(chr(c) for c in range(0x21))


class AddressError(InvalidValueError, ValueError):
    """An address a browser would not open; the message says what is wrong with it."""


@dataclass(frozen=True)
class WebAddress:
    scheme: str
    # The host the browser connects to, as it serialises it (ASCII; IPv6 in brackets).
    host: str
    port: int | None
    # Path, query and fragment as the browser reads them (backslashes in the path are slashes).
    rest: str
    has_credentials: bool
    # The host in Unicode where it has internationalised labels (else None).
    unicode_host: str | None = None
    # What in the address as written could make a person read another host.
    misleading: list[str] = field(default_factory=list)

    @property
    def href(self) -> str:
        """The address rebuilt from what was read: opening it opens ``host`` and nothing else.
        A user name and password are left out (they only ever serve to disguise the host)."""
        port = f":{self.port}" if self.port is not None else ""
        return f"{self.scheme}://{self.host}{port}{self.rest}"


def parse_web_address(raw: str) -> WebAddress | None:
    """``raw`` as a browser reads it; None when it is not an http(s) address at all;
    AddressError when it is one a browser would refuse to open."""
    misleading: list[str] = []
    text = raw.strip(_C0_OR_SPACE)
    if any(char in text for char in "\t\r\n"):
        misleading.append("tabs or line breaks, which browsers drop")
        text = re.sub(r"[\t\r\n]", "", text)
    scheme_match = _SCHEME.match(text)
    if scheme_match is None or scheme_match.group(1).lower() not in WEB_SCHEMES:
        return None
    scheme = scheme_match.group(1).lower()
    after = text[scheme_match.end() :]
    slashes = len(after) - len(after.lstrip("/\\"))
    if after[:slashes] != "//":
        misleading.append("slashes after the scheme that are not the usual //, which browsers skip")
    after = after[slashes:]
    end = _authority_end(after)
    authority, rest = after[:end], after[end:]
    if rest.startswith("\\"):
        misleading.append("a backslash, which browsers read as / (it ends the host)")
    _, at, host_port = authority.rpartition("@")
    host_text, port = _host_and_port(host_port, scheme)
    if not host_text:
        return None  # no host: nothing a browser could open
    host, unicode_host = _host(host_text, misleading)
    return WebAddress(
        scheme=scheme,
        host=host,
        port=port,
        rest=_rest(rest),
        has_credentials=bool(at),
        unicode_host=unicode_host,
        misleading=misleading,
    )


def _authority_end(text: str) -> int:
    """Where the authority ends: the first /, \\, ? or # (for http and https)."""
    for index, char in enumerate(text):
        if char in "/\\?#":
            return index
    return len(text)


def _host_and_port(text: str, scheme: str) -> tuple[str, int | None]:
    """Split ``host:port`` (a colon inside an IPv6 address's brackets is no port's)."""
    closing = text.rfind("]")
    colon = text.rfind(":")
    if colon == -1 or colon < closing:
        return text, None
    host, digits = text[:colon], text[colon + 1 :]
    if not digits:
        return host, None
    if not digits.isascii() or not digits.isdigit():
        raise AddressError(f"the port {digits!r} is not a number")
    port = int(digits)
    if port > 65535:
        raise AddressError(f"the port {port} is over 65535")
    return host, None if port == WEB_SCHEMES[scheme] else port


def _host(text: str, misleading: list[str]) -> tuple[str, str | None]:
    """The host as the browser serialises it, and its Unicode form when it has one."""
    if text.startswith("["):
        if not text.endswith("]"):
            raise AddressError(f"the host {text!r} opens an IPv6 address it does not close")
        try:
            return f"[{ipaddress.IPv6Address(text[1:-1]).compressed}]", None
        except ValueError:
            raise AddressError(f"the host {text!r} is not a valid IPv6 address") from None
    if "%" in text:
        misleading.append("percent-escapes in the host, which browsers decode")
    try:
        decoded = unquote_to_bytes(text).decode("utf-8")
    except UnicodeDecodeError:
        raise AddressError(f"the host {text!r} decodes to bytes that are not UTF-8") from None
    ascii_host, unicode_host = _domain_to_ascii(decoded)
    if _ends_in_a_number(ascii_host):
        address = _ipv4(ascii_host)
        if address != ascii_host:
            misleading.append(f"a number for a host written unusually ({text} is {address})")
        return address, None
    return ascii_host, unicode_host


def _domain_to_ascii(domain: str) -> tuple[str, str | None]:
    """UTS #46 (non-transitional, as browsers): the ASCII host and, when any label is
    internationalised, how it reads in Unicode."""
    try:
        mapped = idna.uts46_remap(domain, std3_rules=False, transitional=False)
    except idna.IDNAError as exc:
        raise AddressError(f"the host {domain!r} is not a valid domain: {exc}") from None
    ascii_labels: list[str] = []
    unicode_labels: list[str] = []
    for label in mapped.split("."):
        try:
            if label.isascii() and not label.startswith("xn--"):
                ascii_labels.append(label)
                unicode_labels.append(label)
            elif label.isascii():
                unicode_labels.append(idna.ulabel(label))
                ascii_labels.append(label)
            else:
                ascii_labels.append(idna.alabel(label).decode("ascii"))
                unicode_labels.append(label)
        except (idna.IDNAError, UnicodeError) as exc:
            raise AddressError(f"the host {domain!r} is not a valid domain: {exc}") from None
    ascii_host = ".".join(ascii_labels)
    bad = sorted({char for char in ascii_host if char in _FORBIDDEN})
    if bad or not ascii_host:
        shown = ", ".join(repr(char) for char in bad) or "nothing"
        raise AddressError(f"the host {domain!r} holds characters no domain may hold ({shown})")
    unicode_host = ".".join(unicode_labels)
    return ascii_host, unicode_host if unicode_host != ascii_host else None


def _ends_in_a_number(host: str) -> bool:
    labels = host.split(".")
    if labels[-1] == "" and len(labels) > 1:
        labels.pop()
    last = labels[-1]
    if last.isascii() and last.isdigit():
        return True
    return last[:2].lower() == "0x" and all(c in "0123456789abcdefABCDEF" for c in last[2:])


def _ipv4_number(part: str, host: str) -> int:
    radix, digits = 10, part
    if part[:2].lower() == "0x":
        radix, digits = 16, part[2:]
    elif len(part) > 1 and part.startswith("0"):
        radix, digits = 8, part[1:]
    if not digits:
        return 0
    # int() would also take "_", "+" and spaces; the standard takes digits of the radix only.
    if digits.isascii() and digits.isalnum():
        try:
            return int(digits, radix)
        except ValueError:
            pass
    raise AddressError(f"the host {host!r} ends in a number but is not an IPv4 address")


def _ipv4(host: str) -> str:
    """An IPv4 host in any of the forms browsers take, dotted."""
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4 or any(part == "" for part in parts):
        raise AddressError(f"the host {host!r} ends in a number but is not an IPv4 address")
    numbers = [_ipv4_number(part, host) for part in parts]
    if any(number > 255 for number in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise AddressError(f"the host {host!r} is an IPv4 address out of range")
    value = numbers[-1] + sum(number * 256 ** (3 - index) for index, number in enumerate(numbers[:-1]))
    return str(ipaddress.IPv4Address(value))


def _rest(text: str) -> str:
    """Path, query and fragment: the path's backslashes read as slashes, and a path always."""
    cut = min((i for i in (text.find("?"), text.find("#")) if i != -1), default=len(text))
    path, tail = text[:cut].replace("\\", "/"), text[cut:]
    return (path if path.startswith("/") else "/" + path) + tail
