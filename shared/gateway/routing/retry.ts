import { GatewayError } from '../../http/errors.js';
import type { RetryConfig } from '../config/schema.js';

export const DEFAULT_RETRY_STATUS_CODES: readonly number[] = [429, 500, 502, 503, 504];
const BASE_DELAY_MS = 200;
const MAX_BACKOFF_MS = 10_000;
const MAX_RETRY_AFTER_MS = 60_000;

export interface RetryClock {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Uniform in [0, 1): the jitter source. */
  random(): number;
}

export const systemClock: RetryClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

/** An error after the retries it took, so the answer's `x-gw-retry-attempt-count` stays right on failure too. */
export class RetriedFailure extends Error {
  constructor(
    readonly error: GatewayError,
    readonly retries: number,
  ) {
    super(error.message);
  }
}

/**
 * Runs `attempt` up to 1 + `attempts` times. A retry happens for the configured status codes (default 429, 500,
 * 502, 503, 504) and always for network errors and first-byte timeouts, never for gw's own request errors.
 * Waits use exponential backoff with full jitter, or the provider's `retry-after` / `retry-after-ms` (capped at
 * 60 s) when given; a wait that would pass the request's deadline is not taken.
 */
export async function withRetries<T>(
  policy: RetryConfig | undefined,
  deadline: number,
  attempt: (retryIndex: number) => Promise<T>,
  clock: RetryClock = systemClock,
): Promise<{ value: T; retries: number }> {
  const maxRetries = policy?.attempts ?? 0;
  for (let retry = 0; ; retry++) {
    try {
      return { value: await attempt(retry), retries: retry };
    } catch (thrown) {
      if (!(thrown instanceof GatewayError)) throw thrown;
      if (retry >= maxRetries || !isRetryable(thrown, policy)) throw new RetriedFailure(thrown, retry);
      const delay = retryDelay(thrown, retry, policy, clock);
      if (clock.now() + delay >= deadline) throw new RetriedFailure(thrown, retry);
      await clock.sleep(delay);
    }
  }
}

export function isRetryable(error: GatewayError, policy: RetryConfig | undefined): boolean {
  if (!error.upstream) return false;
  if (error.code === 'upstream_unreachable' || error.code === 'upstream_stream_interrupted' || error.status === 408) return true;
  return (policy?.on_status_codes ?? DEFAULT_RETRY_STATUS_CODES).includes(error.status);
}

export function retryDelay(error: GatewayError, retry: number, policy: RetryConfig | undefined, clock: RetryClock): number {
  if (policy?.use_retry_after_header !== false) {
    const hinted = retryAfterMs(error.headers, clock.now());
    if (hinted !== undefined) return Math.min(hinted, MAX_RETRY_AFTER_MS);
  }
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** retry);
  return Math.floor(clock.random() * ceiling);
}

/** `retry-after-ms` (milliseconds), or `retry-after` as seconds or an HTTP date. */
export function retryAfterMs(headers: Record<string, string>, now: number): number | undefined {
  const milliseconds = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] !== undefined && Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers['retry-after'];
  if (value === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
