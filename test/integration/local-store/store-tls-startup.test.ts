import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGw, type GwProcess } from '../../support/gw-process.js';

/**
 * DB_SSL=REQUIRED (or VERIFY_*) with an http store endpoint stops the whole local runtime before it reaches anything:
 * no table creation, health probe, secret, blob or log-engine call, not even a TCP connection to that endpoint (the
 * recording endpoint below counts connections, whatever they would have said). Class: a TLS requirement checked
 * after the first plaintext call.
 */
let recorder: Server;
let endpoint: string;
let connections = 0;
const dataDir = mkdtempSync(join(tmpdir(), 'gw-store-tls-startup-'));
const started: GwProcess[] = [];

beforeAll(async () => {
  recorder = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', () => resolve()));
  endpoint = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const gw of started) gw.kill('SIGKILL');
  await Promise.all(started.map((gw) => gw.exited));
  await new Promise<void>((resolve) => recorder.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a local gw started with DB_SSL that an http store endpoint cannot meet', () => {
  for (const mode of ['REQUIRED', 'VERIFY_IDENTITY']) {
    it(`exits under DB_SSL=${mode}, naming the setting, before any connection to the store, the secrets or the blob endpoint`, async () => {
      const before = connections;
      const gw = await spawnGw({
        DB_SSL: mode,
        GW_DYNAMODB_ENDPOINT: endpoint,
        // Every other endpoint gw could reach goes to the same recorder: none may be reached either.
        GW_SECRETS_MANAGER_ENDPOINT: endpoint,
        GW_S3_ENDPOINT: endpoint,
        GW_DATA_DIR: dataDir,
      });
      started.push(gw);
      const code = await gw.exited;
      expect(code, gw.output()).not.toBe(0);
      expect(gw.output()).toContain(`DB_SSL: ${mode} needs an https GW_DYNAMODB_ENDPOINT`);
      expect(connections - before).toBe(0);
      expect(readdirSync(dataDir)).toEqual([]);
    });
  }
});
