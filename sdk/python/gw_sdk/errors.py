"""Typed errors: one class per status gw answers, all carrying gw's error fields."""
from __future__ import annotations

import json
from typing import Any, Dict, Optional


class GwError(Exception):
    """Base class of every error the SDK raises."""


class GwValidationError(GwError, ValueError):
    """A gateway parameter was refused before anything was sent."""

    def __init__(self, message: str, param: Optional[str] = None) -> None:
        super().__init__(message)
        self.param = param


class GwApiError(GwError):
    """gw answered with an error: `{"error": {"message", "type", "code", "param"}}`."""

    def __init__(self, status: int, message: str, code: Optional[str] = None, type: Optional[str] = None,
                 param: Optional[str] = None, trace_id: Optional[str] = None, body: Any = None) -> None:
        super().__init__(f"{status} {code or ''}: {message}".strip())
        self.status = status
        self.message = message
        self.code = code
        self.type = type
        self.param = param
        self.trace_id = trace_id
        self.body = body


class BadRequestError(GwApiError):
    pass


class AuthenticationError(GwApiError):
    pass


class PermissionDeniedError(GwApiError):
    pass


class NotFoundError(GwApiError):
    pass


class ConflictError(GwApiError):
    pass


class BudgetExhaustedError(GwApiError):
    pass


class RateLimitError(GwApiError):
    """429: `retry_after` holds the seconds gw asked to wait, when it said."""

    retry_after: Optional[float] = None


class RequestTimeoutError(GwApiError):
    pass


class UpstreamError(GwApiError):
    """5xx: the provider failed and fallback (if any) did not help, or gw itself failed."""


class StreamError(GwApiError):
    """A stream that had started ended with an error event."""


_BY_STATUS = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    408: RequestTimeoutError,
    409: ConflictError,
    412: BudgetExhaustedError,
    429: RateLimitError,
}


def error_from_response(status: int, raw: bytes, headers: Dict[str, str]) -> GwApiError:
    body: Any = None
    fields: Dict[str, Any] = {}
    try:
        body = json.loads(raw.decode("utf-8"))
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            fields = body["error"]
    except (ValueError, UnicodeDecodeError):
        body = raw[:200].decode("utf-8", "replace")
    cls = _BY_STATUS.get(status, UpstreamError if status >= 500 else GwApiError)
    error = cls(status, str(fields.get("message") or f"HTTP {status}"), fields.get("code"), fields.get("type"),
                fields.get("param"), headers.get("x-gw-trace-id"), body)
    if isinstance(error, RateLimitError):
        try:
            error.retry_after = float(headers.get("retry-after", ""))
        except ValueError:
            error.retry_after = None
    return error
