"""tests/standin/websockets/asyncio/client: connect() and ClientConnection.send / recv / close (see the package's
__init__); a refused handshake or a closed connection raises as the real one's InvalidStatus / ConnectionClosed do
(an exception; OpenEnv's EnvClient wraps the first in ConnectionError)."""
from __future__ import annotations

import asyncio
from typing import Any

from searchgym._ws import WebSocket


class ClientConnection:
    def __init__(self, ws: WebSocket):
        self._ws = ws

    async def _io(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    async def send(self, message: str) -> None:
        await self._io(self._ws.send_text, message)

    async def recv(self) -> str:
        return await self._io(self._ws.recv)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        await self._io(self._ws.close, code, reason)


async def connect(uri: str, *, open_timeout: float = 10.0, max_size: int = 2**20, **_: Any) -> ClientConnection:
    ws = await asyncio.get_running_loop().run_in_executor(None, lambda: WebSocket.connect(uri, timeout=open_timeout, max_size=max_size))
    ws.settimeout(None)  # the real connection has no read deadline of its own; EnvClient's wait_for bounds a reply
    return ClientConnection(ws)
