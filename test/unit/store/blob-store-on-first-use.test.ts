import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3BlobStoreOnFirstUse } from '../../../shared/store/blobs/blob-store-factory.js';
import { S3BlobStore } from '../../../shared/store/blobs/s3-blob-store.js';

/** A loopback S3 that keeps objects in memory: path-style PUT, GET (404 NoSuchKey when absent) and DELETE. */
function fakeS3(objects: Map<string, Buffer>): Server {
  return createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://s3').pathname);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'PUT') {
        objects.set(path, Buffer.concat(chunks));
        response.writeHead(200, { etag: '"x"' }).end();
      } else if (request.method === 'DELETE') {
        objects.delete(path);
        response.writeHead(204).end();
      } else if (objects.has(path)) {
        response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': objects.get(path)!.length }).end(objects.get(path));
      } else {
        response.writeHead(404, { 'content-type': 'application/xml' }).end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>');
      }
    });
  });
}

describe('the S3 blob store loaded on first use (blob-store-factory.ts)', () => {
  const objects = new Map<string, Buffer>();
  const server = fakeS3(objects);
  let endpoint: string;
  const credentials = { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'not-a-real-secret' };
  const saved = Object.fromEntries(Object.keys(credentials).map((name) => [name, process.env[name]]));
  beforeAll(async () => {
    Object.assign(process.env, credentials);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    server.close();
  });

  it('puts, gets and deletes objects through the real S3 client once the first operation loaded it', async () => {
    const store = s3BlobStoreOnFirstUse({ bucket: 'gw-blobs', region: 'eu-west-1', endpoint });
    await store.put('logs/ws_1/a.json', '{"a":1}', 'application/json');
    expect(objects.get('/gw-blobs/logs/ws_1/a.json')?.toString()).toBe('{"a":1}');
    expect((await store.get('logs/ws_1/a.json'))?.toString()).toBe('{"a":1}');
    await store.delete('logs/ws_1/a.json');
    expect(objects.size).toBe(0);
    expect(await store.get('logs/ws_1/a.json')).toBeUndefined();
  });

  it('refuses a bad key as the S3 store does, before any request', async () => {
    const store = s3BlobStoreOnFirstUse({ bucket: 'gw-blobs', region: 'eu-west-1', endpoint });
    await expect(store.put('../escape', 'x')).rejects.toThrow('Invalid blob key');
    await expect(store.get('a//b')).rejects.toThrow('Invalid blob key');
  });

  it('presigns the same kind of URL as S3BlobStore, without calling S3', async () => {
    const options = { bucket: 'gw-blobs-test', region: 'eu-west-1' };
    const lazy = new URL(await s3BlobStoreOnFirstUse(options).presignedUrl!('exports/ws_1/exp_1.jsonl', 600));
    const direct = new URL(await new S3BlobStore(options).presignedUrl('exports/ws_1/exp_1.jsonl', 600));
    expect(lazy.origin + lazy.pathname).toBe(direct.origin + direct.pathname);
    expect(lazy.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(lazy.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reports an unreachable S3 as a read error (BlobStoreError), like S3BlobStore', async () => {
    const store = s3BlobStoreOnFirstUse({ bucket: 'gw-blobs', region: 'eu-west-1', endpoint: 'http://127.0.0.1:9' });
    await expect(store.get('logs/ws_1/missing.json')).rejects.toThrow('Cannot read blob');
  });
});
