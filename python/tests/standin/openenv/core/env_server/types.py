"""Action, Observation, State — src/openenv/core/env_server/types.py at 685de411: Action :54-69 (extra="forbid",
metadata dict), Observation :72-91 (extra="forbid"; done False, reward None, metadata dict), State :178-197
(extra="allow"; episode_id None, step_count 0). The real ones are pydantic models; pydantic is not installed where
this stand-in runs, so BaseModel below does what these use of it: fields from the class annotations (through the
MRO) with their defaults, Field(default_factory=...), unknown fields refused unless extra="allow", model_dump
(exclude=..., exclude_none=...), model_validate, model_fields.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Union


class _FieldInfo:
    def __init__(self, default: Any = None, default_factory: Any = None, description: str = "", **_: Any):
        self.default = default
        self.default_factory = default_factory


def Field(default: Any = None, *, default_factory: Any = None, description: str = "", **kw: Any) -> Any:
    return _FieldInfo(default, default_factory, description, **kw)


def ConfigDict(**kw: Any) -> Dict[str, Any]:
    return dict(kw)


class _Meta(type):
    @property
    def model_fields(cls) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            for name in klass.__dict__.get("__annotations__", {}):
                if not name.startswith("_") and name != "model_config":
                    out[name] = klass.__dict__.get(name, out.get(name))
        return out


class BaseModel(metaclass=_Meta):
    model_config: Dict[str, Any] = {}

    def __init__(self, **data: Any):
        fields = type(self).model_fields
        if type(self).model_config.get("extra") != "allow":
            unknown = [k for k in data if k not in fields]
            if unknown:
                raise ValueError(f"{type(self).__name__}: Extra inputs are not permitted: {unknown[0]!r}")
        for name, default in fields.items():
            if name in data:
                value = data[name]
            elif isinstance(default, _FieldInfo):
                value = default.default_factory() if default.default_factory else default.default
            else:
                value = default
            object.__setattr__(self, name, value)
        for k, v in data.items():
            if k not in fields:
                object.__setattr__(self, k, v)

    def model_dump(self, exclude: Any = None, exclude_none: bool = False, **_: Any) -> Dict[str, Any]:
        out = {k: v for k, v in vars(self).items() if not (exclude and k in exclude)}
        return {k: v for k, v in out.items() if v is not None} if exclude_none else out

    @classmethod
    def model_validate(cls, data: Dict[str, Any]) -> "BaseModel":
        return cls(**data)

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)


class Action(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, arbitrary_types_allowed=True)
    metadata: Dict[str, Any] = Field(default_factory=dict, description="Additional metadata for the action")


class Observation(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, arbitrary_types_allowed=True)
    done: bool = Field(default=False, description="Whether the episode has terminated")
    reward: Union[bool, int, float, None] = Field(default=None, description="Reward signal from the last action")
    metadata: Dict[str, Any] = Field(default_factory=dict, description="Additional metadata for the observation")


class State(BaseModel):
    model_config = ConfigDict(extra="allow", validate_assignment=True, arbitrary_types_allowed=True)
    episode_id: Optional[str] = Field(default=None, description="Unique identifier for the current episode")
    step_count: int = Field(default=0, ge=0, description="Number of steps taken in the current episode")
