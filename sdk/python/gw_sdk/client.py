"""A small gw client on the standard library: chat completions (streamed too), prompts, policies and logs."""
from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, Mapping, Optional

from .errors import StreamError, error_from_response
from .headers import create_headers

DEFAULT_BASE_URL = "http://127.0.0.1:8787/v1"


class Gw:
    """A client for one gw: gateway parameters as keyword arguments, each sent as its header.

    `provider_api_key` is the provider credential (sent as `Authorization: Bearer ...`); leave it out with a
    virtual key or a config. `with_options(...)` gives a client for some requests (trace id, metadata, config).
    """

    def __init__(self, api_key: str, base_url: str = DEFAULT_BASE_URL, provider_api_key: Optional[str] = None,
                 timeout: float = 600.0, **parameters: Any) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._api_key = api_key
        self._provider_api_key = provider_api_key
        self._parameters = dict(parameters)
        self.headers = create_headers(api_key=api_key, **parameters)
        self.chat = _Chat(self)
        self.prompts = _Prompts(self)
        self.policies = _Policies(self)
        self.logs = _Logs(self)

    def with_options(self, **parameters: Any) -> "Gw":
        merged = {**self._parameters, **parameters}
        return Gw(self._api_key, self.base_url, self._provider_api_key, self.timeout, **merged)

    # The one place HTTP happens.
    def request(self, method: str, path: str, body: Any = None, query: Optional[Mapping[str, Any]] = None,
                gateway: bool = False) -> Any:
        with self._open(method, path, body, query, gateway) as response:
            raw = response.read()
        return json.loads(raw.decode("utf-8")) if raw else {}

    def stream(self, path: str, body: Mapping[str, Any]) -> Iterator[Dict[str, Any]]:
        """POSTs and yields each server-sent event's JSON until `[DONE]`; an error event raises StreamError."""
        response = self._open("POST", path, body, None, True)
        try:
            for data in _sse_data(response):
                if data == "[DONE]":
                    return
                event = json.loads(data)
                if isinstance(event, dict) and isinstance(event.get("error"), dict):
                    error = event["error"]
                    raise StreamError(200, str(error.get("message")), error.get("code"), error.get("type"),
                                      error.get("param"), self.headers.get("x-gw-trace-id"), event)
                yield event
        finally:
            response.close()

    def _open(self, method: str, path: str, body: Any, query: Optional[Mapping[str, Any]], gateway: bool):
        url = self.base_url + path[len("/v1"):] if path.startswith("/v1") else self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode({k: _query_value(v) for k, v in query.items() if v is not None})
        headers = dict(self.headers) if gateway else {k: v for k, v in self.headers.items()
                                                       if k in ("x-gw-api-key", "x-gw-trace-id")}
        if gateway and self._provider_api_key:
            headers["authorization"] = f"Bearer {self._provider_api_key}"
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["content-type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            return urllib.request.urlopen(request, timeout=self.timeout)
        except urllib.error.HTTPError as error:
            raw = error.read()
            raise error_from_response(error.code, raw, {k.lower(): v for k, v in error.headers.items()}) from None


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _sse_data(response) -> Iterator[str]:
    """The `data` of each event, joined across lines as the SSE format says; comments and ids are skipped."""
    lines = []
    for raw in response:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if lines:
                yield "\n".join(lines)
                lines = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field == "data":
            lines.append(value[1:] if value.startswith(" ") else value)
    if lines:
        yield "\n".join(lines)


class _Completions:
    def __init__(self, client: Gw) -> None:
        self._client = client

    def create(self, **body: Any):
        """A chat completion; with `stream=True`, an iterator of chunks."""
        if body.get("stream"):
            return self._client.stream("/v1/chat/completions", body)
        return self._client.request("POST", "/v1/chat/completions", body, gateway=True)


class _Chat:
    def __init__(self, client: Gw) -> None:
        self.completions = _Completions(client)


class _Prompts:
    def __init__(self, client: Gw) -> None:
        self._client = client

    def render(self, prompt_id: str, variables: Mapping[str, Any], **hyperparameters: Any) -> Dict[str, Any]:
        """Renders a stored prompt; hyperparameters go at the root of the body beside `variables`."""
        body = {"variables": dict(variables), **hyperparameters}
        return self._client.request("POST", f"/v1/prompts/{_segment(prompt_id)}/render", body)

    def completions(self, prompt_id: str, variables: Mapping[str, Any], **hyperparameters: Any):
        body = {"variables": dict(variables), **hyperparameters}
        path = f"/v1/prompts/{_segment(prompt_id)}/completions"
        if body.get("stream"):
            return self._client.stream(path, body)
        return self._client.request("POST", path, body, gateway=True)


class _PolicyKind:
    def __init__(self, client: Gw, base: str) -> None:
        self._client = client
        self._base = base

    def create(self, **payload: Any) -> Dict[str, Any]:
        return self._client.request("POST", self._base, payload)

    def list(self, **query: Any) -> Dict[str, Any]:
        return self._client.request("GET", self._base, query=query)

    def get(self, policy_id: str) -> Dict[str, Any]:
        return self._client.request("GET", f"{self._base}/{_segment(policy_id)}")


class _Policies:
    def __init__(self, client: Gw) -> None:
        self.rate_limits = _PolicyKind(client, "/v1/policies/rate-limits")
        self.usage_limits = _PolicyKind(client, "/v1/policies/usage-limits")


class _Logs:
    def __init__(self, client: Gw) -> None:
        self._client = client

    def list(self, metadata: Optional[Mapping[str, str]] = None, **filters: Any) -> Dict[str, Any]:
        """Request logs, newest first. Filters: trace_id, user, provider, model, status, ...; metadata={key: value}."""
        query = dict(filters)
        for key, value in (metadata or {}).items():
            query[f"metadata.{key}"] = value
        return self._client.request("GET", "/v1/logs", query=query)

    def get(self, log_id: str) -> Dict[str, Any]:
        return self._client.request("GET", f"/v1/logs/{_segment(log_id)}")


def _segment(value: str) -> str:
    return urllib.parse.quote(value, safe="")
