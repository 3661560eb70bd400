import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PutItemCommand, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTables, startEmbeddedStore, type LocalStore } from '../../../infra/local/embedded-store.js';
import type { HousekeepingPlan } from '../../../infra/local/store/housekeeping.js';
import { logKeys } from '../../../shared/store/log-keys.js';
import { CACHE_TABLE, LOGS_TABLE, MAIN_TABLE } from '../../../shared/store/table-definitions.js';
import { storeClient, until, REGION } from './store-support.js';

// The TTL sweep and the request-log count cap, run where the data lives: in the store process (default) and,
// for whoever runs GW_LOCAL_STORE=in-process, in the gw process. The gw process only sends the plan.

const NAMES = { main: 'hk-main', cache: 'hk-cache', logs: 'hk-logs' };
const now = Math.floor(Date.now() / 1000);

function plan(overrides: Partial<HousekeepingPlan> = {}, maxRecords = 3): HousekeepingPlan {
  return {
    region: REGION,
    intervalMs: 0,
    tables: [MAIN_TABLE, CACHE_TABLE, LOGS_TABLE].map((definition) => ({ name: NAMES[definition.id], partitionKey: 'pk', sortKey: 'sk', aheadSeconds: 0 })),
    logCap: { table: NAMES.logs, maxRecords },
    ...overrides,
  };
}

/**
 * A request-log record with index rows pointing back: the `id` row request-log.ts writes, and a `status=200` row
 * as records written before that value stopped being indexed kept (the cap must take those too).
 */
function logItems(minute: number, id: string): Array<Record<string, AttributeValue>> {
  const createdAt = new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString();
  const key = logKeys.record(`trace-${id}`, createdAt, id);
  const timeKey = logKeys.timeKey(createdAt, id);
  const ttl = { N: String(now + 86_400) };
  return [
    { pk: { S: key.pk }, sk: { S: key.sk }, gsi1pk: { S: logKeys.workspaceTimeline('ws1') }, gsi1sk: { S: timeKey }, id: { S: id }, workspace_id: { S: 'ws1' }, api_key_id: { S: 'key1' }, status: { N: '200' }, outcome: { S: 'success' }, ttl },
    ...(['id', 'status'] as const).map((field) => ({ pk: { S: logKeys.index('ws1', field, field === 'id' ? id : '200') }, sk: { S: timeKey }, ref_pk: { S: key.pk }, ref_sk: { S: key.sk }, ttl })),
  ];
}

describe.each(['child', 'in-process'] as const)('housekeeping with GW_LOCAL_STORE=%s', (mode) => {
  let store: LocalStore;
  const client = () => storeClient(store.endpoint);
  const put = async (table: string, items: Array<Record<string, AttributeValue>>) => {
    const c = client();
    for (const Item of items) await c.send(new PutItemCommand({ TableName: table, Item }));
    c.destroy();
  };
  const scan = async (table: string) => {
    const c = client();
    const items = (await c.send(new ScanCommand({ TableName: table }))).Items ?? [];
    c.destroy();
    return items;
  };
  const recordIds = async () => (await scan(NAMES.logs)).filter((item) => item.pk.S!.startsWith('TRACE#')).map((item) => item.id.S).sort();

  beforeAll(async () => {
    process.env.GW_LOCAL_STORE = mode;
    store = await startEmbeddedStore(':memory:');
    expect(store.kind).toBe(mode);
    await ensureTables(store.endpoint, REGION, [MAIN_TABLE, CACHE_TABLE, LOGS_TABLE].map((definition) => ({ definition, name: NAMES[definition.id] })));
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  it('one pass: expired items go from every table, request logs down to the cap (oldest first, with their index rows)', async () => {
    await put(NAMES.cache, [
      { pk: { S: 'expired-entry' }, sk: { S: 'ENTRY' }, ttl: { N: String(now - 5) } },
      { pk: { S: 'live-entry' }, sk: { S: 'ENTRY' }, ttl: { N: String(now + 600) } },
    ]);
    await put(NAMES.main, [{ pk: { S: 'COUNTER#old' }, sk: { S: 'W' }, ttl: { N: String(now - 5) } }, { pk: { S: 'WS#ws1' }, sk: { S: 'META' } }]);
    for (const [minute, id] of [[5, 'e'], [1, 'a'], [3, 'c'], [2, 'b'], [4, 'd']] as const) await put(NAMES.logs, logItems(minute, id));
    // Rollups and export jobs share the logs table; the cap never touches them, whatever their sort key.
    await put(NAMES.logs, [
      { pk: { S: logKeys.rollupPartition('WS', 'ws1', 'model') }, sk: { S: logKeys.rollupSort('2025-01-01T00', 'gpt') } },
      { pk: { S: logKeys.exportJob('ws1', 'x1').pk }, sk: { S: 'EXPORT' } },
    ]);

    await store.housekeeping!.start(plan());
    expect(await store.housekeeping!.pass()).toEqual({ expired: 2, capped: 2, expiredBlobs: 0 });

    expect((await scan(NAMES.cache)).map((item) => item.pk.S)).toEqual(['live-entry']);
    expect((await scan(NAMES.main)).map((item) => item.pk.S)).toEqual(['WS#ws1']);
    expect(await recordIds()).toEqual(['c', 'd', 'e']);
    const logs = await scan(NAMES.logs);
    const indexRows = logs.filter((item) => item.ref_pk);
    expect(indexRows.map((item) => item.ref_pk.S).sort()).toEqual(['TRACE#trace-c', 'TRACE#trace-c', 'TRACE#trace-d', 'TRACE#trace-d', 'TRACE#trace-e', 'TRACE#trace-e']);
    expect(logs.some((item) => item.sk.S === 'EXPORT')).toBe(true);
    expect(logs.some((item) => item.pk.S!.includes('#ROLLUP#'))).toBe(true);

    // Under the cap and nothing expired: a pass deletes nothing.
    expect(await store.housekeeping!.pass()).toEqual({ expired: 0, capped: 0, expiredBlobs: 0 });
  });

  it('a burst of writes gets the log cap checked without waiting for the timer', async () => {
    await store.housekeeping!.start(plan({ writesPerCapCheck: 4 }, 2));
    // Four single writes: the fourth answered triggers the check (the timer is off: intervalMs 0).
    for (const [minute, id] of [[6, 'f'], [7, 'g'], [8, 'h'], [9, 'i']] as const) await put(NAMES.logs, logItems(minute, id).slice(0, 1));
    await until(async () => (await recordIds()).length === 2, 'the cap ran after the burst');
    expect(await recordIds()).toEqual(['h', 'i']);
  });

  it('the local blob folder: log bodies go with their capped record, and files outlive their retention no longer', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'gw-hk-blobs-'));
    const file = (key: string, ageSeconds = 0) => {
      const path = join(directory, ...key.split('/'));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, '{}');
      const at = (Date.now() - ageSeconds * 1000) / 1000;
      utimesSync(path, at, at);
      return path;
    };
    try {
      // Two records over a cap of 1: the older one's bodies sit in the folder.
      const withBodies = (minute: number, id: string) => {
        const [record, ...rest] = logItems(minute, id);
        return [{ ...record, request_body_ref: { S: `logs/ws1/${id}-request.json` }, response_body_ref: { S: `logs/ws1/${id}-response.json` } }, ...rest];
      };
      await put(NAMES.logs, withBodies(20, 'old'));
      await put(NAMES.logs, withBodies(21, 'new'));
      const oldBodies = [file('logs/ws1/old-request.json'), file('logs/ws1/old-response.json')];
      const newBodies = [file('logs/ws1/new-request.json'), file('logs/ws1/new-response.json')];
      // Retention: log bodies 1 h here, everything else 1 day (the bucket rule).
      const staleLog = file('logs/ws1/orphan-request.json', 2 * 3_600);
      const staleExport = file('exports/ws1/x1.ndjson', 2 * 86_400);
      const freshExport = file('exports/ws1/x2.ndjson', 3_600);

      await store.housekeeping!.start(plan({ blobs: { directory, logsMaxAgeSeconds: 3_600, othersMaxAgeSeconds: 86_400 } }, 1));
      const report = await store.housekeeping!.pass();
      expect(report.expiredBlobs).toBe(2);
      expect(await recordIds()).toEqual(['new']);
      expect(oldBodies.map(existsSync)).toEqual([false, false]);
      expect(newBodies.map(existsSync)).toEqual([true, true]);
      expect([staleLog, staleExport, freshExport].map(existsSync)).toEqual([false, false, true]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('a pass before any plan is refused; after stop, the plan is gone', async () => {
    await store.housekeeping!.stop();
    await expect(store.housekeeping!.pass()).rejects.toThrow('no housekeeping plan was sent');
  });
});
