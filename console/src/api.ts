import { apiUrl } from './mount';
import { authHeaders, type Credential } from './session';

/** gw's one error shape, as the console shows it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export type Json = Record<string, unknown>;

export interface Page<T = Json> {
  data: T[];
  has_more?: boolean;
  next_cursor?: string | null;
}

/** Everything the console shows comes through here: the public control-plane API with the caller's credential. */
export class Api {
  constructor(readonly credential: Credential) {}

  async call<T = Json>(method: string, path: string, body?: unknown, query?: Record<string, string | undefined>): Promise<T> {
    const url = apiUrl(path);
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') url.searchParams.set(name, value);
    const response = await fetch(url, {
      method,
      headers: { ...authHeaders(this.credential), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const error = (parsed as { error?: { message?: string; code?: string } } | undefined)?.error;
      throw new ApiError(response.status, error?.message ?? `HTTP ${response.status}`, error?.code);
    }
    return parsed as T;
  }

  get = <T = Json>(path: string, query?: Record<string, string | undefined>) => this.call<T>('GET', path, undefined, query);
  post = <T = Json>(path: string, body: unknown = {}) => this.call<T>('POST', path, body);
  patch = <T = Json>(path: string, body: unknown) => this.call<T>('PATCH', path, body);
  put = <T = Json>(path: string, body: unknown) => this.call<T>('PUT', path, body);
  delete = <T = Json>(path: string) => this.call<T>('DELETE', path);
}

export const segment = (value: string) => encodeURIComponent(value);
