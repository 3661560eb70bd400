"""gw's Python SDK: gateway headers from snake_case parameters, and a small standard-library client."""
from .client import DEFAULT_BASE_URL, Gw
from .errors import (AuthenticationError, BadRequestError, BudgetExhaustedError, ConflictError, GwApiError, GwError,
                     GwValidationError, NotFoundError, PermissionDeniedError, RateLimitError, RequestTimeoutError,
                     StreamError, UpstreamError)
from .headers import PARAMETER_HEADERS, create_headers, custom_header_name

__all__ = [
    "DEFAULT_BASE_URL", "Gw", "create_headers", "custom_header_name", "PARAMETER_HEADERS",
    "GwError", "GwValidationError", "GwApiError", "BadRequestError", "AuthenticationError", "PermissionDeniedError",
    "NotFoundError", "ConflictError", "BudgetExhaustedError", "RateLimitError", "RequestTimeoutError",
    "UpstreamError", "StreamError",
]
__version__ = "0.1.0"
