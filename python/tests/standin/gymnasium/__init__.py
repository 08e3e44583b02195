"""tests/standin/gymnasium: a minimal stand-in for the parts of Gymnasium searchgym touches (Env, spaces.Text,
register, registry, make), so the subclassing and registration path is tested where Gymnasium is not installed.

Written from Gymnasium's source, Farama-Foundation/Gymnasium at 3f0476a8cc224dcce2167cc4b6971ae0f04d5cfc:
- Env: gymnasium/core.py:25 (class), :62-65 (metadata, render_mode, spec), :72-74 (_np_random, _np_random_seed),
  :76 (step), :116-159 (reset(*, seed=None, options=None); :158-159 seeds the generator only when seed is given),
  :195 (close: no-op), :203-209 (unwrapped), :260-268 (with-statement closes). A seed's generator is a stdlib
  random.Random here instead of numpy's (gymnasium/utils/seeding.py:10 np_random); the same checks on the seed.
- spaces.Text: gymnasium/spaces/text.py:17 (class), :33-41 (__init__(max_length, *, min_length=1, charset, seed)),
  :208 (contains: a str whose length is in range and whose characters are all in the charset).
- register / registry / make: gymnasium/envs/registration.py:255 (registry: dict id -> spec), :564-638 (register(id,
  entry_point, ..., kwargs)), :489-497 (_find_spec: "module:EnvId" imports module first), :534-546
  (load_env_creator: "mod:attr"), :641 + :688-689 + :736 (make: spec kwargs updated by the call's, then
  env_creator(**kwargs)); :776 (the made env's spec).
"""
from __future__ import annotations

import importlib
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Optional, Union

from . import spaces  # noqa: F401  (gymnasium.spaces.Text)

STANDIN = True  # lets a test tell this package from the real one


class Env:
    metadata: Dict[str, Any] = {"render_modes": []}
    render_mode: Optional[str] = None
    spec: Any = None
    _np_random: Optional[random.Random] = None
    _np_random_seed: Optional[int] = None

    def step(self, action):
        raise NotImplementedError

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None):
        if seed is not None:
            if not isinstance(seed, int) or seed < 0:
                raise ValueError(f"Seed must be a python integer >= 0, got {seed!r}")
            self._np_random, self._np_random_seed = random.Random(seed), seed

    def close(self) -> None:
        pass

    @property
    def unwrapped(self) -> "Env":
        return self

    @property
    def np_random_seed(self) -> Optional[int]:
        return self._np_random_seed

    def __enter__(self):
        return self

    def __exit__(self, *args: Any) -> bool:
        self.close()
        return False


@dataclass
class EnvSpec:
    id: str
    entry_point: Union[str, Callable[..., Env], None] = None
    kwargs: Dict[str, Any] = field(default_factory=dict)


registry: Dict[str, EnvSpec] = {}


def register(id: str, entry_point: Union[str, Callable[..., Env], None] = None, kwargs: Optional[Dict[str, Any]] = None, **_: Any) -> None:
    if entry_point is None:
        raise ValueError("Either `entry_point` or `vector_entry_point` (or both) must be provided")
    registry[id] = EnvSpec(id=id, entry_point=entry_point, kwargs=dict(kwargs or {}))


def make(id: str, **kwargs: Any) -> Env:
    module, env_name = (None, id) if ":" not in id else id.split(":")
    if module is not None:
        importlib.import_module(module)
    spec = registry.get(env_name)
    if spec is None:
        raise KeyError(f"No registered env with id: {env_name}")
    creator = spec.entry_point
    if isinstance(creator, str):
        mod_name, attr = creator.split(":")
        creator = getattr(importlib.import_module(mod_name), attr)
    env = creator(**{**spec.kwargs, **kwargs})
    env.unwrapped.spec = spec
    return env
