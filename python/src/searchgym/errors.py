"""searchgym.errors: the package's typed errors — one root, one class per way a gym server call can fail.

Every message is one line saying what was wrong and what to do; the server's stable error code and HTTP status are
kept as attributes (`code`, `status`), the underlying exception as `__cause__`.
"""
from __future__ import annotations


class SearchGymError(Exception):
    """Root of every error this package raises."""

    def __init__(self, message: str, *, code: str = "searchgym.error", status: int | None = None, param: str | None = None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.param = param


class TransportError(SearchGymError):
    """The server could not be reached or did not answer in time (connection refused, reset, no whole answer within
    the client's timeout)."""


class BadReplyError(SearchGymError):
    """The server answered 200 with something that is not what the route answers (not JSON, or JSON of another shape),
    a redirect (never followed: the token would go to another address), or a reply over the client's size cap."""


class ApiError(SearchGymError):
    """The server answered with an error status; `code` is its stable code (e.g. qa.not_found)."""


class BadRequestError(ApiError):
    """400/413/415: the request was wrong (unknown field, bad option, too large)."""


class AuthenticationError(ApiError):
    """401: missing or wrong token."""


class NotFoundError(ApiError):
    """404: no such QA, env (closed or expired) or page."""


class ConflictError(ApiError):
    """409: the env is busy with another step."""


class RateLimitError(ApiError):
    """429: too many open envs (retried with back-off before it is raised)."""


class ServerError(ApiError):
    """5xx: the server or its search engine failed (503s are retried with back-off before they are raised)."""


class EnvStateError(SearchGymError):
    """A SearchGymEnv used out of order: step() before reset(), or after the episode ended."""


def api_error_for(status: int) -> type[ApiError]:
    """The ApiError subclass for an HTTP status."""
    if status == 401:
        return AuthenticationError
    if status == 404:
        return NotFoundError
    if status == 409:
        return ConflictError
    if status == 429:
        return RateLimitError
    if status >= 500:
        return ServerError
    return BadRequestError
