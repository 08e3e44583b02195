"""EnvClient — src/openenv/core/env_client.py at 685de411, the async WebSocket client every OpenEnv environment client
subclasses: :88-139 (__init__: mode, convert_to_ws_url(base_url) + "/ws", timeouts, max size), :147-191 (connect:
websockets' connect(url, open_timeout, max_size); failures as ConnectionError), :193-205 (disconnect sends
{"type": "close"} then closes), :212-237 (_send / _receive with wait_for(message_timeout) / _send_and_receive: an
{"type": "error"} reply raises RuntimeError("Server error: <message> (code: <code>)")), :357-370 (the three abstract
methods), :372-419 (reset {"type": "reset", "data": kwargs}, step {"type": "step", "data": _step_payload(action)},
state {"type": "state"}), :421-457 (close, async and sync context managers), :459-484 (sync()). Left out: the
container / runtime providers (from_docker_image, from_env) and the NO_PROXY juggling for localhost (:160-189),
which change nothing against a loopback server.
"""
from __future__ import annotations

import asyncio
import json
import os
from abc import ABC, abstractmethod
from typing import Any, Dict, Generic, Optional, TypeVar

from websockets.asyncio.client import connect as ws_connect

from .client_types import StateT, StepResult
from .utils import convert_to_ws_url

ActT = TypeVar("ActT")
ObsT = TypeVar("ObsT")


class EnvClient(ABC, Generic[ActT, ObsT, StateT]):
    def __init__(self, base_url: str, connect_timeout_s: float = 10.0, message_timeout_s: float = 60.0, max_message_size_mb: float = 100.0,
                 provider: Optional[Any] = None, mode: Optional[str] = None):
        if mode is None:
            mode = os.environ.get("OPENENV_CLIENT_MODE", "simulation")
        mode = mode.lower()
        if mode not in ("simulation", "production"):
            raise ValueError(f"Invalid mode: '{mode}'. Must be 'simulation' or 'production'.")
        object.__setattr__(self, "_mode", mode)
        ws_url = convert_to_ws_url(base_url)
        self._ws_url = f"{ws_url}/ws"
        self._connect_timeout = connect_timeout_s
        self._message_timeout = message_timeout_s
        self._max_message_size = int(max_message_size_mb * 1024 * 1024)
        self._provider = provider
        self._ws = None

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "_mode" and hasattr(self, "_mode"):
            raise AttributeError("Cannot modify mode after initialization")
        super().__setattr__(name, value)

    async def connect(self) -> "EnvClient":
        if self._ws is not None:
            return self
        try:
            self._ws = await ws_connect(self._ws_url, open_timeout=self._connect_timeout, max_size=self._max_message_size)
        except Exception as e:
            raise ConnectionError(f"Failed to connect to {self._ws_url}: {e}") from e
        return self

    async def disconnect(self) -> None:
        if self._ws is not None:
            try:
                await self._send({"type": "close"})
            except Exception:
                pass
            try:
                await self._ws.close()
            except Exception:
                pass
            self._ws = None

    async def _ensure_connected(self) -> None:
        if self._ws is None:
            await self.connect()

    async def _send(self, message: Dict[str, Any]) -> None:
        await self._ensure_connected()
        assert self._ws is not None
        await self._ws.send(json.dumps(message))

    async def _receive(self) -> Dict[str, Any]:
        assert self._ws is not None
        raw = await asyncio.wait_for(self._ws.recv(), timeout=self._message_timeout)
        return json.loads(raw)

    async def _send_and_receive(self, message: Dict[str, Any]) -> Dict[str, Any]:
        await self._send(message)
        response = await self._receive()
        if response.get("type") == "error":
            error_data = response.get("data", {})
            raise RuntimeError(f"Server error: {error_data.get('message', 'Unknown error')} (code: {error_data.get('code', 'UNKNOWN')})")
        return response

    @abstractmethod
    def _step_payload(self, action: ActT) -> Dict[str, Any]:
        raise NotImplementedError

    @abstractmethod
    def _parse_result(self, payload: Dict[str, Any]) -> StepResult[ObsT]:
        raise NotImplementedError

    @abstractmethod
    def _parse_state(self, payload: Dict[str, Any]) -> StateT:
        raise NotImplementedError

    async def reset(self, **kwargs: Any) -> StepResult[ObsT]:
        message = {"type": "reset", "data": kwargs}
        response = await self._send_and_receive(message)
        return self._parse_result(response.get("data", {}))

    async def step(self, action: ActT, **kwargs: Any) -> StepResult[ObsT]:
        message = {"type": "step", "data": self._step_payload(action)}
        response = await self._send_and_receive(message)
        return self._parse_result(response.get("data", {}))

    async def state(self) -> StateT:
        message = {"type": "state"}
        response = await self._send_and_receive(message)
        return self._parse_state(response.get("data", {}))

    async def close(self) -> None:
        await self.disconnect()

    async def __aenter__(self) -> "EnvClient":
        await self.connect()
        return self

    async def __aexit__(self, exc_type, exc_val, exc_tb) -> None:
        await self.close()

    def __enter__(self) -> "EnvClient":
        raise TypeError("EnvClient is async by default. Use 'async with' instead of 'with', or call .sync() to get a synchronous wrapper")

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        pass

    def sync(self):
        from .sync_client import SyncEnvClient

        return SyncEnvClient(self)
