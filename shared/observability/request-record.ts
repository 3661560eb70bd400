import { logger } from './logger.js';
import { storeBodies, type StoredBodies } from './log-bodies.js';
import type { RequestLogRecord } from './log-record.js';
import { recordRequestMetrics } from './metrics.js';
import { redact, type KnownCredentials } from './redact.js';
import { writeRequestLog } from './request-log.js';
import { settings } from '../settings.js';
import { DEFAULT_OBSERVABILITY_SETTINGS, workspaceObservabilitySettings } from './workspace-settings.js';
import { merged } from '../merged.js';

/** A finished request, before bodies are stored and everything is redacted. */
export type FinishedRequest = Omit<RequestLogRecord, keyof StoredBodies> & {
  requestBody?: unknown;
  /** What the client received (a stream as its SSE text), possibly cut at the capture limit; bytes are UTF-8. */
  responseBody?: string | Uint8Array;
  responseTruncated?: boolean;
  /** The credentials the request used: masked by value everywhere in the record (never stored themselves). */
  credentials?: KnownCredentials;
};

/**
 * The after-path of every gateway request, run in the background once the response has gone: the metrics, and
 * for the readers that are on, one redacted record: bodies (when the workspace keeps them) and the record with
 * its spans appended to the log engine (GW_REQUEST_LOGS), the OTLP spans (OTEL_EXPORTER_OTLP_ENDPOINT). With
 * neither on, no record is built: nothing would read it (issue #34). Nothing here can fail or slow the request
 * it describes. Returns the record written, if any.
 */
export async function recordFinishedRequest(finished: FinishedRequest): Promise<RequestLogRecord | undefined> {
  const { requestBody: _request, responseBody: _response, responseTruncated: _truncated, credentials, ...fields } = finished;
  // Metrics read counts, statuses, codes and provider names only: no text that could hold a credential.
  recordRequestMetrics(fields);
  const logged = settings().GW_REQUEST_LOGS;
  // OTLP export (otlp-export.ts) is loaded only where an endpoint is set: not in the gateway's cold start.
  const exported = Boolean(settings().OTEL_EXPORTER_OTLP_ENDPOINT);
  if (!logged && !exported) return undefined;
  // Redacted here, where the record is built, before any store or export sees it. The bodies are redacted apart
  // (storeBodies), once, and only when they are stored: OTLP never exports them.
  const redacted = redact(fields, credentials);
  const bodies = logged ? await bodiesToStore(finished, credentials) : NO_BODIES;
  const record: RequestLogRecord = merged(redacted, bodies);
  // Not called at all without an endpoint: each call chains promises on the (absent) tracer.
  if (exported) (await import('./otlp-export.js')).exportRequestSpans(record);
  if (logged) await writeRequestLog(record);
  return record;
}

const NO_BODIES: StoredBodies = { request_body: null, response_body: null };

/** The bodies, redacted and sized, when the request's workspace keeps them (`log_request_bodies`, on by default). */
async function bodiesToStore(finished: FinishedRequest, credentials: KnownCredentials | undefined): Promise<StoredBodies> {
  const workspaceSettings = await workspaceObservabilitySettings(finished.workspace_id).catch((error: unknown) => {
    logger.warn('could not read the workspace observability settings; using the defaults', { trace_id: finished.trace_id, error: error as Error });
    return DEFAULT_OBSERVABILITY_SETTINGS;
  });
  if (!workspaceSettings.log_request_bodies) return NO_BODIES;
  return storeBodies(finished.workspace_id, finished.id, finished.requestBody, finished.responseBody, finished.responseTruncated === true, credentials);
}
