import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTables } from '../../../infra/local/embedded-store.js';
import { listenDynalite, type DynaliteServer } from '../../../infra/local/store/dynalite-server.js';
import { TABLES } from '../../../shared/store/table-definitions.js';
import { REGION, storeClient } from './store-support.js';

// A fresh external store (GW_DYNAMODB_ENDPOINT) creates tables asynchronously, as DynamoDB does: a new table is
// CREATING for a while and answers ResourceNotFoundException to reads and writes. The stand-in below is dynalite
// behind a proxy that makes each created table answer so for its first DESCRIBES_WHILE_CREATING DescribeTable calls.

const DESCRIBES_WHILE_CREATING = 3;
const NOT_FOUND = JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException', message: 'Requested resource not found' });
let dynalite: DynaliteServer;
let proxy: Server;
let endpoint: string;
const creating = new Map<string, number>();

function startSlowCreatingStore(target: number): Promise<Server> {
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const operation = String(incoming.headers['x-amz-target'] ?? '').split('.').pop();
      const table = (JSON.parse(body.toString() || '{}') as { TableName?: string }).TableName ?? '';
      if (operation !== 'CreateTable' && operation !== 'DescribeTable' && creating.has(table)) {
        outgoing.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' }).end(NOT_FOUND);
        return;
      }
      const forwarded = httpRequest({ host: '127.0.0.1', port: target, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (part: Buffer) => parts.push(part));
        answer.on('end', () => {
          let text = Buffer.concat(parts).toString();
          if (operation === 'CreateTable' && answer.statusCode === 200) creating.set(table, DESCRIBES_WHILE_CREATING);
          const left = creating.get(table);
          if (left !== undefined && (operation === 'CreateTable' || operation === 'DescribeTable')) {
            text = text.replace('"TableStatus":"ACTIVE"', '"TableStatus":"CREATING"');
            if (operation === 'DescribeTable' && left > 1) creating.set(table, left - 1);
            else if (operation === 'DescribeTable') creating.delete(table);
          }
          // The body changed: its checksum header no longer applies.
          const { 'x-amz-crc32': _crc, 'content-length': _length, ...headers } = answer.headers;
          outgoing.writeHead(answer.statusCode ?? 500, headers).end(text);
        });
      });
      forwarded.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  dynalite = await listenDynalite(':memory:');
  proxy = await startSlowCreatingStore(dynalite.port);
  endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await dynalite.close();
});

describe('creating the tables on a fresh external store', () => {
  it('returns only once every created table is ACTIVE, so the first writes find them', async () => {
    const tables = TABLES.map((definition) => ({ definition, name: `fresh-${definition.id}` }));
    await ensureTables(endpoint, REGION, tables);
    expect(tables.map(({ name }) => name)).toEqual(['fresh-main', 'fresh-cache', 'fresh-logs']);
    expect([...creating.keys()]).toEqual([]);
    const client = storeClient(endpoint);
    try {
      for (const { definition, name } of tables) {
        await client.send(new PutItemCommand({ TableName: name, Item: { [definition.partitionKey]: { S: 'first' }, [definition.sortKey]: { S: 'write' } } }));
      }
    } finally {
      client.destroy();
    }
    // A second start finds them all ACTIVE and creates nothing.
    await ensureTables(endpoint, REGION, tables);
    expect([...creating.keys()]).toEqual([]);
  }, 120_000);
});
