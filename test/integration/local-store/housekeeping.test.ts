import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PutItemCommand, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTables, startEmbeddedStore, type LocalStore } from '../../../infra/local/embedded-store.js';
import type { HousekeepingPlan } from '../../../infra/local/store/housekeeping.js';
import { CACHE_TABLE, LOGS_TABLE, MAIN_TABLE } from '../../../shared/store/table-definitions.js';
import { storeClient, REGION } from './store-support.js';

// The TTL sweep and the blob folder's lifecycle, run where the data lives: in the store process (default) and,
// for whoever runs GW_LOCAL_STORE=in-process, in the gw process. The gw process only sends the plan. Request logs
// are not the store's any more (the log engine keeps them; see test/integration/observability/log-engine-*.test.ts).

const NAMES = { main: 'hk-main', cache: 'hk-cache', logs: 'hk-logs' };
const now = Math.floor(Date.now() / 1000);

function plan(overrides: Partial<HousekeepingPlan> = {}): HousekeepingPlan {
  return {
    region: REGION,
    intervalMs: 0,
    tables: [MAIN_TABLE, CACHE_TABLE, LOGS_TABLE].map((definition) => ({ name: NAMES[definition.id], partitionKey: 'pk', sortKey: 'sk', aheadSeconds: 0 })),
    ...overrides,
  };
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

  beforeAll(async () => {
    process.env.GW_LOCAL_STORE = mode;
    store = await startEmbeddedStore(':memory:');
    expect(store.kind).toBe(mode);
    await ensureTables(store.endpoint, REGION, [MAIN_TABLE, CACHE_TABLE, LOGS_TABLE].map((definition) => ({ definition, name: NAMES[definition.id] })));
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  it('one pass: expired items go from every table, live ones stay', async () => {
    await put(NAMES.cache, [
      { pk: { S: 'expired-entry' }, sk: { S: 'ENTRY' }, ttl: { N: String(now - 5) } },
      { pk: { S: 'live-entry' }, sk: { S: 'ENTRY' }, ttl: { N: String(now + 600) } },
    ]);
    await put(NAMES.main, [{ pk: { S: 'COUNTER#old' }, sk: { S: 'W' }, ttl: { N: String(now - 5) } }, { pk: { S: 'WS#ws1' }, sk: { S: 'META' } }]);
    await put(NAMES.logs, [
      { pk: { S: 'WS#ws1#EXPORT#x1' }, sk: { S: 'EXPORT' }, ttl: { N: String(now - 5) } },
      { pk: { S: 'WS#ws1#EXPORT#x2' }, sk: { S: 'EXPORT' }, ttl: { N: String(now + 600) } },
    ]);

    await store.housekeeping!.start(plan());
    expect(await store.housekeeping!.pass()).toEqual({ expired: 3, expiredBlobs: 0 });

    expect((await scan(NAMES.cache)).map((item) => item.pk.S)).toEqual(['live-entry']);
    expect((await scan(NAMES.main)).map((item) => item.pk.S)).toEqual(['WS#ws1']);
    expect((await scan(NAMES.logs)).map((item) => item.pk.S)).toEqual(['WS#ws1#EXPORT#x2']);
    // Nothing expired: a pass deletes nothing.
    expect(await store.housekeeping!.pass()).toEqual({ expired: 0, expiredBlobs: 0 });
  });

  it('the local blob folder: files outlive their retention no longer', async () => {
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
      // Retention: log bodies 1 h here, everything else 1 day (the bucket rule).
      const freshLog = file('logs/ws1/new-request.json');
      const staleLog = file('logs/ws1/orphan-request.json', 2 * 3_600);
      const staleExport = file('exports/ws1/x1.ndjson', 2 * 86_400);
      const freshExport = file('exports/ws1/x2.ndjson', 3_600);

      await store.housekeeping!.start(plan({ blobs: { directory, logsMaxAgeSeconds: 3_600, othersMaxAgeSeconds: 86_400 } }));
      const report = await store.housekeeping!.pass();
      expect(report.expiredBlobs).toBe(2);
      expect([freshLog, staleLog, staleExport, freshExport].map(existsSync)).toEqual([true, false, false, true]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('a pass before any plan is refused; after stop, the plan is gone', async () => {
    await store.housekeeping!.stop();
    await expect(store.housekeeping!.pass()).rejects.toThrow('no housekeeping plan was sent');
  });
});
