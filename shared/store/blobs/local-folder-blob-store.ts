import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { assertBlobKey, BlobStoreError, type BlobStore } from './blob-store.js';

/**
 * The BlobStore of the local runtime: one file per key under `directory`. There are no presigned URLs: the
 * local server serves exported files itself, behind the caller's key.
 */
export class LocalFolderBlobStore implements BlobStore {
  constructor(private readonly directory: string) {}

  async put(key: string, bytes: Uint8Array | string): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    // Written beside the target and renamed over it, so a reader never sees half a file.
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, bytes, { mode: 0o600 });
    await rename(temporary, path);
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new BlobStoreError(`Cannot read blob: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, 'get');
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  private pathOf(key: string): string {
    assertBlobKey(key);
    return join(this.directory, ...key.split('/'));
  }
}
