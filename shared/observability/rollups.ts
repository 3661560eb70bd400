import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../settings.js';
import { dynamoDocumentClient } from '../store/dynamo-client.js';
import { logKeys } from '../store/log-keys.js';
import { LOGS_TABLE, tableName } from '../store/table-definitions.js';
import { onDrain } from './background.js';
import { latencyAttribute } from './latency-histogram.js';
import { logger } from './logger.js';
import type { RequestLogRecord } from './log-record.js';

const DAY_SECONDS = 86_400;
const FLUSH_DELAY_MS = 500;
const PARALLEL_UPDATES = 8;

/** The counters of one rollup item; every one is added with DynamoDB's atomic ADD. */
export interface RollupCounters {
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
  cache_hits: number;
  [latencyBucket: `lat_${string}`]: number;
}

/** The hour bucket of a time: `2026-11-24T03:00:00Z`. */
export function hourBucket(iso: string): string {
  return `${iso.slice(0, 13)}:00:00Z`;
}

/**
 * The rollup items one request adds to: per workspace (in its organisation's partition, so an admin can group
 * by workspace), per model, provider, API key, and per metadata key=value.
 */
export function rollupTargets(record: RequestLogRecord): Array<{ pk: string; key: string; dimension: string }> {
  const ws = record.workspace_id;
  const targets = [{ pk: logKeys.rollupPartition('ORG', record.organisation_id, 'workspace'), key: ws, dimension: 'workspace' }];
  const add = (dimension: string, key: string | null) => {
    if (key) targets.push({ pk: logKeys.rollupPartition('WS', ws, dimension), key, dimension });
  };
  add('model', record.model);
  add('provider', record.provider);
  add('api_key', record.api_key_id);
  for (const [name, value] of Object.entries(record.metadata)) add(`metadata.${name}`, value);
  return targets;
}

/** One rollup item's increments, summed until the next flush. */
interface PendingRollup {
  pk: string;
  sk: string;
  bucket: string;
  key: string;
  counters: Record<string, number>;
}

/**
 * Hourly rollups, summed in memory per item and written with atomic ADDs: under load many requests cost one
 * update per item and flush; a Lambda flushes at the end of each invocation (drain), so nothing is lost.
 */
class RollupAccumulator {
  private pending = new Map<string, PendingRollup>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor() {
    onDrain(() => this.flush());
  }

  add(record: RequestLogRecord): void {
    const bucket = hourBucket(record.created_at);
    const increments: Record<string, number> = {
      requests: 1,
      errors: record.outcome === 'error' ? 1 : 0,
      prompt_tokens: record.usage?.prompt_tokens ?? 0,
      completion_tokens: record.usage?.completion_tokens ?? 0,
      cost: record.cost ?? 0,
      cache_hits: record.cache_status === 'HIT' || record.cache_status === 'SEMANTIC HIT' ? 1 : 0,
      [latencyAttribute(record.latency_ms)]: 1,
    };
    for (const target of rollupTargets(record)) {
      const sk = logKeys.rollupSort(bucket, target.key);
      const id = `${target.pk}\u0000${sk}`;
      let entry = this.pending.get(id);
      if (!entry) {
        entry = { pk: target.pk, sk, bucket, key: target.key, counters: {} };
        this.pending.set(id, entry);
      }
      for (const [name, value] of Object.entries(increments)) entry.counters[name] = (entry.counters[name] ?? 0) + value;
    }
    this.timer ??= setTimeout(() => {
      this.flush().catch((error: unknown) => logger.error('rollup flush failed', { error: error as Error }));
    }, FLUSH_DELAY_MS).unref();
  }

  /**
   * Writes what is held. Each flush runs after the one before it has finished, and returns only then: a drain's
   * flush that finds nothing new still waits for the writes a timer flush has in flight, so a Lambda never freezes
   * (and a local shutdown never closes the store) in the middle of them.
   */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const entries = [...this.pending.values()];
    this.pending.clear();
    const current = this.flushing.then(() => this.write(entries));
    this.flushing = current.catch(() => undefined);
    return current;
  }

  private async write(entries: PendingRollup[]): Promise<void> {
    const table = tableName(settings(), LOGS_TABLE);
    const retentionSeconds = settings().METRICS_RETENTION_DISPLAY * DAY_SECONDS;
    for (let start = 0; start < entries.length; start += PARALLEL_UPDATES) {
      await Promise.all(entries.slice(start, start + PARALLEL_UPDATES).map((entry) => addToRollup(table, entry, retentionSeconds)));
    }
  }
}

async function addToRollup(table: string, entry: PendingRollup, retentionSeconds: number): Promise<void> {
  const names: Record<string, string> = { '#bucket': 'bucket', '#key': 'key', '#ttl': 'ttl' };
  const values: Record<string, unknown> = { ':bucket': entry.bucket, ':key': entry.key, ':ttl': Math.floor(Date.parse(entry.bucket) / 1000) + retentionSeconds };
  const adds = Object.entries(entry.counters)
    .filter(([, value]) => value !== 0)
    .map(([name, value], index) => {
      names[`#c${index}`] = name;
      values[`:c${index}`] = value;
      return `#c${index} :c${index}`;
    });
  if (adds.length === 0) return;
  await dynamoDocumentClient().send(
    new UpdateCommand({
      TableName: table,
      Key: { pk: entry.pk, sk: entry.sk },
      UpdateExpression: `SET #bucket = :bucket, #key = :key, #ttl = :ttl ADD ${adds.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
}

let accumulator: RollupAccumulator | undefined;

/** Adds a finished request to its hourly rollups (written within half a second, or at the drain). */
export function addToRollups(record: RequestLogRecord): void {
  (accumulator ??= new RollupAccumulator()).add(record);
}
