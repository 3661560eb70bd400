import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalFileSecretStore } from '../../../../shared/store/secrets/local-file-secret-store.js';
import { LOCAL_KEY_FILE } from '../../../../shared/store/secrets/local-secret-key.js';
import { SecretStoreError } from '../../../../shared/store/secrets/secret-store.js';

const SENTINEL = 'sk-local-sentinel-7f3a9c1e';
let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'gw-secret-test-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

const fileOf = (name: string) => join(directory, `${createHash('sha256').update(name).digest('hex')}.secret.json`);
const secretFiles = () => readdirSync(directory).filter((name) => name.endsWith('.secret.json'));

describe('LocalFileSecretStore', () => {
  it('round-trips a secret, replaces it, and reports a missing one as undefined', async () => {
    const store = new LocalFileSecretStore({ directory });
    expect(await store.get('ws-1/vk-1')).toBeUndefined();
    await store.put('ws-1/vk-1', SENTINEL);
    expect(await store.get('ws-1/vk-1')).toBe(SENTINEL);
    await store.put('ws-1/vk-1', 'second value');
    expect(await store.get('ws-1/vk-1')).toBe('second value');
    expect(secretFiles()).toHaveLength(1);
  });

  it('stores only ciphertext: neither the value nor the name appears in any file', async () => {
    const store = new LocalFileSecretStore({ directory });
    await store.put('workspace-abc/vk-xyz', SENTINEL);
    for (const name of readdirSync(directory)) {
      const content = readFileSync(join(directory, name), 'utf8');
      expect(content).not.toContain(SENTINEL);
      expect(content).not.toContain('workspace-abc');
      expect(name).not.toContain('workspace-abc');
    }
    const sealed = JSON.parse(readFileSync(join(directory, secretFiles()[0]), 'utf8')) as Record<string, unknown>;
    expect(sealed).toMatchObject({ v: 1, alg: 'A256GCM' });
    expect(Buffer.from(sealed.iv as string, 'base64')).toHaveLength(12);
    expect(Buffer.from(sealed.tag as string, 'base64')).toHaveLength(16);
  });

  it('uses a fresh IV for every write, so equal values give different ciphertexts', async () => {
    const store = new LocalFileSecretStore({ directory });
    await store.put('a/one', SENTINEL);
    const first = readFileSync(join(directory, secretFiles()[0]), 'utf8');
    await store.put('a/one', SENTINEL);
    expect(readFileSync(join(directory, secretFiles()[0]), 'utf8')).not.toBe(first);
  });

  it('generates master.key with 0600 permissions once and reuses it in a later process', async () => {
    await new LocalFileSecretStore({ directory }).put('a/b', SENTINEL);
    const keyPath = join(directory, LOCAL_KEY_FILE);
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyPath, 'utf8');
    expect(Buffer.from(key.trim(), 'base64')).toHaveLength(32);
    const reopened = new LocalFileSecretStore({ directory });
    expect(await reopened.get('a/b')).toBe(SENTINEL);
    expect(readFileSync(keyPath, 'utf8')).toBe(key);
  });

  it('narrows a key file that others can read back to 0600', () => {
    new LocalFileSecretStore({ directory });
    const keyPath = join(directory, LOCAL_KEY_FILE);
    chmodSync(keyPath, 0o644);
    new LocalFileSecretStore({ directory });
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
  });

  it('uses GW_LOCAL_SECRET_KEY (base64 or hex) instead of a key file, and a different key cannot decrypt', async () => {
    const key = randomBytes(32);
    const store = new LocalFileSecretStore({ directory, key: key.toString('base64') });
    await store.put('a/b', SENTINEL);
    expect(readdirSync(directory)).not.toContain(LOCAL_KEY_FILE);
    expect(await new LocalFileSecretStore({ directory, key: key.toString('hex') }).get('a/b')).toBe(SENTINEL);
    const other = new LocalFileSecretStore({ directory, key: randomBytes(32).toString('base64') });
    await expect(other.get('a/b')).rejects.toThrow(SecretStoreError);
    await expect(other.get('a/b')).rejects.toThrow(/cannot be decrypted/);
  });

  it('refuses a GW_LOCAL_SECRET_KEY of the wrong length without quoting it', () => {
    const badKey = 'c2hvcnQta2V5LXNlbnRpbmVs';
    expect(() => new LocalFileSecretStore({ directory, key: badKey })).toThrow(/must be 32 bytes/);
    try {
      new LocalFileSecretStore({ directory, key: badKey });
    } catch (error) {
      expect((error as Error).message).not.toContain(badKey);
    }
  });

  it('refuses a file moved to another secret name (the name is authenticated) and a tampered file', async () => {
    const store = new LocalFileSecretStore({ directory });
    await store.put('ws/victim', SENTINEL);
    await store.put('ws/attacker', 'attacker value');
    copyFileSync(fileOf('ws/victim'), fileOf('ws/attacker'));
    await expect(store.get('ws/attacker')).rejects.toThrow(/cannot be decrypted/);

    const sealed = JSON.parse(readFileSync(fileOf('ws/victim'), 'utf8')) as { data: string };
    const data = Buffer.from(sealed.data, 'base64');
    data[0] ^= 0xff;
    writeFileSync(fileOf('ws/victim'), JSON.stringify({ ...sealed, data: data.toString('base64') }));
    await expect(store.get('ws/victim')).rejects.toThrow(/cannot be decrypted/);
  });

  it('deletes a secret, and deleting a missing one is not an error', async () => {
    const store = new LocalFileSecretStore({ directory });
    await store.put('a/b', SENTINEL);
    await store.delete('a/b');
    expect(await store.get('a/b')).toBeUndefined();
    expect(secretFiles()).toHaveLength(0);
    await expect(store.delete('a/b')).resolves.toBeUndefined();
  });

  it('refuses names that could climb out of the directory', async () => {
    const store = new LocalFileSecretStore({ directory });
    for (const name of ['../escape', 'a/../../b', '', 'a b', '/abs']) {
      await expect(store.put(name, SENTINEL)).rejects.toThrow(SecretStoreError);
    }
  });

  it('moves a virtual-key secret written under its old name (<ws>/<id>) to virtual-keys/<ws>/<id> on first read', async () => {
    await new LocalFileSecretStore({ directory }).put('ws-1/vk-1', SENTINEL);
    const store = new LocalFileSecretStore({ directory });
    expect(await store.get('virtual-keys/ws-1/vk-1')).toBe(SENTINEL);
    expect(secretFiles()).toEqual([fileOf('virtual-keys/ws-1/vk-1').split('/').at(-1)]);
    expect(await store.get('ws-1/vk-1')).toBeUndefined();
    expect(await store.get('virtual-keys/ws-1/vk-1')).toBe(SENTINEL);
    expect(await store.get('virtual-keys/ws-1/none')).toBeUndefined();
  });

  it('deletes a virtual-key secret under its old name too', async () => {
    await new LocalFileSecretStore({ directory }).put('ws-1/vk-1', SENTINEL);
    await new LocalFileSecretStore({ directory }).delete('virtual-keys/ws-1/vk-1');
    expect(secretFiles()).toHaveLength(0);
  });
});
