import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Settings } from '../../settings.js';
import { TABLES } from '../table-definitions.js';

/**
 * Test-only record of every AWS operation gw's code issues, so the CDK grants can be derived from behaviour
 * (scripts/check-grants.ts compares them with each function's synthesised role).
 *
 * Switched on by the environment variable GW_RECORD_AWS_OPERATIONS_DIR (set in vitest.config.ts). It is a switch
 * of the test harness, not a gw setting: it is read here directly and the stack refuses it as a setting. When it
 * is unset, every function here is a no-op that costs one comparison, and nothing is attached to any client.
 *
 * Which Lambda issued an operation comes from the code path: each function's handler runs inside
 * `runAsFunction(name, …)` (see `labelHandler`), an AsyncLocalStorage label that follows the promises, timers and
 * streams the invocation starts. Operations issued outside any handler (the local runtime's bootstrap, unit
 * tests calling a repository directly) are recorded without a function and checked against nothing.
 */
export type RecordedFunction = 'gateway' | 'control-plane' | 'expire-api-keys' | 'restore-budgets' | 'compact-request-logs';

/** The AWS services gw's code calls through an SDK client (each client goes through `recordedClient`). */
export type RecordedService = 'dynamodb' | 'secretsmanager' | 's3' | 'firehose' | 'athena' | 'glue' | 'sts';

export interface RecordedOperation {
  fn?: RecordedFunction;
  service: RecordedService;
  action: string;
  /**
   * `table/<id>` or `table/<id>/index/<name>` (id as in table-definitions.ts, or `?<name>` for a table gw does not
   * define), `secret/<full secret name>`, `bucket/blobs/<key>` or `bucket/blobs` (the stack's blob bucket), `bucket/log-results[/<key>]` (request-log
   * query results and exports); for the
   * services checked by action only, what the input names (sdk-recording-middleware.ts).
   */
  resource: string;
}

const RECORDING_DIR = process.env.GW_RECORD_AWS_OPERATIONS_DIR;
const label = new AsyncLocalStorage<RecordedFunction>();
const written = new Set<string>();
const counts = new Map<string, number>();

export function isRecordingAwsOperations(): boolean {
  return RECORDING_DIR !== undefined && RECORDING_DIR !== '';
}

/** Runs `work` as the named function: every AWS operation it (and what it starts) issues is attributed to it. */
export function runAsFunction<T>(fn: RecordedFunction, work: () => T): T {
  return isRecordingAwsOperations() ? label.run(fn, work) : work();
}

/**
 * Wraps a Lambda handler so its invocations run as `fn`. Returns the handler itself when not recording (so the
 * deployed code is untouched); otherwise a wrapper that keeps the handler's own properties, such as the marker
 * `awslambda.streamifyResponse` puts on a streaming handler.
 */
export function labelHandler<H extends (...args: never[]) => unknown>(fn: RecordedFunction, handler: H): H {
  if (!isRecordingAwsOperations()) return handler;
  const wrapper = (...args: Parameters<H>) => label.run(fn, () => handler(...args));
  return Object.assign(wrapper, handler) as unknown as H;
}

/**
 * Captures the current function label, for work that is queued by one invocation and sent later by whoever
 * flushes (write-behind buffers): running the send through the returned runner attributes it to the queuer.
 */
export function captureFunctionContext(): <R>(work: () => R) => R {
  if (!isRecordingAwsOperations()) return (work) => work();
  const fn = label.getStore();
  return fn === undefined ? (work) => work() : (work) => label.run(fn, work);
}

/** Records one operation (deduplicated per process in the file; every call counted in memory). */
export function recordAwsOperation(operation: Omit<RecordedOperation, 'fn'>): void {
  if (!isRecordingAwsOperations()) return;
  const line = JSON.stringify({ fn: label.getStore(), ...operation } satisfies RecordedOperation);
  counts.set(line, (counts.get(line) ?? 0) + 1);
  if (written.has(line)) return;
  written.add(line);
  const directory = resolve(RECORDING_DIR as string);
  mkdirSync(directory, { recursive: true });
  appendFileSync(join(directory, `${process.pid}.jsonl`), `${line}\n`);
}

/** How many times each operation was issued in this process since the last reset (for request-cost tests). */
export function recordedOperationCounts(): Array<RecordedOperation & { count: number }> {
  return [...counts.entries()].map(([line, count]) => ({ ...(JSON.parse(line) as RecordedOperation), count }));
}

export function resetRecordedOperationCounts(): void {
  counts.clear();
  capacity.clear();
}

/**
 * DynamoDB capacity units, measured on request (request-cost tests): while on, every recorded DynamoDB item command
 * asks for `ReturnConsumedCapacity: TOTAL` and the units the store answers are summed per operation and table, with
 * the same function label as the counts. Off by default, so other tests send exactly what the code sends.
 */
let measuringCapacity = false;
const capacity = new Map<string, number>();

export function measureConsumedCapacity(on: boolean): void {
  measuringCapacity = on;
}

export function isMeasuringConsumedCapacity(): boolean {
  return measuringCapacity && isRecordingAwsOperations();
}

export function recordConsumedCapacity(operation: Omit<RecordedOperation, 'fn'>, units: number): void {
  if (!isMeasuringConsumedCapacity()) return;
  const line = JSON.stringify({ fn: label.getStore(), ...operation } satisfies RecordedOperation);
  capacity.set(line, (capacity.get(line) ?? 0) + units);
}

/** The capacity units each operation consumed since the last reset (only while measuring). */
export function recordedConsumedCapacity(): Array<RecordedOperation & { units: number }> {
  return [...capacity.entries()].map(([line, units]) => ({ ...(JSON.parse(line) as RecordedOperation), units }));
}

/** `table/<id>` for a table name, using the process's settings to map names back to definitions. */
export function tableResource(current: Settings, tableName: string, indexName?: string): string {
  const definition = TABLES.find((table) => current[table.nameSetting] === tableName);
  const table = `table/${definition?.id ?? `?${tableName}`}`;
  return indexName ? `${table}/index/${indexName}` : table;
}
