import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callsBetween, sequentialDepth, startStoreProxy, waitForQuiet, type StoreProxy } from '../../../bench/measure/store-proxy.js';

/** The AWS-shaped bench's store proxy, between the real SDK and a real dynalite. */
describe('bench store proxy', () => {
  let store: Server;
  let proxy: StoreProxy;
  let client: DynamoDBClient;

  beforeAll(async () => {
    store = dynalite({ createTableMs: 0 });
    await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', () => resolve()));
    proxy = await startStoreProxy(`http://127.0.0.1:${(store.address() as AddressInfo).port}`, 2);
    client = new DynamoDBClient({ endpoint: proxy.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await client.send(
      new CreateTableCommand({
        TableName: 'bench-proxy',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
  });
  afterAll(async () => {
    client.destroy();
    await proxy.close();
    await new Promise<void>((resolve) => {
      store.close(() => resolve());
      store.closeAllConnections();
    });
  });

  it('forwards every call and records its operation, arrival and answer', async () => {
    const from = performance.now();
    await client.send(new PutItemCommand({ TableName: 'bench-proxy', Item: { pk: { S: 'a' }, value: { N: '1' } } }));
    const read = await client.send(new GetItemCommand({ TableName: 'bench-proxy', Key: { pk: { S: 'a' } } }));
    expect(read.Item?.value).toEqual({ N: '1' });
    const calls = callsBetween(proxy.calls, from, performance.now());
    expect(calls.map((call) => call.operation)).toEqual(['PutItem', 'GetItem']);
    for (const call of calls) expect(call.answeredAt).toBeGreaterThanOrEqual(call.receivedAt);
    expect(proxy.inFlight()).toBe(0);
  });

  it('tells calls made one after another from calls made side by side', async () => {
    const get = () => client.send(new GetItemCommand({ TableName: 'bench-proxy', Key: { pk: { S: 'a' } } }));
    let from = performance.now();
    await get();
    await get();
    expect(sequentialDepth(callsBetween(proxy.calls, from, performance.now()), performance.now())).toBe(2);
    from = performance.now();
    await Promise.all([get(), get(), get()]);
    const concurrent = callsBetween(proxy.calls, from, performance.now());
    expect(concurrent).toHaveLength(3);
    expect(sequentialDepth(concurrent, performance.now())).toBe(1);
  });

  it('waits for a quiet store', async () => {
    await expect(waitForQuiet(proxy, 20, 5_000)).resolves.toBe(true);
    expect(performance.now() - proxy.lastActivityAt()).toBeGreaterThanOrEqual(20);
    // Counted from `since` when that is later than the last call: a request's after-path may not have started yet.
    const since = performance.now();
    await expect(waitForQuiet(proxy, 20, 5_000, since)).resolves.toBe(true);
    expect(performance.now() - since).toBeGreaterThanOrEqual(20);
    // A store that keeps being called never goes quiet: the wait gives up.
    const sent: Array<Promise<unknown>> = [];
    const busy = setInterval(() => sent.push(client.send(new GetItemCommand({ TableName: 'bench-proxy', Key: { pk: { S: 'a' } } }))), 5);
    try {
      await expect(waitForQuiet(proxy, 200, 300)).resolves.toBe(false);
    } finally {
      clearInterval(busy);
      await Promise.all(sent);
    }
  });

  it('answers 502 when the store behind it is gone, and still records the call', async () => {
    const dead = await startStoreProxy('http://127.0.0.1:1', 0);
    const deadClient = new DynamoDBClient({ endpoint: dead.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
    try {
      await expect(deadClient.send(new GetItemCommand({ TableName: 'bench-proxy', Key: { pk: { S: 'a' } } }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 502 } });
      expect(dead.calls.map((call) => call.operation)).toEqual(['GetItem']);
      expect(dead.inFlight()).toBe(0);
    } finally {
      deadClient.destroy();
      await dead.close();
    }
  });
});
