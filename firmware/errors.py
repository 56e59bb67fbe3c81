"""Exceptions of the launcher. Each specific error also subclasses the matching builtin."""

from __future__ import annotations

from typing import Any, Mapping

from firmware import i18n


class LauncherError(Exception):
    """Base of every error raised on purpose by this project."""


class ConfigError(LauncherError, ValueError):
    """A configuration file or value is invalid; the message says where and what is allowed."""


class HardwareError(LauncherError, RuntimeError):
    """A device could not be built or driven."""


class InUse(LauncherError, OSError):
    """Another launcherd holds the socket or the state dir, or something else sits at the socket path."""


class StateDirError(LauncherError, OSError):
    """The state dir cannot be written (read-only, full, not ours): launcherd keeps its lock and the
    motor's latch there (firmware/daemon/latch.py) and does not run without them."""


class ApiError(LauncherError):
    """An API request failed; carries a stable numeric ``code`` for clients.

    Codes follow JSON-RPC where one fits (-32700 parse error, -32600 invalid request,
    -32601 unknown method, -32602 invalid params, -32603 internal error); the application's
    own refusals use the codes below.
    """

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    REFUSED = 1  # the request is well formed but not allowed now (wrong state, wrong player, ...)
    NOT_FOUND = 2  # the thing named does not exist (no game, no such round, ...)
    UNAVAILABLE = 3  # the device or feature is not configured (no aim servo, not in sim, ...)

    def __init__(self, code: int, message: str | Mapping[str, Any], data: dict | None = None):
        # A message object ({"id": ..., params}) is rendered now, in the language of the request
        # being served, and also sent as it is (``message_object``) for clients that render it.
        self.message_object = dict(message) if i18n.is_message(message) else None
        text = i18n.render(message) if self.message_object is not None else str(message)
        super().__init__(text)
        self.code = code
        self.message = text
        # Machine-readable details beside the message (e.g. retry_after_s), sent in the same object.
        self.data = dict(data or {})

    def to_json(self) -> dict:
        extra = {} if self.message_object is None else {"message_object": self.message_object}
        return {**self.data, **extra, "code": self.code, "message": self.message}


class InvalidParams(ApiError, ValueError):
    """Parameters of a request have the wrong type, range or are missing."""

    def __init__(self, message: str | Mapping[str, Any]):
        super().__init__(ApiError.INVALID_PARAMS, message)


class Refused(ApiError, RuntimeError):
    """A well-formed request that the current state does not allow.

    ``retry_after_s``: the request will be allowed after this many seconds (the motor's rest or
    duty rule); None when waiting alone will not help.
    """

    def __init__(self, message: str | Mapping[str, Any], retry_after_s: float | None = None):
        super().__init__(ApiError.REFUSED, message,
                         None if retry_after_s is None else {"retry_after_s": retry_after_s})
        self.retry_after_s = retry_after_s

    @classmethod
    def from_event(cls, params: Mapping[str, Any]) -> "Refused":
        """The caller's error for a core's ``refused`` event: its reason (rendered in the request's
        language, and sent as ``message_object``), when to try again, and the state it was refused in."""
        error = cls(params.get("reason_object") or params["reason"], retry_after_s=params.get("retry_after_s"))
        error.data["state"] = params.get("state")
        return error


class NotFound(ApiError, LookupError):
    """The request names something that does not exist."""

    def __init__(self, message: str | Mapping[str, Any]):
        super().__init__(ApiError.NOT_FOUND, message)


class Unavailable(ApiError, RuntimeError):
    """The request needs a device or mode that is not configured."""

    def __init__(self, message: str | Mapping[str, Any]):
        super().__init__(ApiError.UNAVAILABLE, message)
