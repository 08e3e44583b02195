"""searchgym.client: a standard-library HTTP client for a `searchgym gym serve` server — the env API, /v1/qa,
/v1/search, /v1/access and the outside engines' /retrieve and /access, with the token, timeouts and retries.

Bounded on every side: a redirect is never followed (the token would go wherever it points: BadReplyError), `timeout`
is a wall-clock deadline for one whole answer (a server that sends a byte a second is cut off at it), a reply over
`max_reply_bytes` is refused as it arrives, and every route's answer is checked for its shape (a 200 with `[]`, `{}`
or `null` is a BadReplyError, never a TypeError or KeyError). Knows the wire format only; episodes (Gymnasium
semantics) are searchgym.env's. Thread-safe: one client may serve many threads (each request opens its own connection).
"""
from __future__ import annotations

import email.utils
import http.client
import json
import math
import os
import random
import socket
import threading
import time
import urllib.parse
from typing import Any, Dict, List, Optional, Sequence, Union

from .errors import ApiError, BadReplyError, SearchGymError, TransportError, api_error_for

DEFAULT_URL = "http://127.0.0.1:8000"
Json = Dict[str, Any]
# 429 (env.limit) and 503 (a search engine or worker down) may pass; every other status is the caller's to fix.
RETRY_STATUSES = frozenset({429, 503})
# The largest answer read (a /retrieve of many queries with whole pages stays far below it).
DEFAULT_MAX_REPLY_BYTES = 64 * 1024 * 1024
# The longest wait a Retry-After may ask for.
MAX_RETRY_WAIT_S = 30.0


class _Deadline(Exception):
    """The request's wall-clock deadline passed (raised inside the read; turned into a TransportError)."""


class SearchGymClient:
    """Calls one gym server.

    url: the server (default $SEARCHGYM_URL, else http://127.0.0.1:8000); a path prefix such as /t/TOKEN is kept.
    token: sent as `Authorization: Bearer TOKEN` (default $SEARCHGYM_TOKEN; empty: none, as `gym serve` without --token).
    timeout: seconds for one whole answer (connect, headers and body; a wall-clock deadline per attempt, not per socket
    read). retries: extra attempts after a 429/503 (and, for requests that change nothing, after a connection error or
    timeout), waiting backoff * 2**attempt seconds (with jitter), or the server's Retry-After when it is a number of
    seconds or a date (at most 30 s; a negative or non-number one is ignored). max_reply_bytes: the largest answer read.
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, *, timeout: float = 30.0, retries: int = 4, backoff: float = 0.25,
                 max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES):
        self.url = (url or os.environ.get("SEARCHGYM_URL") or DEFAULT_URL).rstrip("/")
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SearchGymError(f"searchgym: the server URL must start with http:// or https:// and name a host, got {self.url!r}", code="client.bad_url")
        self._parts = parts
        self.token = os.environ.get("SEARCHGYM_TOKEN", "") if token is None else token
        if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0) or retries < 0 or not (backoff >= 0 and math.isfinite(backoff)):
            raise SearchGymError("searchgym: timeout must be a finite number > 0, retries and backoff >= 0", code="client.bad_option")
        if not (isinstance(max_reply_bytes, int) and max_reply_bytes >= 1024):
            raise SearchGymError("searchgym: max_reply_bytes must be an integer >= 1024", code="client.bad_option")
        self.timeout = float(timeout)
        self.retries = retries
        self.backoff = backoff
        self.max_reply_bytes = max_reply_bytes

    # -- the env API ---------------------------------------------------------------------------------------------
    def health(self) -> Json:
        return _object(self.request("GET", "/health"), "GET /health", ("status",))

    def list_qa(self, split: Optional[str] = None, offset: int = 0, limit: int = 100) -> Json:
        """{total, offset, items: [{id, type, hops, split, question}]} (no answers)."""
        q: Json = {"offset": offset, "limit": limit}
        if split is not None:
            q["split"] = split
        r = _object(self.request("GET", "/v1/qa?" + urllib.parse.urlencode(q)), "GET /v1/qa", ("total", "items"))
        _list(r["items"], "GET /v1/qa", "items")
        return r

    def create_env(self, qa_id: Optional[str] = None, *, split: Optional[str] = None, index: Optional[int] = None, options: Optional[Json] = None) -> Json:
        """A new env for one question (by id, or split + index): {envId, qa: {id, type, hops, split, question}, observation, tools}."""
        body: Json = {"qaId": qa_id} if qa_id is not None else {"split": split, "index": index}
        if options:
            body["options"] = options
        # Not retried after a connection error: the env may exist already (it expires when idle).
        r = _object(self.request("POST", "/v1/envs", body, idempotent=False), "POST /v1/envs", ("envId", "observation"))
        if not isinstance(r["envId"], str):
            raise _bad_reply("POST /v1/envs", "envId is not a string")
        _list(r["observation"], "POST /v1/envs", "observation")
        return r

    def step(self, env_id: str, action: Union[str, Json]) -> Json:
        """One assistant turn (raw text, or {text, tool_calls?, numTokens?}) → {observation, reward, terminated, truncated, stopReason?, metrics, logs}."""
        r = _object(self.request("POST", f"/v1/envs/{urllib.parse.quote(env_id, safe='')}/step", {"action": action}, idempotent=False),
                    "POST /v1/envs/ID/step", ("observation", "reward", "terminated", "truncated"))
        _list(r["observation"], "POST /v1/envs/ID/step", "observation")
        return r

    def close_env(self, env_id: str) -> Json:
        """{closed: true, stats}; NotFoundError when no such env is open."""
        return _object(self.request("DELETE", f"/v1/envs/{urllib.parse.quote(env_id, safe='')}"), "DELETE /v1/envs/ID", ("closed",))

    # -- stateless tools -----------------------------------------------------------------------------------------
    def search(self, query: str, k: Optional[int] = None) -> List[Json]:
        """[{title, url, snippet, score?}] — the env's search tool without an env."""
        body: Json = {"query": query}
        if k is not None:
            body["k"] = k
        return _list(_object(self.request("POST", "/v1/search", body), "POST /v1/search", ("results",))["results"], "POST /v1/search", "results")

    def access(self, url: str) -> Json:
        """{title, url, text}; NotFoundError for an unknown page."""
        page = _object(self.request("POST", "/v1/access", {"url": url}), "POST /v1/access", ("page",))["page"]
        if not isinstance(page, dict):
            raise _bad_reply("POST /v1/access", "page is not an object")
        return page

    def retrieve(self, queries: Sequence[str], topk: Optional[int] = None, return_scores: bool = False) -> List[Any]:
        """Search-R1 / verl / ASearcher /retrieve: one list of hits per query (shapes: gym/README.md, HTTP server)."""
        body: Json = {"queries": list(queries), "return_scores": return_scores}
        if topk is not None:
            body["topk"] = topk
        return _list(_object(self.request("POST", "/retrieve", body), "POST /retrieve", ("result",))["result"], "POST /retrieve", "result")

    def access_many(self, urls: Sequence[str]) -> List[Optional[Json]]:
        """ASearcher's /access: one page (or None for an unknown url) per url, in order."""
        return _list(_object(self.request("POST", "/access", {"urls": list(urls)}), "POST /access", ("result",))["result"], "POST /access", "result")

    # -- the one request path ------------------------------------------------------------------------------------
    def request(self, method: str, path: str, body: Optional[Json] = None, *, idempotent: bool = True) -> Any:
        """Send one request; retry 429/503 (and, when idempotent, transport failures); raise a typed error otherwise.
        Returns the parsed JSON of a 2xx answer (None for an empty one)."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        what = f"{method} {path.split('?')[0]}"
        attempt = 0
        while True:
            try:
                status, reason, res_headers, raw = self._exchange(method, path, data, headers)
            except (OSError, http.client.HTTPException, _Deadline) as e:  # refused, reset, a cut-off answer, the deadline
                if idempotent and attempt < self.retries:
                    self._sleep(attempt, None)
                    attempt += 1
                    continue
                reason_text = f"no whole answer within {self.timeout:g} s (the client's timeout)" if isinstance(e, (_Deadline, socket.timeout)) else (getattr(e, "reason", None) or e)
                raise TransportError(f"searchgym: {what} to {self.url} failed: {reason_text} (is `searchgym gym serve` running there?)", code="client.transport") from e
            if 300 <= status < 400:
                where = res_headers.get("location") or "nowhere"
                raise BadReplyError(f"searchgym: {what} answered a redirect ({status}) to {where[:200]}; not followed (the token goes to {self.url} only): "
                                    "give the server's own address as url", code="client.redirect", status=status)
            if status >= 400:
                err = self._api_error(status, reason, raw, what)
                if status in RETRY_STATUSES and attempt < self.retries:
                    self._sleep(attempt, res_headers.get("retry-after"))
                    attempt += 1
                    continue
                raise err
            try:
                return json.loads(raw) if raw else None
            except ValueError as e:
                raise BadReplyError(f"searchgym: {what} answered with something that is not JSON; is {self.url} a gym server?", code="client.bad_reply") from e

    def _exchange(self, method: str, path: str, data: Optional[bytes], headers: Dict[str, str]):
        """One attempt: (status, reason, lower-cased headers, body bytes), within the wall-clock deadline and the size cap.
        A watchdog shuts the socket when the deadline passes, so no read (headers included) can outlive it."""
        p = self._parts
        deadline = time.monotonic() + self.timeout
        conn_cls = http.client.HTTPSConnection if p.scheme == "https" else http.client.HTTPConnection
        conn = conn_cls(p.hostname, p.port, timeout=self.timeout)
        expired = threading.Event()

        def cut():
            expired.set()
            sock = conn.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        watchdog = threading.Timer(self.timeout, cut)
        watchdog.daemon = True
        watchdog.start()
        try:
            base = p.path.rstrip("/")
            conn.request(method, base + path, body=data, headers=headers)
            res = conn.getresponse()
            res_headers = {k.lower(): v for k, v in res.getheaders()}
            declared = res_headers.get("content-length")
            if declared is not None and declared.isdigit() and int(declared) > self.max_reply_bytes:
                raise BadReplyError(f"searchgym: {method} {path.split('?')[0]} answered {declared} bytes, over the client's max_reply_bytes "
                                    f"({self.max_reply_bytes})", code="client.reply_too_large", status=res.status)
            parts: List[bytes] = []
            size = 0
            while True:
                if expired.is_set() or time.monotonic() > deadline:
                    raise _Deadline()
                chunk = res.read1(65536) if hasattr(res, "read1") else res.read(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > self.max_reply_bytes:
                    raise BadReplyError(f"searchgym: {method} {path.split('?')[0]} answered more than the client's max_reply_bytes ({self.max_reply_bytes}); "
                                        "is this a gym server?", code="client.reply_too_large", status=res.status)
                parts.append(chunk)
            if expired.is_set():
                raise _Deadline()
            return res.status, res.reason, res_headers, b"".join(parts)
        except (OSError, http.client.HTTPException):
            if expired.is_set():
                raise _Deadline()
            raise
        finally:
            watchdog.cancel()
            conn.close()

    def _api_error(self, status: int, reason: str, raw: bytes, what: str) -> ApiError:
        try:
            payload = json.loads(raw or b"null")
        except ValueError:
            payload = None
        info = payload.get("error") if isinstance(payload, dict) and isinstance(payload.get("error"), dict) else {}
        code = str(info.get("code") or f"http.{status}")
        message = str(info.get("message") or reason or "no message").replace("\n", " ")
        return api_error_for(status)(f"searchgym: {what} answered {status} {code}: {message}", code=code, status=status, param=info.get("param"))

    def _sleep(self, attempt: int, retry_after: Optional[str]) -> None:
        time.sleep(retry_wait(retry_after, self.backoff * (2**attempt) * (0.5 + random.random() / 2)))


def retry_wait(retry_after: Optional[str], fallback: float) -> float:
    """Seconds to wait before a retry: the server's Retry-After (delta-seconds, or an HTTP date) when it is a finite
    number >= 0, at most MAX_RETRY_WAIT_S; otherwise (absent, negative, nan, garbage) the fallback back-off."""
    wait: Optional[float] = None
    if retry_after is not None:
        v = retry_after.strip()
        try:
            wait = float(v)
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(v)
                wait = when.timestamp() - time.time() if when is not None else None
            except (TypeError, ValueError, OverflowError):
                wait = None
        if wait is not None and not (math.isfinite(wait) and wait >= 0):
            wait = None
    if wait is None:
        wait = fallback
    return min(max(wait, 0.0), MAX_RETRY_WAIT_S)


def _bad_reply(what: str, why: str) -> BadReplyError:
    return BadReplyError(f"searchgym: {what} answered 200 with an unexpected shape ({why}); is this a gym server of this version?", code="client.bad_reply")


def _object(reply: Any, what: str, keys: Sequence[str]) -> Json:
    """reply when it is a JSON object holding every key; else a BadReplyError naming what is missing."""
    if not isinstance(reply, dict):
        raise _bad_reply(what, f"{type(reply).__name__ if reply is not None else 'null'}, not an object")
    missing = [k for k in keys if k not in reply]
    if missing:
        raise _bad_reply(what, f"no {', '.join(missing)}")
    return reply


def _list(v: Any, what: str, key: str) -> List[Any]:
    if not isinstance(v, list):
        raise _bad_reply(what, f"{key} is not a list")
    return v
