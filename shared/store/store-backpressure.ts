import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GatewayError } from '../http/errors.js';

/**
 * Backpressure for the store client: at most `limit` commands in flight per process (the socket pool is sized
 * to the same number, so no call ever waits for a socket inside the SDK and times out there); the rest queue
 * here in order. A command that waited longer than `maxWaitMs` for its turn, or that still failed for a
 * transient reason (throttling, a timeout, a 5xx, a refused or reset connection) after the SDK's own retries,
 * becomes a 503 with `retry-after`: the store is busy or down, which is not a bug of gw (a 500).
 */
export class StoreGate {
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly limit: number,
    private readonly maxWaitMs: number,
  ) {}

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.inFlight < this.limit) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        this.inFlight++;
        resolve();
      };
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(turn);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(storeUnavailable(`the store is saturated (${this.limit} calls in flight, ${this.waiting.length} waiting)`));
      }, this.maxWaitMs);
      timer.unref();
      this.waiting.push(turn);
    });
  }

  private release(): void {
    this.inFlight--;
    this.waiting.shift()?.();
  }
}

const THROTTLING = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded', 'TooManyRequestsException', 'LimitExceededException']);
const TRANSIENT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'InternalServerError', 'ServiceUnavailable', 'TransactionInProgressException']);
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH']);

/** True for a failure that says the store is busy or unreachable, not that the request itself was wrong. */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
  const code = (error as { code?: unknown }).code;
  return THROTTLING.has(error.name) || TRANSIENT_NAMES.has(error.name) || status >= 500 || (typeof code === 'string' && NETWORK_CODES.has(code));
}

export function storeUnavailable(detail: string, cause?: unknown): GatewayError {
  return new GatewayError(503, 'store_unavailable', `gw's data store is unavailable just now (${detail}); retry shortly`, {
    type: 'api_error',
    headers: { 'retry-after': '1' },
    cause,
  });
}

/**
 * Puts the gate around every command of the client (outside the SDK's retries, which run inside it) and turns
 * a store that stayed unavailable through those retries into a 503.
 */
export function applyStoreBackpressure(client: DynamoDBClient, gate: StoreGate): void {
  client.middlewareStack.add(
    (next) => (args) =>
      gate.run(async () => {
        try {
          return await next(args);
        } catch (error) {
          if (isStoreUnavailable(error)) throw storeUnavailable((error as Error).name, error);
          throw error;
        }
      }),
    { step: 'initialize', name: 'gwStoreBackpressure', priority: 'high' },
  );
}
