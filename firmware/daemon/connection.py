"""One API connection on the API server's loop (firmware/daemon/api.py), and a request of it on its
way to the handlers' loop (:class:`Handlers`) and back.

A connection's lines are answered in the order they came as far as their answers are known at once:
an error found while reading, a refusal, a method whose handler finishes in its first step. A
method still running after its first step answers whenever it finishes; the lines after it do not
wait for it. Replies and events wait in a bounded queue for the client to read them: a client
that stops reading is dropped, never waited for.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import deque
from typing import TYPE_CHECKING, Any

from firmware import i18n
from firmware.daemon.crossing import plain, post

if TYPE_CHECKING:
    from firmware.daemon.registry import Method

log = logging.getLogger("launcherd.api")

# Replies and events waiting for a slow reader; past this the client is dropped, not waited for.
MAX_QUEUED = 512


class Turn:
    """A line's place among its connection's replies: what is answered at once (an error found while
    reading, a method that finishes in its first step) goes out in the order the lines came."""

    __slots__ = ("line", "over")

    def __init__(self) -> None:
        self.line: bytes | None = None
        self.over = False


class Client:
    """One connection, on the API's loop: its lines' turns, and a queue of outgoing lines drained by
    its own writer task."""

    def __init__(self, writer: asyncio.StreamWriter, number: int):
        self.writer = writer
        self.number = number
        self.subscribed = False
        self.uid = -1  # the peer's, by SO_PEERCRED (-1: unknown)
        self.game = False  # the registered game process's connection (firmware/daemon/gameport.py)
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(MAX_QUEUED)
        self.closed = False
        self.requests: set[asyncio.Future] = set()  # the answers its running requests owe
        self.drainer: asyncio.Future | None = None
        self._turns: deque[Turn] = deque()
        self._turns_waiters: list[asyncio.Future] = []

    def send_line(self, line: bytes) -> bool:
        """Queue an encoded line; False (and the client is dropped) when it has stopped reading."""
        if self.closed:
            return False
        try:
            self.queue.put_nowait(line)
        except asyncio.QueueFull:
            log.warning("client %d is not reading; dropping it", self.number)
            self.drop()
            return False
        return True

    def running(self) -> int:
        """Requests of this connection not answered yet."""
        return sum(not answer.done() for answer in self.requests)

    def take_turn(self) -> Turn:
        """The next line's turn (lines take theirs in the order they are read)."""
        turn = Turn()
        self._turns.append(turn)
        return turn

    def answer_in_turn(self, turn: Turn, line: bytes | None) -> None:
        """``line`` (encoded) as ``turn``'s answer: sent once every line read before has had its own.
        None: the method is still running; its reply is sent whenever it comes (again here)."""
        if turn.over:
            if line is not None:
                self.send_line(line)
            return
        turn.line, turn.over = line, True
        while self._turns and self._turns[0].over:
            head = self._turns.popleft()
            if head.line is not None:
                self.send_line(head.line)
        if not self._turns:
            for waiter in self._turns_waiters:
                if not waiter.done():
                    waiter.set_result(None)
            self._turns_waiters.clear()

    def send_in_turn(self, line: bytes) -> None:
        """Answer the line just read with ``line`` (encoded), in turn."""
        self.answer_in_turn(self.take_turn(), line)

    async def turns_over(self) -> None:
        """Until every line read so far has had its answer at once (or started running)."""
        while self._turns:
            waiter = asyncio.get_running_loop().create_future()
            self._turns_waiters.append(waiter)
            await waiter

    def end(self) -> None:
        """Close the connection once everything queued before this call has been written."""
        try:
            self.queue.put_nowait(None)
        except asyncio.QueueFull:
            self.drop()

    def drop(self) -> None:
        if not self.closed:
            self.closed = True
            self.writer.transport.abort()

    async def drain_forever(self) -> None:
        try:
            while (line := await self.queue.get()) is not None:
                self.writer.write(line)
                await self.writer.drain()
        except (ConnectionError, OSError):
            self.drop()


class Call:
    """One request crossing from the API's loop to the handlers' and back."""

    __slots__ = ("client", "turn", "request_id", "method", "params", "lang", "answer", "task")

    def __init__(self, client: Client, turn: Turn, request_id: Any, method: "Method",
                 params: dict[str, Any], lang: str | None, answer: asyncio.Future):
        self.client, self.turn, self.request_id = client, turn, request_id
        self.method, self.params, self.lang = method, params, lang
        self.answer = answer  # on the API's loop
        self.task: asyncio.Future | None = None  # a handler's coroutine, on the handlers' loop

    # ---- on the API's loop ---------------------------------------------------------------------

    def running(self) -> None:
        """Its handler runs on after its first step: the lines after it need not wait for its reply."""
        self.client.answer_in_turn(self.turn, None)

    def settle(self, result: Any, error: BaseException | None, cancelled: bool = False) -> None:
        """The handler's outcome, for the request's answer."""
        if self.answer.done():
            return  # answered meanwhile: launcherd is stopping
        if cancelled:
            self.answer.cancel()
        elif error is not None:
            self.answer.set_exception(error)
        else:
            self.answer.set_result(result)


class Handlers:
    """The handlers' side of the API: runs each call's handler on the loop that started the server
    (launcherd's motor loop) and posts its outcome back to the API's loop, as a plain copy."""

    def __init__(self, loop: asyncio.AbstractEventLoop, api_loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self._api_loop = api_loop
        self._running: set[Call] = set()  # calls whose handler's coroutine has not finished
        self._closing = False

    def begin(self, call: Call) -> None:
        """Run the handler; a result at once goes back now, a coroutine's after its first step."""
        if self._closing:
            post(self._api_loop, call.settle, None, None, True)  # read before launcherd stopped: not run
            return
        with i18n.speaking(call.lang):
            try:
                result = call.method.handler(call.params)
                if inspect.isawaitable(result):
                    call.task = asyncio.ensure_future(result)  # in this context: in the request's language
            except Exception as exc:
                post(self._api_loop, call.settle, None, exc)
                return
        if call.task is None:
            post(self._api_loop, call.settle, plain(result), None)
            return
        self._running.add(call)
        self.loop.call_soon(self._first_step_over, call)

    def _first_step_over(self, call: Call) -> None:
        if call.task.done():
            self._finished(call)
        else:
            post(self._api_loop, call.running)
            call.task.add_done_callback(lambda _: self._finished(call))

    def _finished(self, call: Call) -> None:
        self._running.discard(call)
        if call.task.cancelled():
            post(self._api_loop, call.settle, None, None, True)
            return
        error = call.task.exception()
        post(self._api_loop, call.settle, None if error else plain(call.task.result()), error)

    @staticmethod
    def cancel(call: Call) -> None:
        if call.task is not None:
            call.task.cancel()

    def close(self) -> None:
        """launcherd stops: every running handler is cancelled now, before what it waits for could
        let it finish, and its caller hears that launcherd stopped."""
        self._closing = True
        for call in list(self._running):
            call.task.cancel()


__all__ = ["Call", "Client", "Handlers", "MAX_QUEUED", "Turn"]
