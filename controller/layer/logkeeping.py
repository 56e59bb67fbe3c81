"""The game log's health, for the game layer's service: the store for reading or for an action,
refused with what happened when the log is damaged, unwritable or deleted under the daemon
(``controller.log.damage``), and ``game/repair``.

A log that could not be opened for a passing reason (a full disk, an error that says nothing of
the file) is opened again by the next request that reads or writes it, and by ``game/status``:
the state ends when its cause does. A repair moves a log aside only when opening it again finds
the file itself damaged (#36).
"""

from __future__ import annotations

import logging
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Iterator

from firmware.errors import Refused

from controller.log import damage
from controller.log.damage import Damage, GameUnavailable
from controller.log.store import FILENAME, Store
from controller.text import advice, wording

log = logging.getLogger("launcherd.game")


class LogKeeping:
    """Part of :class:`~controller.layer.service.GameService`: its log (``store``) and what is wrong
    with it (``damage``)."""

    @property
    def log_path(self) -> Any:
        return self.daemon.state_dir / FILENAME

    # ---- the log's health ----------------------------------------------------------------

    def _broken(self, found: Damage) -> GameUnavailable:
        """Record the damage (the launcher goes on) and the error that refuses the request."""
        if self.damage is not None and found.kind == self.damage.kind and found.kind in damage.PASSING:
            found = self.damage  # the same passing state, tried again: said once, since it began
        if found != self.damage:
            log.error("game: %s", wording.daemon_text(found.message))
            self.publish_message(found.message)
        self.damage = found
        return GameUnavailable(found)

    def retry_open(self) -> None:
        """A log that could not be opened for a passing reason (a full disk) is tried again now;
        not in the middle of a catching up, which took the outcomes to take from the closed log's
        position: what it could not take is taken from the open log's at the next request."""
        if (self.store is not None or self.damage is None or self.damage.kind not in damage.PASSING
                or self._catching_up):
            return
        found = self._open_store()
        if found is not None:
            self._broken(found)
            return
        log.warning("game: the game log %s is open again", self.log_path)
        self.damage = None
        self.resume()
        # What the launcher recorded while the log was closed, this very outcome included when one
        # is being taken in: from the record, in order, now that there is a table.
        self.catch_up()
        self.tell_press_meaning()

    def _readable(self) -> Store:
        """The store, for reading: refused only when the file itself cannot be trusted."""
        self.retry_open()
        if self.store is None or (self.damage is not None and self.damage.kind == damage.DAMAGED):
            raise GameUnavailable(self.damage or damage.damaged(self.log_path, "not open"))
        return self.store

    def _writable(self) -> Store:
        """The store, for an action: refused while damaged, unwritable, or deleted under the daemon."""
        store = self._readable()
        if self.damage is not None and self.damage.kind not in (damage.UNREPLAYABLE, damage.UNWRITABLE):
            raise GameUnavailable(self.damage)
        # Checked before every write: a log deleted with its directory still takes writes (the open
        # file lives on), and an action acknowledged there would be lost at the next start.
        if not store.in_place():
            raise self._broken(damage.gone(store.path))
        return store

    @contextmanager
    def _reading(self) -> Iterator[Store]:
        store = self._readable()
        try:
            yield store
        except sqlite3.DatabaseError as exc:
            raise self._broken(damage.damaged(store.path, str(exc))) from None

    @contextmanager
    def _writing(self) -> Iterator[Store]:
        """A failed write is refused like any action: the live state is unchanged."""
        store = self._writable()
        try:
            yield store
        except sqlite3.Error as exc:
            found = damage.on_write(store.path, exc)
            if found is None:  # a passing trouble (a full disk): said at once, logged once, retried
                found = self.damage if self._unwritable() else damage.unwritable(
                    store.path, str(exc), datetime.now(timezone.utc))
            raise self._broken(found) from None
        if self._unwritable():
            log.warning("game: the log is written again")
            self.damage = None

    def _unwritable(self) -> bool:
        return self.damage is not None and self.damage.kind == damage.UNWRITABLE

    def repair(self) -> dict[str, Any]:
        """``game/repair``: what the damage calls for, done now that the table asks. The log is
        opened again first: it is moved aside only when that finds the file itself damaged (or
        a match in it that cannot be replayed, as the damage said); a full disk moves nothing."""
        found = self.damage
        if found is None:
            raise Refused(advice.nothing_to_repair(self.log_path))
        if found.kind == damage.GONE:
            return self._write_back()
        if found.kind == damage.UNWRITABLE and self.store is not None:
            return self._written_again()
        if self.store is not None:
            self.store.close()
        self.store, self.table, self.match_id = None, None, None
        moved = None
        if found.kind == damage.UNREPLAYABLE:
            moved = damage.move_aside(self.log_path)
        now = self._open_store()
        if now is not None and now.kind == damage.DAMAGED and moved is None:
            moved = damage.move_aside(self.log_path)  # checked again: no sound game log
            now = self._open_store()
        if now is not None:
            raise self._broken(now)
        self.damage = None
        self.resume()
        if self.damage is not None:
            raise GameUnavailable(self.damage)
        said = [advice.moved_aside(moved) if moved else advice.kept_sound(self.log_path)
                if found.kind in (damage.DAMAGED, damage.UNOPENED) else advice.writable_again()]
        return self._repaired(found, moved, said)

    def _written_again(self) -> dict[str, Any]:
        """A log that could not be written (a full disk): a write is tried now; nothing is moved."""
        found = self.damage
        with self._writing() as store:  # refused as before while the disk is still full
            store.note_outcome(self._outcome_seq)  # what the log holds already: only a write
        return self._repaired(found, None, [advice.writable_again()])

    def _repaired(self, found: Damage, moved: Any, said: list[dict[str, Any]]) -> dict[str, Any]:
        if self._unlogged is not None:
            self.catch_up()  # the launches the log could not take, now that it can
        self.tell_press_meaning()
        if self.table is not None:
            said.append(advice.goes_on(self.match_id))
        log.warning("game: repaired: %s", "; ".join(map(wording.daemon_text, said)))
        return {"repaired": found.kind, "moved_to": None if moved is None else str(moved), **wording.reply_messages(said)}

    def _write_back(self) -> dict[str, Any]:
        path = self.store.path
        moved = None
        if path.exists():  # something new was put there: keep it, under another name
            moved = damage.move_aside(path)
        try:
            self.store.write_back()
        except (OSError, sqlite3.Error) as exc:
            raise self._broken(damage.on_open(path, exc)) from None
        self.damage = None
        said = [advice.written_back(path)]
        if moved is not None:
            said.append(advice.found_moved_aside(moved))
        log.warning("game: repaired: %s", "; ".join(map(wording.daemon_text, said)))
        return {"repaired": damage.GONE, "moved_to": None if moved is None else str(moved),
                **wording.reply_messages(said)}

    def open(self) -> None:
        """Open the log and resume its match; a failure is recorded, never raised: the launcher runs."""
        found = self._open_store()
        if found is not None:
            self._broken(found)
            return
        self.resume()

    def _open_store(self) -> Damage | None:
        """Open the log as ``store``, with the outcome it took in last; else what keeps it from opening."""
        try:
            store = Store.in_dir(self.daemon.state_dir)
        except (sqlite3.Error, OSError) as exc:
            return damage.on_open(self.log_path, exc)
        try:
            self._outcome_seq, self._outcome_record = store.outcome_seq(), store.outcome_record()
        except sqlite3.Error as exc:
            store.close()
            return damage.on_open(self.log_path, exc)
        self.store = store
        return None

