"""tests/standin/datasets: the stand-in's Dataset — what verifiers' Environment uses of Hugging Face datasets
(Dataset.from_list, column_names, map returning new columns, len, row and column access)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List


class Dataset:
    def __init__(self, rows: List[Dict[str, Any]]):
        self._rows = [dict(r) for r in rows]

    @classmethod
    def from_list(cls, rows: List[Dict[str, Any]]) -> "Dataset":
        return cls(rows)

    @property
    def column_names(self) -> List[str]:
        return list(self._rows[0]) if self._rows else []

    def map(self, fn: Callable[[Dict[str, Any]], Dict[str, Any]], **_: Any) -> "Dataset":
        return Dataset([{**r, **fn(r)} for r in self._rows])

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return [r[key] for r in self._rows]
        return dict(self._rows[key])
