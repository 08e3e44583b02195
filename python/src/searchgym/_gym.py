"""searchgym._gym: Gymnasium when it is installed, a minimal stand-in base class when it is not.

Owns the one optional import of gymnasium: the Env base class, the Text spaces, and registering SearchGym-v0.
Nothing else in the package imports gymnasium.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

try:
    import gymnasium as _gymnasium
except ImportError:  # usable without Gymnasium: the same reset/step/close surface, no spaces, no registry
    _gymnasium = None

HAVE_GYMNASIUM = _gymnasium is not None
ENV_ID = "SearchGym-v0"
# Longest text a space admits: the gym server's default --max-action-chars (gym/server.ts, maxActionChars).
MAX_TEXT_CHARS = 200_000

if _gymnasium is not None:
    Env = _gymnasium.Env
else:

    class Env:  # type: ignore[no-redef]
        """What SearchGymEnv uses of gymnasium.Env (gymnasium/core.py: metadata, render_mode, spec, close,
        unwrapped, the with-statement) when Gymnasium is not installed."""

        metadata: Dict[str, Any] = {"render_modes": []}
        render_mode: Optional[str] = None
        spec: Any = None

        def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None):
            return None

        def close(self) -> None:
            pass

        @property
        def unwrapped(self) -> "Env":
            return self

        def __enter__(self):
            return self

        def __exit__(self, *args: Any) -> bool:
            self.close()
            return False


_SPACES: Dict[int, Any] = {}


def text_space(max_length: int = MAX_TEXT_CHARS) -> Any:
    """A gymnasium Text space over every Basic Multilingual Plane character (None without Gymnasium); one instance per
    length, shared by every env (building the charset's index costs tens of milliseconds)."""
    if _gymnasium is None:
        return None
    if max_length not in _SPACES:
        charset = frozenset(chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF)
        _SPACES[max_length] = _gymnasium.spaces.Text(max_length=max_length, min_length=0, charset=charset)
    return _SPACES[max_length]


def register() -> bool:
    """Register SearchGym-v0 (entry point searchgym.env:SearchGymEnv) with Gymnasium; False without it."""
    if _gymnasium is None:
        return False
    if ENV_ID not in _gymnasium.registry:
        _gymnasium.register(id=ENV_ID, entry_point="searchgym.env:SearchGymEnv")
    return True
