"""SyncEnvClient — src/openenv/core/sync_client.py at 685de411: :57-66 (__init__), :68-104 (one dedicated event loop
thread, started on first use), :106-113 (_run: run_coroutine_threadsafe(...).result()), :115-128 (_stop_loop),
:137-193 (connect / disconnect / reset / step / state / close delegate to the async client), :195-205 (context
manager: connect on enter, close on exit), :219-238 (__getattr__ wraps the async client's other coroutines).
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import threading
from typing import Any, Dict


class SyncEnvClient:
    def __init__(self, async_client: Any):
        self._async = async_client
        self._loop = None
        self._loop_thread = None
        self._loop_ready = threading.Event()
        self._loop_init_lock = threading.Lock()
        self._async_wrapper_cache: Dict[str, Any] = {}

    def _run_loop_forever(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        self._loop_ready.set()
        loop.run_forever()
        loop.close()

    def _ensure_loop(self):
        if self._loop is not None and self._loop_thread and self._loop_thread.is_alive():
            return self._loop
        with self._loop_init_lock:
            if self._loop is not None and self._loop_thread and self._loop_thread.is_alive():
                return self._loop
            self._loop_ready.clear()
            self._loop_thread = threading.Thread(target=self._run_loop_forever, name="openenv-sync-client-loop", daemon=True)
            self._loop_thread.start()
            if not self._loop_ready.wait(timeout=5):
                raise RuntimeError("Timed out starting sync client event loop")
            return self._loop

    def _run(self, coro: Any) -> Any:
        loop = self._ensure_loop()
        future: concurrent.futures.Future = asyncio.run_coroutine_threadsafe(coro, loop)
        return future.result()

    def _stop_loop(self) -> None:
        loop = self._loop
        thread = self._loop_thread
        if loop is None:
            return
        if loop.is_running():
            loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout=5)
        self._loop = None
        self._loop_thread = None

    @property
    def async_client(self):
        return self._async

    def connect(self):
        self._run(self._async.connect())
        return self

    def disconnect(self) -> None:
        self._run(self._async.disconnect())

    def reset(self, **kwargs: Any):
        return self._run(self._async.reset(**kwargs))

    def step(self, action: Any, **kwargs: Any):
        return self._run(self._async.step(action, **kwargs))

    def state(self):
        return self._run(self._async.state())

    def close(self) -> None:
        try:
            self._run(self._async.close())
        finally:
            self._stop_loop()

    def __enter__(self):
        self.connect()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self._stop_loop()
        except Exception:
            pass

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._async, name)
        if inspect.iscoroutinefunction(attr):
            cached = self._async_wrapper_cache.get(name)
            if cached is not None:
                return cached

            def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
                method = getattr(self._async, name)
                return self._run(method(*args, **kwargs))

            self._async_wrapper_cache[name] = sync_wrapper
            return sync_wrapper
        return attr
