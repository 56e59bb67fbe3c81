"""The API's methods: each one's parameters checked before its handler runs (``Param``), the
registry of methods, and replies encoded once (``Encoded``); the limits on what a request may hold."""

from __future__ import annotations

import inspect
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from firmware.errors import ApiError, InvalidParams
from firmware.i18n import message

REQUIRED = object()
# Whole numbers a parameter may carry: those a double holds exactly (every JSON reader agrees on
# them). Past this no count, id or duration means anything, and SQLite's integers end at 2^63.
INT_BOUND = 2**53
# Lists and objects within each other in a request: a method's parameters are two or three deep (a
# list of names in an object). A request far deeper is refused before anything walks it, as every
# copy, check and encoding that recurses would overflow the stack somewhere near 1,000.
MAX_NESTING = 32

Handler = Callable[[dict[str, Any]], Any | Awaitable[Any]]


@dataclass(frozen=True)
class Param:
    """One parameter of a method: its type, default and limits."""

    type: type
    default: Any = REQUIRED
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] | None = None
    doc: str = ""

    def check(self, method: str, name: str, value: Any) -> Any:
        if value is None and self.default is None:
            return None  # an optional parameter given explicitly as null
        expected = self.type
        ok = isinstance(value, expected) and not (expected in (int, float) and isinstance(value, bool))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            ok = abs(value) <= INT_BOUND  # beyond that no angle or count makes sense, and float() may overflow
            value = float(value) if ok else value
        if ok and isinstance(value, float) and not math.isfinite(value):
            ok = False
        if not ok:
            raise InvalidParams(message("api_param_type", method=method, param=name,
                                        expected=_type_key(expected), got=_short(value)))
        if self.minimum is not None and value < self.minimum:
            raise InvalidParams(message("api_param_at_least", method=method, param=name,
                                        minimum=str(self.minimum), got=_short(value)))
        if self.maximum is not None and value > self.maximum:
            raise InvalidParams(message("api_param_at_most", method=method, param=name,
                                        maximum=str(self.maximum), got=_short(value)))
        if expected is int and abs(value) > INT_BOUND:
            raise InvalidParams(message("api_param_int_range", method=method, param=name, got=_short(value)))
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise InvalidParams(message("api_param_choice", method=method, param=name, allowed=allowed,
                                        got=_short(value)))
        return value


def _type_key(kind: type) -> str:
    """The catalogue's word for a parameter's type (``value_type:int``); another type by its name."""
    return kind.__name__


def _short(value: Any) -> str:
    try:
        text = json.dumps(value) if not isinstance(value, str) else repr(value)
    except (RecursionError, ValueError):
        text = f"a {type(value).__name__} nested too deeply"
    return text if len(text) <= 40 else text[:37] + "..."


def too_deep(value: Any, limit: int = MAX_NESTING) -> bool:
    """Whether a JSON value holds lists and objects nested more than ``limit`` deep (the value itself
    is level 1). Walked without recursion, and only as far as ``limit``: the value may be far deeper."""
    waiting = [(value, 1)]
    while waiting:
        item, level = waiting.pop()
        if not isinstance(item, (dict, list)):
            continue
        if level > limit:
            return True
        waiting.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item)
                       if isinstance(child, (dict, list)))
    return False


# A JSON string with its escapes (the unrolled form: no backtracking per character), and a bracket.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_STRING_OR_BRACKET = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[][{}]')
# Brackets only, lists and objects alike: "{" and "[" open, "}" and "]" close.
_OPENS_CLOSES = bytes.maketrans(b"{}", b"[]")
_NOT_A_BRACKET = bytes(set(range(256)) - set(b"[]{}"))


def nested_deeper(line: bytes, limit: int = MAX_NESTING) -> bool:
    """Whether a JSON text holds lists or objects nested more than ``limit`` deep, judged without
    decoding it: the strings taken out, the brackets kept, then ``limit`` times every innermost
    pair (``[]``) removed. A pair left after that was deeper. Each step is one pass in C over the
    line; a line with no more than ``limit`` brackets is not looked at further, and more than
    ``limit`` opening brackets in a row (the usual shape of an attack) end the look at once."""
    if line.count(b"[") + line.count(b"{") <= limit:
        return False
    brackets = _STRING.sub(b"", line).translate(_OPENS_CLOSES, _NOT_A_BRACKET)
    run = b"[" * (limit + 1)
    for _ in range(limit):
        if run in brackets:
            return True
        shorter = brackets.replace(b"[]", b"")
        if len(shorter) == len(brackets):
            return False  # nothing nested left (what remains never closes: not JSON, not nesting)
        brackets = shorter
    return b"[]" in brackets


def second_bracket(line: bytes) -> int | None:
    """Where the second list or object of a JSON text begins (outside strings), None without one."""
    seen = 0
    for token in _STRING_OR_BRACKET.finditer(line):
        if token.group() in (b"[", b"{"):
            seen += 1
            if seen == 2:
                return token.start()
    return None


def _as_param(spec: Any) -> Param:
    if isinstance(spec, Param):
        return spec
    if isinstance(spec, tuple):
        return Param(spec[0], spec[1])
    return Param(spec)


@dataclass(frozen=True)
class Method:
    name: str
    handler: Handler
    params: dict[str, Param]
    doc: str
    # The handler touches nothing of the loop it runs on (it posts to another thread and awaits):
    # the API server runs it on its own loop instead of the motor's.
    on_any_loop: bool = False


class Registry:
    """Methods by name, with their parameter schemas; checks params before a handler runs."""

    def __init__(self) -> None:
        self._methods: dict[str, Method] = {}

    def register(self, name: str, handler: Handler, params: dict[str, Any] | None = None,
                 doc: str = "", on_any_loop: bool = False) -> None:
        if name in self._methods:
            raise ValueError(f"method {name} is already registered")
        schema = {key: _as_param(spec) for key, spec in (params or {}).items()}
        self._methods[name] = Method(name, handler, schema, doc, on_any_loop)

    def __contains__(self, name: object) -> bool:
        return name in self._methods

    def describe(self) -> list[dict[str, Any]]:
        return [
            {
                "method": m.name,
                "doc": m.doc,
                "params": {
                    key: {"type": p.type.__name__, "required": p.default is REQUIRED}
                    for key, p in m.params.items()
                },
            }
            for m in sorted(self._methods.values(), key=lambda m: m.name)
        ]

    def check(self, name: str, params: Any) -> tuple[Method, dict[str, Any]]:
        """The method called ``name`` and its checked params, defaults filled in.

        :raises ApiError: no such method, or params it does not take (InvalidParams)."""
        method = self._methods.get(name) if isinstance(name, str) else None
        if method is None:
            raise ApiError(ApiError.METHOD_NOT_FOUND, message("api_unknown_method", method=_short(name)))
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise InvalidParams(message("api_params_not_object", method=name, got=_short(params)))
        unknown = sorted(set(params) - set(method.params))
        if unknown:
            if not method.params:
                raise InvalidParams(message("api_unknown_param_none", method=name, param=repr(unknown[0])))
            raise InvalidParams(message("api_unknown_param", method=name, param=repr(unknown[0]),
                                        allowed=", ".join(method.params)))
        checked: dict[str, Any] = {}
        for key, param in method.params.items():
            if key in params:
                checked[key] = param.check(name, key, params[key])
            elif param.default is REQUIRED:
                raise InvalidParams(message("api_missing_param", method=name, param=repr(key)))
            else:
                checked[key] = param.default
        return method, checked

    async def call(self, name: str, params: Any) -> Any:
        """Check the params and run the method here (the caller's loop), for callers inside launcherd."""
        method, checked = self.check(name, params)
        result = method.handler(checked)
        if inspect.isawaitable(result):
            result = await result
        return result


class Encoded(str):
    """A result already encoded as JSON: sent as it is."""


def encode(message: dict[str, Any]) -> bytes:
    result = message.get("result")
    if isinstance(result, Encoded):  # spliced in: a large reply costs a copy, not an encoding
        head = json.dumps({"id": message["id"]}, separators=(",", ":"), default=str)
        return f'{head[:-1]},"result":{result}}}\n'.encode()
    return (json.dumps(message, separators=(",", ":"), default=str) + "\n").encode()
