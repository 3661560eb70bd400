/** A gateway parameter failed the gateway's own validation before anything was sent. */
export class GwValidationError extends Error {
  constructor(
    message: string,
    readonly param?: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'GwValidationError';
  }
}

/** gw answered a control-plane call with an error (its one error shape: `{error: {message, type, code, param}}`). */
export class GwApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | undefined,
    readonly type: string | undefined,
    readonly param: string | null | undefined,
    readonly traceId: string | undefined,
  ) {
    super(message);
    this.name = 'GwApiError';
  }

  static async from(response: Response): Promise<GwApiError> {
    const text = await response.text();
    let error: { message?: string; code?: string; type?: string; param?: string | null } = {};
    try {
      error = (JSON.parse(text) as { error?: typeof error }).error ?? {};
    } catch {
      // Not gw's JSON (a proxy in between, say): keep the status and the first bytes.
    }
    const message = error.message ?? `HTTP ${response.status}: ${text.slice(0, 200)}`;
    return new GwApiError(response.status, message, error.code, error.type, error.param, response.headers.get('x-gw-trace-id') ?? undefined);
  }
}
