import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadLocalSecretKey } from './local-secret-key.js';
import { assertSecretName, SecretStoreError, type SecretStore } from './secret-store.js';

interface SealedSecret {
  v: 1;
  alg: 'A256GCM';
  iv: string;
  tag: string;
  data: string;
}

export interface LocalFileSecretStoreOptions {
  directory: string;
  /** GW_LOCAL_SECRET_KEY; when absent the key is read from (or generated into) `<directory>/master.key`. */
  key?: string;
}

const IV_BYTES = 12;
const VIRTUAL_KEY_SECRETS = 'virtual-keys/';

/** The name a secret had before virtual-key credentials moved under `virtual-keys/`, if it had another. */
function legacyNameOf(name: string): string | undefined {
  return name.startsWith(VIRTUAL_KEY_SECRETS) ? name.slice(VIRTUAL_KEY_SECRETS.length) : undefined;
}

/**
 * The SecretStore of the local runtime: one file per secret in `directory`, each sealed with AES-256-GCM under
 * a fresh 96-bit IV. The secret's name is the additional authenticated data, so a file copied to another
 * name fails to open instead of handing one virtual key's credential to another. File names are hashes of
 * the secret names, so the directory listing reveals no workspace or key ids.
 */
export class LocalFileSecretStore implements SecretStore {
  private readonly directory: string;
  private readonly key: Buffer;

  constructor(options: LocalFileSecretStoreOptions) {
    this.directory = options.directory;
    mkdirSync(this.directory, { recursive: true, mode: 0o700 });
    this.key = loadLocalSecretKey(this.directory, options.key);
  }

  async put(name: string, value: string): Promise<void> {
    const path = this.pathOf(name);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(name, 'utf8'));
    const data = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    const sealed: SealedSecret = { v: 1, alg: 'A256GCM', iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
    // Written beside the target and renamed over it, so a reader never sees half a file.
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(temporary, JSON.stringify(sealed), { mode: 0o600 });
    renameSync(temporary, path);
  }

  async get(name: string): Promise<string | undefined> {
    const path = this.pathOf(name);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.migrateLegacy(name);
      throw new SecretStoreError(`Cannot read the secret file of '${name}': ${(error as NodeJS.ErrnoException).code ?? 'error'}`, 'get');
    }
    try {
      const sealed = JSON.parse(text) as SealedSecret;
      if (sealed.v !== 1 || sealed.alg !== 'A256GCM') throw new Error('unknown format');
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAAD(Buffer.from(name, 'utf8'));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      // Wrong key (GW_LOCAL_SECRET_KEY changed, master.key replaced), a tampered file or a file moved to another name.
      throw new SecretStoreError(`The secret '${name}' cannot be decrypted with the current local secret key`, 'get');
    }
  }

  async delete(name: string): Promise<void> {
    rmSync(this.pathOf(name), { force: true });
    const legacy = legacyNameOf(name);
    if (legacy) rmSync(this.pathOf(legacy), { force: true });
  }

  /**
   * Virtual-key credentials were once named `<ws>/<id>`; they are now `virtual-keys/<ws>/<id>`. A data directory
   * written before the change still holds the old files: the first read moves the secret to its new name.
   */
  private async migrateLegacy(name: string): Promise<string | undefined> {
    const legacy = legacyNameOf(name);
    if (!legacy) return undefined;
    const value = await this.get(legacy);
    if (value === undefined) return undefined;
    await this.put(name, value);
    rmSync(this.pathOf(legacy), { force: true });
    return value;
  }

  private pathOf(name: string): string {
    assertSecretName(name);
    return join(this.directory, `${createHash('sha256').update(name, 'utf8').digest('hex')}.secret.json`);
  }
}
