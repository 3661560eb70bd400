import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Settings are parsed once per process: DB_SSL is set before anything reads them.
vi.hoisted(() => {
  process.env.DB_SSL = 'REQUIRED';
});

import { ensureTables } from '../../../infra/local/store/table-creation.js';
import { TABLES } from '../../../shared/store/table-definitions.js';

/**
 * DB_SSL=REQUIRED with an http store endpoint: gw must refuse before its first call to the store, not create its
 * tables in plaintext and refuse afterwards. Class: a TLS requirement checked after the first plaintext call.
 */
let store: Server;
let endpoint: string;
const seen: string[] = [];

beforeAll(async () => {
  store = createServer((request, response) => {
    seen.push(String(request.headers['x-amz-target'] ?? request.url));
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', () => resolve()));
  endpoint = `http://127.0.0.1:${(store.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => store.close(() => resolve()));
});

describe('creating tables under DB_SSL=REQUIRED', () => {
  it('refuses an http endpoint before any request reaches the store', async () => {
    await expect(ensureTables(endpoint, 'us-east-1', TABLES.map((definition) => ({ definition, name: `tls-${definition.id}` })))).rejects.toThrow(/DB_SSL=REQUIRED needs an https/);
    expect(seen).toEqual([]);
  });
});
