"""tests/standin/verifiers/types: message classes with the attribute names of verifiers/legacy/types.py's pydantic
models (role, content, tool_calls with id / name / arguments, tool_call_id)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str


@dataclass
class AssistantMessage:
    content: Optional[str] = None
    tool_calls: Optional[List[ToolCall]] = None
    role: str = "assistant"


@dataclass
class ToolMessage:
    role: str
    content: str
    tool_call_id: str


@dataclass
class UserMessage:
    content: str
    role: str = "user"


@dataclass
class SystemMessage:
    content: str
    role: str = "system"
