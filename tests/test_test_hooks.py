"""The test hooks that shorten a service's constants: a value that is no whole number of
milliseconds leaves the product's own, and never stops the service."""

from firmware import test_hooks

HOOK = "LAUNCHER_TEST_EXAMPLE_MS"


def test_unset_keeps_the_default(monkeypatch):
    monkeypatch.delenv(HOOK, raising=False)
    assert test_hooks.seconds(HOOK, 15.0) == 15.0


def test_milliseconds_become_seconds(monkeypatch):
    monkeypatch.setenv(HOOK, " 250 ")
    assert test_hooks.seconds(HOOK, 15.0) == 0.25


def test_a_value_that_is_no_whole_number_keeps_the_default_and_says_so(monkeypatch, caplog):
    for bad in ("0.5", "-3", "soon"):
        monkeypatch.setenv(HOOK, bad)
        assert test_hooks.seconds(HOOK, 15.0) == 15.0
    assert caplog.text.count("is not a whole number of milliseconds") == 3
