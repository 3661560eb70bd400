import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBlobKey, type BlobStore } from '../../../shared/store/blobs/blob-store.js';
import { LocalFolderBlobStore } from '../../../shared/store/blobs/local-folder-blob-store.js';
import { S3BlobStore } from '../../../shared/store/blobs/s3-blob-store.js';

const directory = mkdtempSync(join(tmpdir(), 'gw-blob-test-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('LocalFolderBlobStore', () => {
  const store = new LocalFolderBlobStore(directory);

  it('puts, gets, replaces and deletes bytes by key', async () => {
    await store.put('logs/ws_1/a.json', '{"a":1}');
    expect((await store.get('logs/ws_1/a.json'))?.toString()).toBe('{"a":1}');
    await store.put('logs/ws_1/a.json', new Uint8Array([104, 105]));
    expect((await store.get('logs/ws_1/a.json'))?.toString()).toBe('hi');
    await store.delete('logs/ws_1/a.json');
    expect(await store.get('logs/ws_1/a.json')).toBeUndefined();
    await store.delete('logs/ws_1/a.json');
    const port: BlobStore = store;
    expect(port.presignedUrl).toBeUndefined();
  });

  it('refuses keys that could leave the folder', async () => {
    for (const key of ['../escape', '/absolute', 'a//b', 'a/./b', '', 'a b', 'x/..']) {
      expect(() => assertBlobKey(key), key).toThrow('Invalid blob key');
      await expect(store.put(key, 'x')).rejects.toThrow('Invalid blob key');
    }
  });
});

describe('S3BlobStore', () => {
  it('presigns a time-limited GET of the object without calling AWS', async () => {
    const store = new S3BlobStore({ bucket: 'gw-blobs-test', region: 'eu-west-1' });
    const url = new URL(await store.presignedUrl('exports/ws_1/exp_1.jsonl', 600));
    expect(url.hostname).toContain('gw-blobs-test');
    expect(url.pathname).toBe('/exports/ws_1/exp_1.jsonl');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });
});
