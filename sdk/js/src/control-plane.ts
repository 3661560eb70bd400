import { GwApiError } from './errors.js';

export type Query = Record<string, string | number | boolean | undefined>;
export type Json = Record<string, unknown>;

/** One list page, as every gw list answers. */
export interface Page<T = Json> {
  object: 'list';
  data: T[];
  has_more?: boolean;
  next_cursor?: string | null;
  [extra: string]: unknown;
}

interface Transport {
  call<T>(method: string, path: string, options?: { body?: unknown; query?: Query }): Promise<T>;
}

/**
 * Every route the SDK calls, as `METHOD path` in the form docs/openapi.yaml uses. A test checks each one
 * against the generated OpenAPI document, so the SDK cannot drift from the API.
 */
export const SDK_OPERATIONS = [
  'POST /v1/prompts/{promptId}/render',
  'POST /v1/prompts/{promptId}/completions',
  'POST /v1/policies/rate-limits',
  'GET /v1/policies/rate-limits',
  'GET /v1/policies/rate-limits/{id}',
  'POST /v1/policies/rate-limits/{id}/archive',
  'POST /v1/policies/usage-limits',
  'GET /v1/policies/usage-limits',
  'GET /v1/policies/usage-limits/{id}',
  'POST /v1/policies/usage-limits/{id}/archive',
  'POST /v1/virtual-keys',
  'GET /v1/virtual-keys',
  'GET /v1/virtual-keys/{virtualKeyId}',
  'PATCH /v1/virtual-keys/{virtualKeyId}',
  'DELETE /v1/virtual-keys/{virtualKeyId}',
  'POST /v1/configs',
  'GET /v1/configs',
  'GET /v1/configs/{id}',
  'PUT /v1/configs/{id}',
  'DELETE /v1/configs/{id}',
  'POST /v1/api-keys',
  'GET /v1/api-keys',
  'GET /v1/api-keys/{id}',
  'PATCH /v1/api-keys/{id}',
  'POST /v1/api-keys/{id}/rotate',
  'DELETE /v1/api-keys/{id}',
  'GET /v1/workspaces',
  'GET /v1/workspaces/{id}',
  'PATCH /v1/workspaces/{id}',
  'GET /v1/logs',
  'GET /v1/logs/{id}',
  'GET /v1/analytics',
] as const;

const id = (value: string) => encodeURIComponent(value);

/** CRUD helpers of one resource whose routes follow gw's usual shape. */
function resource(transport: Transport, base: string) {
  return {
    create: (body: Json) => transport.call<Json>('POST', base, { body }),
    list: (query?: Query) => transport.call<Page>('GET', base, { query }),
    get: (key: string) => transport.call<Json>('GET', `${base}/${id(key)}`),
  };
}

function policyResource(transport: Transport, base: string) {
  return {
    ...resource(transport, base),
    archive: (key: string) => transport.call<Json>('POST', `${base}/${id(key)}/archive`),
  };
}

/** The typed control-plane helpers a `GwClient` carries. */
export function controlPlane(transport: Transport) {
  return {
    prompts: {
      /** Renders a stored prompt; hyperparameters go at the root of the body beside `variables` (the spec). */
      render: (promptId: string, body: { variables: Record<string, unknown>; [hyperparameter: string]: unknown }) =>
        transport.call<{ success: boolean; data: Json }>('POST', `/v1/prompts/${id(promptId)}/render`, { body }),
      completions: (promptId: string, body: { variables: Record<string, unknown>; [hyperparameter: string]: unknown }) =>
        transport.call<Json>('POST', `/v1/prompts/${id(promptId)}/completions`, { body: { ...body, stream: false } }),
    },
    policies: {
      rateLimits: policyResource(transport, '/v1/policies/rate-limits'),
      usageLimits: policyResource(transport, '/v1/policies/usage-limits'),
    },
    virtualKeys: {
      ...resource(transport, '/v1/virtual-keys'),
      update: (key: string, body: Json) => transport.call<Json>('PATCH', `/v1/virtual-keys/${id(key)}`, { body }),
      delete: (key: string) => transport.call<Json>('DELETE', `/v1/virtual-keys/${id(key)}`),
    },
    configs: {
      ...resource(transport, '/v1/configs'),
      update: (key: string, body: Json) => transport.call<Json>('PUT', `/v1/configs/${id(key)}`, { body }),
      delete: (key: string) => transport.call<Json>('DELETE', `/v1/configs/${id(key)}`),
    },
    apiKeys: {
      ...resource(transport, '/v1/api-keys'),
      update: (key: string, body: Json) => transport.call<Json>('PATCH', `/v1/api-keys/${id(key)}`, { body }),
      rotate: (key: string, body: Json = {}) => transport.call<Json>('POST', `/v1/api-keys/${id(key)}/rotate`, { body }),
      revoke: (key: string) => transport.call<Json>('DELETE', `/v1/api-keys/${id(key)}`),
    },
    workspaces: {
      list: (query?: Query) => transport.call<Page>('GET', '/v1/workspaces', { query }),
      get: (key: string) => transport.call<Json>('GET', `/v1/workspaces/${id(key)}`),
      update: (key: string, body: Json) => transport.call<Json>('PATCH', `/v1/workspaces/${id(key)}`, { body }),
    },
    logs: {
      /** Filters: trace_id, user, provider, model, status, cache_status, api_key_id, from, to, and `metadata.<key>`. */
      list: (query?: Query) => transport.call<Page>('GET', '/v1/logs', { query }),
      get: (key: string) => transport.call<Json>('GET', `/v1/logs/${id(key)}`),
    },
    analytics: {
      get: (query: Query & { group_by: string }) => transport.call<Json>('GET', '/v1/analytics', { query }),
    },
  };
}

export type ControlPlane = ReturnType<typeof controlPlane>;

/** A fetch-based transport that adds gw's headers and turns error answers into `GwApiError`. */
export function fetchTransport(baseURL: string, headers: () => Record<string, string>, fetchImpl: typeof fetch = fetch): Transport {
  const root = baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
  return {
    async call<T>(method: string, path: string, options: { body?: unknown; query?: Query } = {}): Promise<T> {
      const url = new URL(root + path);
      for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
      const response = await fetchImpl(url, {
        method,
        headers: { ...headers(), ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      if (!response.ok) throw await GwApiError.from(response);
      const text = await response.text();
      return (text === '' ? {} : JSON.parse(text)) as T;
    },
  };
}
