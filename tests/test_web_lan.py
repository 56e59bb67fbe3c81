"""The page's address on the table's network (controller/web/lan.py): what the QR code carries when
launcher-web listens on every address, never 127.0.0.1 then (issue #24)."""

from __future__ import annotations

import socket
from types import SimpleNamespace

from controller.web import lan
from controller.web.server import WebApp


class NoRoute:
    """A socket whose connect finds no route (a Pi with no network yet)."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def connect(self, address):
        raise OSError("Network is unreachable")


def test_an_address_given_is_the_pages_address():
    assert lan.page_url("127.0.0.1", 8080) == "http://127.0.0.1:8080/"
    assert lan.page_url("192.168.1.20", 80) == "http://192.168.1.20:80/"
    assert lan.page_url("fe80::1", 8080) == "http://[fe80::1]:8080/"


def test_every_address_gives_the_lan_address(monkeypatch):
    monkeypatch.setattr(lan, "lan_address", lambda ipv6=False: "192.168.1.20")
    assert lan.page_url("0.0.0.0", 8080) == "http://192.168.1.20:8080/"
    assert lan.page_url("::", 8080) == "http://192.168.1.20:8080/"


def test_the_routes_source_address_is_never_a_loopback_one():
    address = lan.lan_address()
    assert address is None or not address.startswith("127.")


def test_without_a_route_the_host_names_addresses_and_never_loopback(monkeypatch):
    monkeypatch.setattr(lan.socket, "socket", NoRoute)
    infos = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.1.1", 0)),
             (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.5", 0))]
    monkeypatch.setattr(lan.socket, "getaddrinfo", lambda *a, **k: infos)
    assert lan.lan_address() == "10.0.0.5"
    monkeypatch.setattr(lan.socket, "getaddrinfo", lambda *a, **k: infos[:1])
    assert lan.lan_address() is None
    assert lan.page_url("0.0.0.0", 8080) is None


def test_the_qr_codes_base_address(monkeypatch, tmp_path):
    monkeypatch.setattr(lan, "lan_address", lambda ipv6=False: "192.168.1.20")
    monkeypatch.setattr("controller.web.server.page_url", lan.page_url)
    request = SimpleNamespace(scheme="http", host="127.0.0.1:8080")
    everywhere = WebApp(tmp_path / "sock", listen=("0.0.0.0", 8080))
    assert everywhere.page_base(request) == "http://192.168.1.20:8080/"
    local = WebApp(tmp_path / "sock", listen=("127.0.0.1", 8080))
    assert local.page_base(request) == "http://127.0.0.1:8080/"
    given = WebApp(tmp_path / "sock", "http://table.local:8080/", listen=("0.0.0.0", 8080))
    assert given.page_base(request) == "http://table.local:8080/"


def test_make_demo_says_where_the_page_is_in_its_language(capsys):
    """`make demo DEMO_LANG=fr` prints the page's address, and why phones cannot open it, in French."""
    assert lan.main(["--listen", "127.0.0.1:8080", "--lang", "fr", "--announce", "web.log"]) == 0
    said = capsys.readouterr()
    assert said.out.startswith("page de la table : http://127.0.0.1:8080/ (code de la table : launcherctl game code")
    assert "web.log" in said.out and "les téléphones ne peuvent pas l'ouvrir" in said.err
    assert lan.main(["--listen", "127.0.0.1:8080"]) == 0
    said = capsys.readouterr()
    assert said.out == "http://127.0.0.1:8080/\n" and "phones cannot open it" in said.err
