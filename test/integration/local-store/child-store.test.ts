import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTables, startEmbeddedStore } from '../../../infra/local/embedded-store.js';
import { childrenOf, isAlive, storeClient, until, REGION } from './store-support.js';

// The default local store: dynalite in a process of its own, started and closed by the gw process.

const TABLE = { definition: { id: 'main', nameSetting: 'GW_TABLE_MAIN', partitionKey: 'pk', sortKey: 'sk', globalIndexes: [], ttlAttribute: 'ttl' } as never, name: 'child-store-table' };
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-child-store-'));
  dirs.push(dir);
  return dir;
};

beforeAll(() => {
  process.env.GW_LOCAL_STORE = 'child';
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function putAndGet(endpoint: string, pk: string): Promise<string | undefined> {
  const client = storeClient(endpoint);
  try {
    await client.send(new PutItemCommand({ TableName: TABLE.name, Item: { pk: { S: pk }, sk: { S: 'x' }, note: { S: `note of ${pk}` } } }));
    return (await client.send(new GetItemCommand({ TableName: TABLE.name, Key: { pk: { S: pk }, sk: { S: 'x' } } }))).Item?.note?.S;
  } finally {
    client.destroy();
  }
}

describe('the store process', () => {
  it('in memory: starts in a child process, serves the SDK, and is gone after close', async () => {
    const store = await startEmbeddedStore(':memory:');
    expect(store.kind).toBe('child');
    expect(store.pid).toBeGreaterThan(0);
    expect(store.pid).not.toBe(process.pid);
    expect(childrenOf(process.pid)).toContain(store.pid);
    await ensureTables(store.endpoint, REGION, [TABLE]);
    expect(await putAndGet(store.endpoint, 'a')).toBe('note of a');
    await store.close();
    expect(isAlive(store.pid!)).toBe(false);
    await expect(fetch(store.endpoint)).rejects.toThrow();
    // A second close is harmless.
    await store.close();
  }, 60_000);

  it('with a data directory: what was written is there after a restart', async () => {
    const dir = tempDir();
    const first = await startEmbeddedStore(dir);
    await ensureTables(first.endpoint, REGION, [TABLE]);
    expect(await putAndGet(first.endpoint, 'kept')).toBe('note of kept');
    await first.close();
    expect(existsSync(join(dir, 'dynamodb'))).toBe(true);

    const second = await startEmbeddedStore(dir);
    try {
      const client = storeClient(second.endpoint);
      const item = await client.send(new GetItemCommand({ TableName: TABLE.name, Key: { pk: { S: 'kept' }, sk: { S: 'x' } } }));
      client.destroy();
      expect(item.Item?.note?.S).toBe('note of kept');
    } finally {
      await second.close();
    }
  }, 60_000);

  it('a data directory another store holds: a clear error, and no store process left behind', async () => {
    const dir = tempDir();
    const holder = await startEmbeddedStore(dir);
    try {
      const before = childrenOf(process.pid);
      await expect(startEmbeddedStore(dir)).rejects.toThrow(/could not open the local store: .*is another gw using/);
      await until(() => childrenOf(process.pid).length <= before.length, 'the failed store process exits');
    } finally {
      await holder.close();
    }
  }, 60_000);

  it('exits by itself when its parent dies, even by SIGKILL', async () => {
    // A parent of its own (tsx, like npm start), printing its store's pid; then killed without a chance to close.
    const script = `
      const { startEmbeddedStore } = await import(${JSON.stringify(new URL('../../../infra/local/embedded-store.ts', import.meta.url).href)});
      const store = await startEmbeddedStore(':memory:');
      console.log('STORE ' + store.pid + ' ' + store.endpoint);
      setInterval(() => undefined, 1000);
    `;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], { env: { ...process.env, GW_LOCAL_STORE: 'child' }, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    parent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => parent.once('exit', resolve));
    await until(() => /STORE \d+/.test(output), 'the parent reports its store', 60_000);
    const [, pid, endpoint] = /STORE (\d+) (\S+)/.exec(output)!;
    const storePid = Number(pid);
    expect(isAlive(storePid)).toBe(true);
    expect((await fetch(endpoint, { method: 'POST' })).status).toBeGreaterThanOrEqual(400);

    parent.kill('SIGKILL');
    await exited;
    await until(() => !isAlive(storePid), 'the orphaned store process exits');
    await expect(fetch(endpoint, { method: 'POST' })).rejects.toThrow();
  }, 90_000);

  it('GW_LOCAL_STORE must be child or in-process', async () => {
    process.env.GW_LOCAL_STORE = 'elsewhere';
    try {
      await expect(startEmbeddedStore(':memory:')).rejects.toThrow('GW_LOCAL_STORE: must be child or in-process (got "elsewhere")');
    } finally {
      process.env.GW_LOCAL_STORE = 'child';
    }
  });

  it('GW_LOCAL_STORE=in-process keeps dynalite in this process', async () => {
    process.env.GW_LOCAL_STORE = 'in-process';
    try {
      const before = childrenOf(process.pid).length;
      const store = await startEmbeddedStore(':memory:');
      expect(store.kind).toBe('in-process');
      expect(childrenOf(process.pid).length).toBe(before);
      await ensureTables(store.endpoint, REGION, [TABLE]);
      expect(await putAndGet(store.endpoint, 'here')).toBe('note of here');
      await store.close();
    } finally {
      process.env.GW_LOCAL_STORE = 'child';
    }
  });
});
