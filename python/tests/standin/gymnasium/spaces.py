"""tests/standin/gymnasium/spaces: the stand-in's Text space (gymnasium/spaces/text.py:17, :33-41, :208 at 3f0476a8c)."""
from __future__ import annotations

import string
from typing import Any, FrozenSet, Union


class Space:
    pass


class Text(Space):
    def __init__(self, max_length: int, *, min_length: int = 1, charset: Union[FrozenSet[str], str] = string.ascii_letters + string.digits, seed: Any = None):
        if min_length < 0 or max_length < min_length:
            raise ValueError(f"bad lengths: min_length {min_length}, max_length {max_length}")
        self.min_length, self.max_length = min_length, max_length
        self.character_set = frozenset(charset)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length and all(c in self.character_set for c in x)
