import { randomBytes } from 'node:crypto';
import { GatewayError } from '../../http/errors.js';
import type { StoredVersion, VersionedEntity } from './layout.js';
import type { VersionedRepository } from './versioned-repository.js';

export interface VersionedDocumentKind<R, V> {
  /** What the errors call a document, lower case: `saved config`, `guardrail`. */
  noun: string;
  /** Starts every new id: `cfg` gives `cfg-…`. */
  idPrefix: string;
  /** Applied to every latest item read (saved configs move plaintext credentials to the secret store here). */
  readLatest?: (record: R) => Promise<R>;
  /** Applied to every version item read. */
  readVersion?: (workspaceId: string, id: string, version: V) => Promise<V>;
}

/**
 * The rules a control plane reads and writes versioned documents by, the same for every kind: an unknown id or
 * version is a 404 naming it, a version is read as the document at that version (its version fields over the
 * latest item, `updated_at` when the version was written), and an update that loses to a concurrent one is a 409.
 * Only the same workspace's documents are ever found: every key starts with the workspace.
 */
export class VersionedDocuments<R extends VersionedEntity, V extends StoredVersion> {
  constructor(
    readonly repository: VersionedRepository<R, V>,
    private readonly kind: VersionedDocumentKind<R, V>,
  ) {}

  newId(): string {
    return `${this.kind.idPrefix}-${randomBytes(9).toString('base64url')}`;
  }

  notFound(id: string): GatewayError {
    return new GatewayError(404, 'not_found', `No ${this.kind.noun} with id '${id}' in this workspace`);
  }

  /** The latest state of a document; 404 when the workspace has none with that id. */
  async latest(workspaceId: string, id: string): Promise<R> {
    const latest = await this.repository.get(workspaceId, id);
    if (!latest) throw this.notFound(id);
    return this.readLatest(latest);
  }

  /** The document as it is (`version` undefined) or was at `version`; 404 for an unknown id or version. */
  async get(workspaceId: string, id: string, version?: number): Promise<R> {
    const latest = await this.latest(workspaceId, id);
    if (version === undefined || version === latest.version) return latest;
    const stored = await this.repository.getVersion(workspaceId, id, version);
    if (!stored) throw new GatewayError(404, 'not_found', `${this.capitalNoun} '${id}' has no version ${version}`);
    const pinned = await this.readVersion(workspaceId, id, stored);
    // Every version field, absent ones included: a version without a field must not show the latest one's.
    const atVersion: Record<string, unknown> = {};
    for (const field of this.repository.layout.versionFields) atVersion[field] = (pinned as unknown as Record<string, unknown>)[field];
    return { ...latest, ...atVersion, version: pinned.version, updated_at: pinned.created_at };
  }

  /** Every version of an existing document, newest first. */
  async versions(workspaceId: string, id: string): Promise<V[]> {
    await this.latest(workspaceId, id);
    const versions = await this.repository.listVersions(workspaceId, id);
    return Promise.all(versions.map((version) => this.readVersion(workspaceId, id, version)));
  }

  async list(workspaceId: string, page: { limit: number; startKey?: Record<string, unknown> }): Promise<{ items: R[]; lastKey?: Record<string, unknown> }> {
    const { items, lastKey } = await this.repository.list(workspaceId, page.limit, page.startKey);
    return { items: await Promise.all(items.map((item) => this.readLatest(item))), lastKey };
  }

  /**
   * Writes the next version (VersionedRepository.update); 409 `conflict` when a concurrent update won, after
   * `lost` has undone what the caller prepared for the write (a stored secret).
   */
  async update(current: R, fields: Partial<R>, lost?: () => Promise<void>): Promise<R> {
    const updated = await this.repository.update(current, fields, new Date().toISOString());
    if (updated) return updated;
    await lost?.();
    throw new GatewayError(409, 'conflict', `${this.capitalNoun} '${current.id}' was changed concurrently; read it again and retry`);
  }

  private get capitalNoun(): string {
    return this.kind.noun.charAt(0).toUpperCase() + this.kind.noun.slice(1);
  }

  private readLatest(record: R): Promise<R> {
    return this.kind.readLatest ? this.kind.readLatest(record) : Promise.resolve(record);
  }

  private readVersion(workspaceId: string, id: string, version: V): Promise<V> {
    return this.kind.readVersion ? this.kind.readVersion(workspaceId, id, version) : Promise.resolve(version);
  }
}
