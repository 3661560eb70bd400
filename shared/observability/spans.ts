import { randomFillSync } from 'node:crypto';
import { isoTime } from '../iso-time.js';

export type SpanKind = 'stage' | 'attempt' | 'tool';
export type SpanStatus = 'ok' | 'error';

/** One timed step of a gateway request, as stored with its log record and served by GET /v1/spans. */
export interface SpanRecord {
  span_id: string;
  /** The request's root span id (the log record's `span_id`), or another span's id. */
  parent_span_id?: string;
  name: string;
  kind: SpanKind;
  /** ISO 8601. */
  start_time: string;
  end_time?: string;
  duration_ms?: number;
  status: SpanStatus;
  attributes: Record<string, string | number | boolean>;
  error?: { type?: string; code?: string; message?: string };
}

/** The part of the gateway context spans need; any request context that carries these can record spans. */
export interface SpanHost {
  spans?: SpanRecord[];
  /** The request's root span id; spans without an explicit parent hang under it. */
  rootSpanId?: string;
}

export interface SpanOptions {
  kind?: SpanKind;
  parentSpanId?: string;
}

export interface OpenSpan {
  readonly spanId: string;
  /** Closes the span; `error` marks it failed. Calling end twice keeps the first end. */
  end(attributes?: Record<string, string | number | boolean | undefined>, error?: unknown): void;
}

/**
 * Random bytes for span ids, drawn from the CSPRNG a block at a time: one `randomFillSync` call per 512 ids
 * instead of one per span (every request opens several; per-call it was ~3 % of the gateway's CPU).
 */
const SPAN_ID_BYTES = 8;
const entropy = Buffer.alloc(SPAN_ID_BYTES * 512);
let entropyOffset = entropy.length;

/** A 64-bit span id in the W3C / OpenTelemetry form: 16 lowercase hex digits. */
export function newSpanId(): string {
  if (entropyOffset === entropy.length) {
    randomFillSync(entropy);
    entropyOffset = 0;
  }
  const id = entropy.toString('hex', entropyOffset, entropyOffset + SPAN_ID_BYTES);
  entropyOffset += SPAN_ID_BYTES;
  return id;
}

/**
 * Starts a span on the request's context. Cheap on purpose (an object push and two clock reads): every stage
 * of every request calls it. Stages are: auth, policy_check, cache_lookup, guardrails, …; attempts are one
 * per upstream try (kind 'attempt'); MCP tool calls use kind 'tool'.
 */
export function startSpan(context: SpanHost, name: string, attributes: Record<string, string | number | boolean | undefined> = {}, options: SpanOptions = {}): OpenSpan {
  const startedAt = Date.now();
  const startedPrecise = performance.now();
  const span: SpanRecord = {
    span_id: newSpanId(),
    parent_span_id: options.parentSpanId ?? context.rootSpanId,
    name,
    kind: options.kind ?? 'stage',
    start_time: isoTime(startedAt),
    status: 'ok',
    attributes: definedOnly(attributes),
  };
  (context.spans ??= []).push(span);
  return {
    spanId: span.span_id,
    end(extra, error) {
      if (span.end_time !== undefined) return;
      const duration = Math.round((performance.now() - startedPrecise) * 100) / 100;
      span.duration_ms = duration;
      span.end_time = isoTime(startedAt + duration);
      if (extra) Object.assign(span.attributes, definedOnly(extra));
      if (error !== undefined && error !== null && error !== false) {
        span.status = 'error';
        span.error = describeError(error);
      }
    },
  };
}

/** Runs `work` inside a span: ended when it settles, failed when it throws (the error is rethrown). */
export async function withSpan<T>(context: SpanHost, name: string, work: (span: OpenSpan) => Promise<T>, attributes?: Record<string, string | number | boolean | undefined>, options?: SpanOptions): Promise<T> {
  const span = startSpan(context, name, attributes, options);
  try {
    const result = await work(span);
    span.end();
    return result;
  } catch (error) {
    span.end(undefined, error);
    throw error;
  }
}

function definedOnly(attributes: Record<string, string | number | boolean | undefined>): Record<string, string | number | boolean> {
  const result: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) result[key] = value;
  return result;
}

function describeError(error: unknown): SpanRecord['error'] {
  if (typeof error === 'object') {
    const candidate = error as { type?: unknown; code?: unknown; message?: unknown; name?: unknown };
    return {
      type: typeof candidate.type === 'string' ? candidate.type : typeof candidate.name === 'string' ? candidate.name : undefined,
      code: typeof candidate.code === 'string' ? candidate.code : undefined,
      message: typeof candidate.message === 'string' ? candidate.message.slice(0, 500) : undefined,
    };
  }
  return { message: String(error).slice(0, 500) };
}
