"""What a process keeps in memory per notebook, least recently used first out. Not functools.lru_cache or
cachetools: they weigh a value once, when it is put, and a kept value grows."""

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, ItemsView, ValuesView
from typing import Generic, TypeVar

from django.db import connection

from notebooks.models import Notebook

V = TypeVar("V")


def notebook_key(notebook: Notebook) -> tuple[str, str, int]:
    """A notebook as this process keeps it: its database (alias and name, for the tests' databases) and its pk."""
    return (connection.alias, str(connection.settings_dict.get("NAME")), notebook.pk)


class LRU(Generic[V]):
    """At most `most()` values weighing at most `heaviest()` in all (read on each keep), the newest however heavy."""

    def __init__(
        self,
        *,
        most: Callable[[], int] = lambda: sys.maxsize,
        weigh: Callable[[V], int] = lambda _value: 0,
        heaviest: Callable[[], int] = lambda: 0,
    ) -> None:
        self._kept: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()
        self._most, self._weigh, self._heaviest = most, weigh, heaviest

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            value = self._kept.get(key)
            if value is not None:
                self._kept.move_to_end(key)
        return value

    def keep(self, key: Hashable, make: Callable[[V | None], V]) -> V:
        """Keep `make(the value kept now, or None)`, as the most recently used, in one step."""
        with self._lock:
            kept, weigh = self._kept, self._weigh
            value = kept[key] = make(kept.get(key))
            kept.move_to_end(key)
            most, heaviest, weight = self._most(), self._heaviest(), sum(map(weigh, kept.values()))
            while len(kept) > 1 and (len(kept) > most or weight > heaviest):  # the oldest dropped first
                _, dropped = kept.popitem(last=False)
                weight -= weigh(dropped)
        return value

    def drop(self, wanted: Callable[[Hashable], bool]) -> None:
        with self._lock:
            for key in [k for k in self._kept if wanted(k)]:
                del self._kept[key]

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    def values(self) -> ValuesView[V]:
        with self._lock:
            return OrderedDict(self._kept).values()

    def items(self) -> ItemsView[Hashable, V]:
        with self._lock:
            return OrderedDict(self._kept).items()
