"""StepResult — src/openenv/core/client_types.py:1-23 at 685de411 (verbatim but for the header)."""
from dataclasses import dataclass
from typing import Generic, Optional, TypeVar

ObsT = TypeVar("ObsT")
StateT = TypeVar("StateT")


@dataclass
class StepResult(Generic[ObsT]):
    observation: ObsT
    reward: Optional[float] = None
    done: bool = False
