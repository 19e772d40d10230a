"""Per-client token buckets: how much a client may still ask for, refilled at a steady rate.

    b = Buckets(per_minute=240, burst=60)
    b.wait(client, need=1)      seconds until the client's bucket holds `need` (0: now)
    b.charge(client, amount)    take `amount` (a request: 1; CPU seconds spent), may go below 0

A bucket holds at most `burst` and refills `per_minute` a minute; a client starts full. A
request costs one from the requests' bucket when it is let in. The CPU seconds' bucket
cannot know a request's cost before: a request is let in while it holds anything, and
charged once done, so one costly request is let in and the client then waits off the debt.
One table per server process, bounded: the least recently seen clients are dropped
(they come back full, as a new client would). The server holds no other state per client.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

MAX_CLIENTS = 10_000


class Buckets:
    def __init__(self, per_minute: float, burst: float, max_clients: int = MAX_CLIENTS, clock=time.monotonic):
        if per_minute <= 0 or burst <= 0:
            raise ValueError(f"a bucket needs a rate and a size above 0, got {per_minute}, {burst}")
        self.rate, self.burst, self.max_clients, self.clock = per_minute / 60.0, float(burst), max_clients, clock
        self._level: OrderedDict[str, tuple[float, float]] = OrderedDict()  # client -> (level, when)
        self._lock = threading.Lock()

    def _now_level(self, client: str, now: float) -> float:
        level, when = self._level.get(client, (self.burst, now))
        return min(self.burst, level + (now - when) * self.rate)

    def wait(self, client: str, need: float = 1.0) -> float:
        """Seconds until `client`'s bucket holds `need` (0 when it does now)."""
        with self._lock:
            level = self._now_level(client, self.clock())
        return 0.0 if level >= need else (need - level) / self.rate

    def charge(self, client: str, amount: float) -> None:
        with self._lock:
            now = self.clock()
            self._level[client] = (self._now_level(client, now) - amount, now)
            self._level.move_to_end(client)
            while len(self._level) > self.max_clients:
                self._level.popitem(last=False)

    def __len__(self) -> int:
        return len(self._level)
