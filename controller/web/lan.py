"""The page's address on the table's network, for the QR code and the demo's first lines.

launcher-web listening on every address (0.0.0.0 or ::) is reached from the phones at the Pi's
address on the LAN, never at 127.0.0.1: that address is the source address the kernel would use
to reach a public address (a UDP socket connected to it: no packet is sent), else one of the
host name's addresses that is not a loopback one, else None. Every address the machine answers at
(:func:`machine_addresses`) is one of the page's own origins.

``python -m controller.web.lan --listen HOST:PORT`` prints the page's address (``make demo``).
"""

from __future__ import annotations

import argparse
import fcntl
import ipaddress
import socket
import struct
import sys

ALL_ADDRESSES = frozenset({"0.0.0.0", "::", "", "*"})
# Never written to: connecting a UDP socket only picks the route and its source address.
PROBES = (("192.0.2.1", socket.AF_INET), ("2001:db8::1", socket.AF_INET6))


def _usable(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or ip.is_link_local or ip.is_multicast)


def lan_address(ipv6: bool = False) -> str | None:
    """This machine's address on its network (see the module's docstring); None without one."""
    probes = PROBES[::-1] if ipv6 else PROBES
    for target, family in probes:
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as probe:
                probe.connect((target, 9))
                address = probe.getsockname()[0]
        except OSError:
            continue
        if _usable(address):
            return address
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, proto=socket.IPPROTO_TCP)
    except OSError:
        infos = []
    for family, *_rest, sockaddr in sorted(infos, key=lambda info: info[0] != socket.AF_INET):
        if _usable(sockaddr[0]):
            return sockaddr[0]
    return None


SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address
IF_INET6 = "/proc/net/if_inet6"  # Linux: every interface's IPv6 addresses, one a line, in hex


def _interface_addresses_v4() -> set[str]:
    found = set()
    try:
        interfaces = socket.if_nameindex()
    except OSError:
        return found
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for _index, name in interfaces:
            try:
                raw = fcntl.ioctl(probe.fileno(), SIOCGIFADDR, struct.pack("256s", name[:15].encode()))
            except OSError:
                continue  # no IPv4 address on it
            found.add(socket.inet_ntoa(raw[20:24]))
    return found


def _interface_addresses_v6() -> set[str]:
    try:
        with open(IF_INET6, encoding="ascii") as table:
            lines = table.read().splitlines()
    except OSError:
        return set()
    return {str(ipaddress.IPv6Address(bytes.fromhex(line.split()[0]))) for line in lines if line.split()}


def machine_addresses(listen_host: str | None = None) -> set[str]:
    """Every address this machine answers at: its interfaces' (IPv4 and IPv6), the route's source
    address (:func:`lan_address`), the host name's, loopback, and ``listen_host`` when it is one
    address. These, and the names of the machine, are the page's own origins (guard.py)."""
    found = {"127.0.0.1", "::1"} | _interface_addresses_v4() | _interface_addresses_v6()
    found |= {address for address in (lan_address(), lan_address(ipv6=True)) if address}
    try:
        found |= {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, proto=socket.IPPROTO_TCP)}
    except OSError:
        pass
    if listen_host and not listens_everywhere(listen_host):
        found.add(listen_host)
    return {canonical for address in found if (canonical := canonical_address(address))}


def canonical_address(text: str) -> str | None:
    """An IP address as one spelling (``::ffff:10.0.0.2`` is ``10.0.0.2``, no zone); None if it is none."""
    try:
        address = ipaddress.ip_address(text.strip("[]").split("%")[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address)


def parse_listen(text: str) -> tuple[str, int]:
    """HOST:PORT (an IPv6 host in brackets) -> (host, port); ValueError says what is allowed."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536 or not host:
        raise ValueError(f"--listen {text!r}: expected HOST:PORT, e.g. 0.0.0.0:8080 or [::]:8080")
    return host.strip("[]"), int(port)


def listens_everywhere(host: str) -> bool:
    return host in ALL_ADDRESSES


def page_url(host: str, port: int) -> str | None:
    """The page's address for a phone when launcher-web listens on ``host:port``: the LAN address
    when it listens on every address (None if the machine has none), else the address given."""
    if listens_everywhere(host):
        host = lan_address(ipv6=host == "::") or ""
        if not host:
            return None
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


# What `make demo` prints about the page, in the demo's language (DEMO_LANG, else the locale's).
_SAID = {
    "en": {"page": "table page: {url} (join code: {code}; with it the page's Table display shows the code and a QR"
                   " code of this address; its log: {log})",
           "no_address": "no address on a network found: only this machine can open the page",
           "one_address": "listening on {host} only: phones cannot open it (listening on 0.0.0.0:{port},"
                          " WEB_LISTEN in make demo, lets them in)"},
    "fr": {"page": "page de la table : {url} (code de la table : {code} ; avec lui, l'Affichage table de la page"
                   " montre le code et un QR code de cette adresse ; son journal : {log})",
           "no_address": "aucune adresse sur un réseau : seule cette machine peut ouvrir la page",
           "one_address": "à l'écoute sur {host} seulement : les téléphones ne peuvent pas l'ouvrir (à l'écoute"
                          " sur 0.0.0.0:{port}, WEB_LISTEN de make demo, les laisse entrer)"},
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m controller.web.lan",
                                     description="print the table page's address on the table's network")
    parser.add_argument("--listen", default="0.0.0.0:8080", metavar="HOST:PORT")
    parser.add_argument("--lang", choices=sorted(_SAID), default="en", help="the language of what is said")
    parser.add_argument("--announce", metavar="LOG", help="say the page's address as a sentence, with its log's path")
    args = parser.parse_args(argv)
    said = _SAID[args.lang]
    host, port = parse_listen(args.listen)
    url = page_url(host, port)
    if url is None:
        print(said["no_address"], file=sys.stderr)
    elif not listens_everywhere(host):
        print(said["one_address"].format(host=host, port=port), file=sys.stderr)
    url = url or f"http://127.0.0.1:{port}/"
    if args.announce:
        print(said["page"].format(url=url, code="launcherctl game code", log=args.announce))
    else:
        print(url)
    return 0


if __name__ == "__main__":
    sys.exit(main())
