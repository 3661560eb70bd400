import type { ResponseBody } from '../http/types.js';
import type { GatewayHeaderValues } from './response-headers.js';

// A leaf module: the context, the attempt, the native attempt and the cache all speak of attempts, so their
// shapes live here rather than in attempt.ts (which imports all of them).

export type CacheStatus = NonNullable<GatewayHeaderValues['cacheStatus']>;

/** One upstream try, as recorded in the trace so a user can see why a fallback or retry happened. */
export interface AttemptRecord {
  target_path: string;
  provider?: string;
  model?: string;
  status: number;
  latency_ms: number;
  error_code?: string;
  retry: number;
  cache_status?: CacheStatus;
  /** The caller's x-gw-custom-host, so the console's "Reproduce" curl can send the request where it went. */
  custom_host?: string;
  /**
   * The id of the workspace provider (`x-gw-provider: @slug`) whose limits the request was admitted under, so the
   * request log says which provider's counters its usage went to (enforcement/reconcile-limits.ts).
   */
  workspace_provider?: string;
}

/** What the request ended with, for the log record (usage arrives at the end of a stream). */
export interface UsageReport {
  usage?: Record<string, unknown>;
  /** A pass-through body, read for usage only after the response went out. */
  usageSource?: Buffer;
  /** Set when a committed stream ended badly. */
  streamErrorCode?: string;
  /** The answer came from the cache: its usage is not charged to token limits or budgets. */
  cacheHit?: boolean;
}

export interface AttemptSuccess {
  provider: string;
  model?: string;
  headers: Record<string, string>;
  contentType: string;
  body: ResponseBody;
  cacheStatus: CacheStatus;
  /** The body is already in the inbound dialect (native pass-through); otherwise it is canonical chat. */
  dialectNative?: boolean;
}
