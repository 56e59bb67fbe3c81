"""Parameters nested hundreds deep (issue 22): launcherd refuses them with a precise error on its
socket, launcher-web before it forwards them; real launcherd --sim and launcher-web processes."""

from __future__ import annotations

import json
import socket

import pytest

from harness.web import Stack

from firmware.daemon.registry import MAX_NESTING  # noqa: E402

INVALID_PARAMS = -32602
# 500 overflowed the game layer's copy of the params, 975 and more launcher-web and the parser.
DEPTHS = [MAX_NESTING + 1, 500, 950, 980, 5_000]


@pytest.fixture(scope="module")
def stack():
    running = Stack().start()
    yield running
    running.close()


def nested(depth: int) -> str:
    """``{"players": [[...]]}``: the params object is level 1, each list one more."""
    return '{"players": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


def raw_call(stack: Stack, line: str) -> dict:
    with socket.socket(socket.AF_UNIX) as client:
        client.settimeout(10)
        client.connect(str(stack.socket))
        client.sendall(line.encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            reply += client.recv(65536)
    return json.loads(reply)


@pytest.mark.parametrize("depth", DEPTHS)
def test_deep_params_on_the_socket_are_invalid_params_naming_the_method(stack, depth):
    reply = raw_call(stack, f'{{"id": 7, "method": "game/new", "params": {nested(depth)}}}')
    # Refused before the line is decoded (issue 36): the id and method are read from the line's
    # head, before its depths, whatever the depth.
    assert reply["id"] == 7, reply
    assert reply["error"]["code"] == INVALID_PARAMS
    assert reply["error"]["message"] == (f"game/new: params hold lists or objects nested more than"
                                         f" {MAX_NESTING} deep")
    log = (stack.dir / "launcherd.log").read_text()
    assert "Traceback" not in log and "recursion" not in log, log


def test_params_as_deep_as_allowed_reach_the_method(stack):
    reply = raw_call(stack, f'{{"id": 8, "method": "game/new", "params": {nested(MAX_NESTING)}}}')
    assert reply["id"] == 8 and "nested" not in reply["error"]["message"], reply  # the method's own refusal


def test_brackets_inside_a_string_are_not_nesting(stack):
    name = "[" * 2_000  # a name that only looks deep: the method judges it (too long), not the nesting
    reply = raw_call(stack, json.dumps({"id": 9, "method": "game/new",
                                        "params": {"rules": "attack-mega-hit", "players": ["Ann", name]}}))
    assert reply["id"] == 9 and "nested" not in reply["error"]["message"], reply


@pytest.mark.parametrize("depth", DEPTHS)
def test_deep_params_through_the_page_are_a_400(stack, depth):
    status, reply, _ = stack.request("POST", "/api/game/new", code=stack.code(), raw=nested(depth).encode())
    assert status == 400, reply
    assert reply["error"]["code"] == INVALID_PARAMS and "nested too deeply" in reply["error"]["message"]
    assert "Traceback" not in stack.web_log()
    assert stack.get("/api/state")[0] == 200


def test_the_game_layers_copy_of_a_value_of_any_depth_does_not_recurse():
    from firmware.daemon.crossing import plain

    deepest: list = []
    value = {"players": deepest}
    for _ in range(100_000):
        deepest.append([])
        deepest = deepest[0]
    copy = plain(value)
    assert copy is not value and copy["players"] is not value["players"]
    shallow = {"a": [1, (2, 3), {"b": [{}]}], "c": "x"}
    assert plain(shallow) == {"a": [1, [2, 3], {"b": [{}]}], "c": "x"}
    assert list(plain({"z": 1, "a": 2})) == ["z", "a"]  # the order of the keys is kept
