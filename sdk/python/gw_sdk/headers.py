"""Gateway parameters as snake_case arguments, turned into gw's HTTP headers."""
from __future__ import annotations

import json
import re
from typing import Any, Dict, Iterable, Mapping, Optional, Union

#: Every gateway parameter with the header it becomes. The spec's cloud kind names (clouda = Azure OpenAI,
#: cloudb = Vertex AI, cloudc = Bedrock) are accepted beside gw's own.
PARAMETER_HEADERS: Dict[str, str] = {
    "api_key": "x-gw-api-key",
    "provider": "x-gw-provider",
    "virtual_key": "x-gw-virtual-key",
    "config": "x-gw-config",
    "custom_host": "x-gw-custom-host",
    "trace_id": "x-gw-trace-id",
    "metadata": "x-gw-metadata",
    "cache_force_refresh": "x-gw-cache-force-refresh",
    "cache_namespace": "x-gw-cache-namespace",
    "request_timeout": "x-gw-request-timeout",
    "forward_headers": "x-gw-forward-headers",
    "deployment": "x-gw-deployment",
    "drop_unsupported_params": "x-gw-drop-unsupported-params",
    "anthropic_beta": "anthropic-beta",
    "azure_resource_name": "x-gw-azure-resource-name",
    "azure_deployment_id": "x-gw-azure-deployment-id",
    "azure_api_version": "x-gw-azure-api-version",
    "azure_model_name": "x-gw-azure-model-name",
    "vertex_project_id": "x-gw-vertex-project-id",
    "vertex_region": "x-gw-vertex-region",
    "vertex_llm_request_type": "x-vertex-llm-request-type",
    "aws_access_key_id": "x-gw-aws-access-key-id",
    "aws_secret_access_key": "x-gw-aws-secret-access-key",
    "aws_session_token": "x-gw-aws-session-token",
    "aws_region": "x-gw-aws-region",
    "clouda_resource_name": "x-gw-clouda-resource-name",
    "clouda_deployment_id": "x-gw-clouda-deployment-id",
    "clouda_api_version": "x-gw-clouda-api-version",
    "clouda_model_name": "x-gw-clouda-model-name",
    "cloudb_project_id": "x-gw-cloudb-project-id",
    "cloudb_region": "x-gw-cloudb-region",
    "cloudb_llm_request_type": "x-cloudb-llm-request-type",
    "cloudc_access_key_id": "x-gw-cloudc-access-key-id",
    "cloudc_secret_access_key": "x-gw-cloudc-secret-access-key",
    "cloudc_session_token": "x-gw-cloudc-session-token",
    "cloudc_region": "x-gw-cloudc-region",
}

_TRACE_ID = re.compile(r"^[\x21-\x7e]{1,128}$")
_CONFIG_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}(@\d{1,9})?$")
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_NEVER_FORWARDED = {
    "authorization", "proxy-authorization", "connection", "keep-alive", "proxy-connection", "proxy-authenticate",
    "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length", "content-type", "content-encoding",
    "expect", "cookie", "x-api-key", "api-key", "x-goog-api-key",
}
MAX_REQUEST_TIMEOUT_MS = 15 * 60 * 1000
MAX_METADATA_BYTES = 8 * 1024


#: Arguments of the client (`Gw`) beside the gateway parameters, for the check of the other SDK's spelling.
CLIENT_ARGUMENTS = frozenset({"base_url", "provider_api_key"})


def snake_case(name: str) -> str:
    """`apiKey` -> `api_key`, `traceID` -> `trace_id`, `baseURL` -> `base_url` (the TypeScript SDK's names)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return re.sub(r"([A-Z])([A-Z][a-z])", r"\1_\2", spaced).lower()


def refuse_camel_case(name: str) -> None:
    """A TypeScript (camelCase) spelling of a parameter is refused, naming the Python one: taken as a custom
    header it would silently send `apiKey: …` and no `x-gw-api-key`."""
    if name in PARAMETER_HEADERS or name in CLIENT_ARGUMENTS or name == name.lower():
        return
    python_name = snake_case(name)
    if python_name in PARAMETER_HEADERS or python_name in CLIENT_ARGUMENTS:
        raise _invalid(python_name, f"`{name}` is the TypeScript SDK's spelling; the Python SDK takes `{python_name}`")


def custom_header_name(name: str) -> str:
    """`X_My_Header` (or `x_my_header`) becomes `X-My-Header`: underscores are the snake_case form of hyphens."""
    return name.replace("_", "-")


def create_headers(api_key: Optional[str] = None, **parameters: Any) -> Dict[str, str]:
    """The headers for a set of gateway parameters, checked the way the gateway checks them.

    Any keyword that is not a gateway parameter becomes a header of its own (`X_My_Header` -> `X-My-Header`);
    names inside `forward_headers` keep their HTTP form. The result is a plain dict for `default_headers`.
    """
    if api_key is not None:
        parameters["api_key"] = api_key
    headers: Dict[str, str] = {}
    for name, value in parameters.items():
        refuse_camel_case(name)
        if value is None:
            continue
        header = PARAMETER_HEADERS.get(name)
        if header is None:
            headers[custom_header_name(name)] = _text(name, value)
            continue
        headers[header] = _value(name, value)
    return headers


def _text(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise _invalid(name, f"{name} must be a string, number or boolean")


def _value(name: str, value: Any) -> str:
    if name == "config":
        return _config(value)
    if name == "metadata":
        return _metadata(value)
    if name == "forward_headers":
        return _forward_headers(value)
    if name in ("cache_force_refresh", "drop_unsupported_params"):
        if not isinstance(value, bool):
            raise _invalid(name, f"{PARAMETER_HEADERS[name]} must be \"true\" or \"false\"")
        return "true" if value else "false"
    if name == "request_timeout":
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_REQUEST_TIMEOUT_MS:
            raise _invalid(name, "x-gw-request-timeout must be an integer number of milliseconds between 1 and "
                                 f"{MAX_REQUEST_TIMEOUT_MS}")
        return str(value)
    if name == "trace_id":
        if not isinstance(value, str) or not _TRACE_ID.match(value):
            raise _invalid(name, "x-gw-trace-id must be 1-128 printable ASCII characters without spaces")
        return value
    if not isinstance(value, str):
        raise _invalid(name, f"{name} must be a string")
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value):
        raise _invalid(name, f"{name} must not contain control characters")
    return value


def _config(value: Union[str, Mapping[str, Any]]) -> str:
    if isinstance(value, Mapping):
        return json.dumps(value, separators=(",", ":"))
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            try:
                parsed = json.loads(text)
            except ValueError as error:
                raise _invalid("config", f"Invalid config at x-gw-config: not valid JSON ({error})")
            return json.dumps(parsed, separators=(",", ":"))
        if not _CONFIG_ID.match(text):
            raise _invalid("config", "Invalid config at x-gw-config: expected an inline JSON object or a saved config "
                                     "id such as \"cfg-abc123\" or \"cfg-abc123@2\"")
        return text
    raise _invalid("config", "config must be a saved config id or a dict")


def _metadata(value: Mapping[str, Any]) -> str:
    if not isinstance(value, Mapping):
        raise _invalid("metadata", "x-gw-metadata must be a JSON object of string values")
    for key, entry in value.items():
        if not isinstance(entry, str):
            raise _invalid("metadata", f"x-gw-metadata values must be strings; \"{key}\" is {type(entry).__name__}")
    text = json.dumps(dict(value), separators=(",", ":"))
    if len(text.encode("utf-8")) > MAX_METADATA_BYTES:
        raise _invalid("metadata", f"x-gw-metadata must be at most {MAX_METADATA_BYTES} bytes")
    return text


def _forward_headers(value: Iterable[str]) -> str:
    names = [value] if isinstance(value, str) else list(value)
    for name in names:
        lowered = str(name).strip().lower()
        if not _HEADER_NAME.match(lowered):
            raise _invalid("forward_headers", f"x-gw-forward-headers: \"{name}\" is not a valid header name")
        if lowered in _NEVER_FORWARDED or lowered.startswith("x-gw-"):
            raise _invalid("forward_headers", f"x-gw-forward-headers: \"{lowered}\" cannot be forwarded (gw's own, "
                                              "hop-by-hop and credential headers are handled by gw)")
    return ",".join(str(name) for name in names)


def _invalid(param: str, message: str) -> Exception:
    from .errors import GwValidationError

    return GwValidationError(message, param)
