"""searchgym.client: a standard-library HTTP client for a `searchgym gym serve` server — the env API, /v1/qa,
/v1/search, /v1/access and the outside engines' /retrieve and /access, with the token, timeouts and retries.

Knows the wire format only; episodes (Gymnasium semantics) are searchgym.env's. Thread-safe: one client may serve
many threads (each request opens its own connection).
"""
from __future__ import annotations

import http.client
import json
import os
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional, Sequence, Union

from .errors import ApiError, SearchGymError, TransportError, api_error_for

DEFAULT_URL = "http://127.0.0.1:8000"
Json = Dict[str, Any]
# 429 (env.limit) and 503 (a search engine or worker down) may pass; every other status is the caller's to fix.
RETRY_STATUSES = frozenset({429, 503})


class SearchGymClient:
    """Calls one gym server.

    url: the server (default $SEARCHGYM_URL, else http://127.0.0.1:8000); a path prefix such as /t/TOKEN is kept.
    token: sent as `Authorization: Bearer TOKEN` (default $SEARCHGYM_TOKEN; empty: none, as `gym serve` without --token).
    timeout: seconds per request. retries: extra attempts after a 429/503 (and, for requests that change nothing,
    after a connection error or timeout), waiting backoff * 2**attempt seconds (with jitter, or the server's Retry-After).
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, *, timeout: float = 30.0, retries: int = 4, backoff: float = 0.25):
        self.url = (url or os.environ.get("SEARCHGYM_URL") or DEFAULT_URL).rstrip("/")
        if not self.url.startswith(("http://", "https://")):
            raise SearchGymError(f"searchgym: the server URL must start with http:// or https://, got {self.url!r}", code="client.bad_url")
        self.token = os.environ.get("SEARCHGYM_TOKEN", "") if token is None else token
        if timeout <= 0 or retries < 0 or backoff < 0:
            raise SearchGymError("searchgym: timeout must be > 0, retries and backoff >= 0", code="client.bad_option")
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff

    # -- the env API ---------------------------------------------------------------------------------------------
    def health(self) -> Json:
        return self.request("GET", "/health")

    def list_qa(self, split: Optional[str] = None, offset: int = 0, limit: int = 100) -> Json:
        """{total, offset, items: [{id, type, hops, split, question}]} (no answers)."""
        q: Json = {"offset": offset, "limit": limit}
        if split is not None:
            q["split"] = split
        return self.request("GET", "/v1/qa?" + urllib.parse.urlencode(q))

    def create_env(self, qa_id: Optional[str] = None, *, split: Optional[str] = None, index: Optional[int] = None, options: Optional[Json] = None) -> Json:
        """A new env for one question (by id, or split + index): {envId, qa: {id, type, hops, split, question}, observation, tools}."""
        body: Json = {"qaId": qa_id} if qa_id is not None else {"split": split, "index": index}
        if options:
            body["options"] = options
        # Not retried after a connection error: the env may exist already (it expires when idle).
        return self.request("POST", "/v1/envs", body, idempotent=False)

    def step(self, env_id: str, action: Union[str, Json]) -> Json:
        """One assistant turn (raw text, or {text, tool_calls?, numTokens?}) → {observation, reward, terminated, truncated, stopReason?, metrics, logs}."""
        return self.request("POST", f"/v1/envs/{urllib.parse.quote(env_id, safe='')}/step", {"action": action}, idempotent=False)

    def close_env(self, env_id: str) -> Json:
        """{closed: true, stats}; NotFoundError when no such env is open."""
        return self.request("DELETE", f"/v1/envs/{urllib.parse.quote(env_id, safe='')}")

    # -- stateless tools -----------------------------------------------------------------------------------------
    def search(self, query: str, k: Optional[int] = None) -> List[Json]:
        """[{title, url, snippet, score?}] — the env's search tool without an env."""
        body: Json = {"query": query}
        if k is not None:
            body["k"] = k
        return self.request("POST", "/v1/search", body)["results"]

    def access(self, url: str) -> Json:
        """{title, url, text}; NotFoundError for an unknown page."""
        return self.request("POST", "/v1/access", {"url": url})["page"]

    def retrieve(self, queries: Sequence[str], topk: Optional[int] = None, return_scores: bool = False) -> List[Any]:
        """Search-R1 / verl / ASearcher /retrieve: one list of hits per query (shapes: gym/README.md, HTTP server)."""
        body: Json = {"queries": list(queries), "return_scores": return_scores}
        if topk is not None:
            body["topk"] = topk
        return self.request("POST", "/retrieve", body)["result"]

    def access_many(self, urls: Sequence[str]) -> List[Optional[Json]]:
        """ASearcher's /access: one page (or None for an unknown url) per url, in order."""
        return self.request("POST", "/access", {"urls": list(urls)})["result"]

    # -- the one request path ------------------------------------------------------------------------------------
    def request(self, method: str, path: str, body: Optional[Json] = None, *, idempotent: bool = True) -> Any:
        """Send one request; retry 429/503 (and, when idempotent, transport failures); raise a typed error otherwise."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        what = f"{method} {path.split('?')[0]}"
        attempt = 0
        while True:
            req = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as res:
                    raw = res.read()
            except urllib.error.HTTPError as e:
                err = self._api_error(e, what)
                if e.code in RETRY_STATUSES and attempt < self.retries:
                    self._sleep(attempt, e.headers.get("Retry-After"))
                    attempt += 1
                    continue
                raise err from e
            except (OSError, http.client.HTTPException) as e:  # URLError, refused, reset, timeout, a cut-off answer
                if idempotent and attempt < self.retries:
                    self._sleep(attempt, None)
                    attempt += 1
                    continue
                reason = getattr(e, "reason", None) or e
                raise TransportError(f"searchgym: {what} to {self.url} failed: {reason} (is `searchgym gym serve` running there?)", code="client.transport") from e
            try:
                return json.loads(raw) if raw else None
            except ValueError as e:
                raise SearchGymError(f"searchgym: {what} answered with something that is not JSON; is {self.url} a gym server?", code="client.bad_reply") from e

    def _api_error(self, e: urllib.error.HTTPError, what: str) -> ApiError:
        try:
            payload = json.loads(e.read() or b"null")
        except ValueError:
            payload = None
        info = payload.get("error") if isinstance(payload, dict) and isinstance(payload.get("error"), dict) else {}
        code = str(info.get("code") or f"http.{e.code}")
        message = str(info.get("message") or e.reason or "no message").replace("\n", " ")
        return api_error_for(e.code)(f"searchgym: {what} answered {e.code} {code}: {message}", code=code, status=e.code, param=info.get("param"))

    def _sleep(self, attempt: int, retry_after: Optional[str]) -> None:
        try:
            wait = float(retry_after) if retry_after is not None else None
        except ValueError:
            wait = None
        if wait is None:
            wait = self.backoff * (2**attempt) * (0.5 + random.random() / 2)
        time.sleep(min(wait, 30.0))
