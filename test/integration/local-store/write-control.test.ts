import { BatchWriteItemCommand, GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureTables } from '../../../infra/local/embedded-store.js';
import { listenDynalite, type DynaliteServer } from '../../../infra/local/store/dynalite-server.js';
import { controlStoreWrites, type StoreWriteControl } from '../../../infra/local/store/write-pressure.js';
import { localStoreClient } from '../../../infra/local/ttl-sweeper.js';
import { LOGS_TABLE } from '../../../shared/store/table-definitions.js';
import { REGION, storeClient } from './store-support.js';

// The store's write control (infra/local/store/write-pressure.ts) on a real dynalite: while the log cap deletes,
// gw's batch writes wait (at most the hold limit) and everything else goes through; housekeeping's own calls are
// neither held nor counted as writes.

const TABLE = 'wc-logs';
const write = (client: DynamoDBClient, id: string) => client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: [{ PutRequest: { Item: { pk: { S: id }, sk: { S: 'x' } } } }] } }));
const settledFlag = (promise: Promise<unknown>) => {
  const state = { settled: false };
  void promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
};

describe('store write control', () => {
  let store: DynaliteServer | undefined;
  const clients: DynamoDBClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await store?.close();
  });

  async function start(maxHoldMs: number): Promise<{ control: StoreWriteControl; writes: () => number; gw: DynamoDBClient; housekeeping: DynamoDBClient }> {
    store = await listenDynalite(':memory:');
    let writes = 0;
    const control = controlStoreWrites(store.server, () => writes++, maxHoldMs);
    const endpoint = `http://127.0.0.1:${store.port}`;
    await ensureTables(endpoint, REGION, [{ definition: LOGS_TABLE, name: TABLE }]);
    const gw = storeClient(endpoint);
    const housekeeping = localStoreClient(endpoint, REGION);
    clients.push(gw, housekeeping);
    return { control, writes: () => writes, gw, housekeeping };
  }

  it('holds gw batch writes until the prioritised work ends; reads and housekeeping calls go through meanwhile', async () => {
    const { control, writes, gw, housekeeping } = await start(60_000);
    let finish!: () => void;
    let workDone = false;
    const work = control.prioritise(() => new Promise<void>((resolve) => (finish = resolve))).then(() => (workDone = true));

    const held = write(gw, 'from-gw');
    const heldState = settledFlag(held);
    // Answered while the write waits: a read of gw, and a batch write of housekeeping.
    expect((await gw.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'from-gw' }, sk: { S: 'x' } } }))).Item).toBeUndefined();
    await write(housekeeping, 'from-housekeeping');
    expect(heldState.settled).toBe(false);

    finish();
    await work;
    await held;
    expect(workDone).toBe(true);
    const stored = await gw.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'from-gw' }, sk: { S: 'x' } } }));
    expect(stored.Item?.pk.S).toBe('from-gw');
    // One write of gw counted (it can trigger a cap check); housekeeping's own deletes and writes never are.
    expect(writes()).toBe(1);
  });

  it('a held write goes through after the hold limit even while the work runs on', async () => {
    const { control, gw } = await start(200);
    let finish!: () => void;
    let workDone = false;
    const work = control.prioritise(() => new Promise<void>((resolve) => (finish = resolve))).then(() => (workDone = true));
    await write(gw, 'late');
    expect(workDone).toBe(false);
    finish();
    await work;
  });

  it('outside prioritised work nothing is held', async () => {
    const { control, gw, writes } = await start(60_000);
    await control.prioritise(async () => undefined);
    await write(gw, 'a');
    await write(gw, 'b');
    expect(writes()).toBe(2);
  });
});
