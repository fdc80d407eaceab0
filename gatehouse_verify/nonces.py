"""The nonces of grants already used, so that no grant runs a call twice.

In memory, for one server process: a grant's nonce is kept until the grant expires (then it
could not pass anyway), and no more than ``capacity`` are kept. When the store is full of
grants that have not expired, a new grant is refused rather than an old nonce forgotten:
forgetting one would let its grant be replayed.

A server that runs several processes (workers behind one address, replicas) must share this
store between them, or a grant used on one process passes on another: implement ``NonceStore``
over a shared store with an atomic insert-if-absent (Redis ``SET key 1 NX EXAT expiry``, a
database row with a unique key) and pass it to the verifier.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

DEFAULT_CAPACITY = 100_000


class NonceStore(Protocol):
    def use(self, nonce: str, expires_at: float) -> bool:
        """Record ``nonce`` as used until ``expires_at`` (epoch seconds). False: it was used
        before, or it cannot be recorded (then the call must be refused)."""
        ...


class MemoryNonceStore:
    """One process's used nonces, oldest expiry first out."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY, clock: Callable[[], float] = time.time) -> None:
        self._capacity = capacity
        self._clock = clock
        # nonce -> expiry, in the order they were used; expiries are close to that order (every
        # grant lives about as long), so purging from the front finds the expired ones.
        self._used: OrderedDict[str, float] = OrderedDict()

    def __len__(self) -> int:
        return len(self._used)

    def use(self, nonce: str, expires_at: float) -> bool:
        if nonce in self._used:
            return False
        now = self._clock()
        while self._used:
            oldest, expiry = next(iter(self._used.items()))
            if expiry > now:
                break
            del self._used[oldest]
        if len(self._used) >= self._capacity:
            # Drop any expired nonce further in before refusing.
            for used, expiry in list(self._used.items()):
                if expiry <= now:
                    del self._used[used]
            if len(self._used) >= self._capacity:
                return False
        self._used[nonce] = expires_at
        return True
