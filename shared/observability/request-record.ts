import { logger } from './logger.js';
import { storeBodies, type StoredBodies } from './log-bodies.js';
import type { RequestLogRecord } from './log-record.js';
import { recordRequestMetrics } from './metrics.js';
import { exportRequestSpans } from './otlp-export.js';
import { redact, type KnownCredentials } from './redact.js';
import { writeRequestLog } from './request-log.js';
import { DEFAULT_OBSERVABILITY_SETTINGS, workspaceObservabilitySettings } from './workspace-settings.js';

/** A finished request, before bodies are stored and everything is redacted. */
export type FinishedRequest = Omit<RequestLogRecord, keyof StoredBodies> & {
  requestBody?: unknown;
  /** What the client received (a stream as its SSE text), possibly cut at the capture limit. */
  responseBody?: string;
  responseTruncated?: boolean;
  /** The credentials the request used: masked by value everywhere in the record (never stored themselves). */
  credentials?: KnownCredentials;
};

/**
 * The after-path of every gateway request, run in the background once the response has gone: bodies (when
 * the workspace keeps them), one redacted record and its spans appended to the log engine, the metrics and the
 * OTLP spans. Nothing here can fail or slow the request it describes.
 */
export async function recordFinishedRequest(finished: FinishedRequest): Promise<RequestLogRecord> {
  const { requestBody, responseBody, responseTruncated, credentials, ...fields } = finished;
  const workspaceSettings = await workspaceObservabilitySettings(fields.workspace_id).catch((error: unknown) => {
    logger.warn('could not read the workspace observability settings; using the defaults', { trace_id: fields.trace_id, error: error as Error });
    return DEFAULT_OBSERVABILITY_SETTINGS;
  });
  const bodies: StoredBodies = workspaceSettings.log_request_bodies
    ? await storeBodies(fields.workspace_id, fields.id, requestBody, responseBody, responseTruncated === true, credentials)
    : { request_body: null, response_body: null };
  // Redacted here, where the record is built, before any store, metric or export sees it.
  const record = redact<RequestLogRecord>({ ...fields, ...bodies }, credentials);
  recordRequestMetrics(record);
  exportRequestSpans(record);
  await writeRequestLog(record);
  return record;
}
