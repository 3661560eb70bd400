import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { closeDynaliteIterators } from './iterator-close-fix.js';

/** dynalite listening on a free loopback port, in the process that calls this. */
export interface DynaliteServer {
  port: number;
  server: Server;
  close(): Promise<void>;
}

/** Starts dynalite: persisted under `<dataDir>/dynamodb`, or in memory when `dataDir` is `:memory:`. */
export async function listenDynalite(dataDir: string): Promise<DynaliteServer> {
  const path = dataDir === ':memory:' ? undefined : `${dataDir}/dynamodb`;
  if (path) mkdirSync(path, { recursive: true });
  closeDynaliteIterators();
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets of SDK clients would otherwise hold the close open for seconds.
        server.closeAllConnections();
      }),
  };
}

/**
 * One ListTables: dynalite opens its database lazily, so a data directory another store holds (LevelDB's lock)
 * only shows on the first call, as an exception thrown inside dynalite.
 */
export async function probeDynalite(port: number): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.ListTables',
      'x-amz-date': '20200101T000000Z',
      // dynalite checks that a signature is there, not what it is.
      authorization: 'AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0',
    },
    body: '{}',
  });
  if (!response.ok) throw new Error(`the store answered ${response.status}: ${await response.text()}`);
}
