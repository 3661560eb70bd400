import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SecretStoreError } from './secret-store.js';

const KEY_BYTES = 32;
export const LOCAL_KEY_FILE = 'master.key';

/**
 * The AES-256 key of the local secret store: GW_LOCAL_SECRET_KEY (32 bytes as base64 or 64 hex digits) when
 * given, otherwise `<dir>/master.key`, generated on first use with 0600 permissions. The key never appears in
 * an error: a bad value is described, not quoted.
 */
export function loadLocalSecretKey(directory: string, configured?: string): Buffer {
  if (configured !== undefined && configured.trim() !== '') return decodeConfiguredKey(configured.trim());
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const path = join(directory, LOCAL_KEY_FILE);
  try {
    // `wx` fails when the file exists, so two processes starting at once never overwrite each other's key.
    writeFileSync(path, randomBytes(KEY_BYTES).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new SecretStoreError(`Cannot create the local secret key file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, 'put');
    }
  }
  tightenPermissions(path);
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new SecretStoreError(`The local secret key file ${path} does not hold a 32-byte base64 key`, 'get');
  return key;
}

function decodeConfiguredKey(value: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== KEY_BYTES) {
    throw new SecretStoreError('GW_LOCAL_SECRET_KEY must be 32 bytes, written as base64 or as 64 hex digits', 'get');
  }
  return key;
}

/** A key file readable by others (copied around, restored from a backup) is narrowed back to its owner. */
function tightenPermissions(path: string): void {
  if (process.platform === 'win32') return;
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
}
