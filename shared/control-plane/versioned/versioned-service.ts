import type { StoredVersion, VersionedEntity } from '../../store/versioned/layout.js';
import { VersionedDocuments, type VersionedDocumentKind } from '../../store/versioned/versioned-documents.js';
import type { VersionedRepository } from '../../store/versioned/versioned-repository.js';
import { toPage, type Page, type PageRequest } from '../pagination.js';
import type { CrudService } from '../resource/define-resource.js';
import type { WorkspaceScope } from './types.js';
import { readVersionQuery } from './versioned-routes.js';

/**
 * The service of a resource kept as versioned documents (store/versioned/): the reads are the same for every kind
 * (`?version=N`, the versions, a page of presented documents); a kind writes its own create, update and delete,
 * with `documents` for the rules (404s, 409 on a lost concurrent update, new ids).
 */
export abstract class VersionedDocumentService<R extends VersionedEntity, V extends StoredVersion, Create, Update, View>
  implements CrudService<R, Create, Update, undefined>
{
  protected readonly documents: VersionedDocuments<R, V>;

  protected constructor(
    repository: VersionedRepository<R, V>,
    kind: Pick<VersionedDocumentKind<R, V>, 'noun' | 'idPrefix'>,
    private readonly present: (record: R) => View,
  ) {
    this.documents = new VersionedDocuments(repository, {
      ...kind,
      readLatest: (record) => this.readLatest(record),
      readVersion: (workspaceId, id, version) => this.readVersion(workspaceId, id, version),
    });
  }

  abstract create(at: WorkspaceScope, body: Create): Promise<R>;
  abstract update(at: WorkspaceScope, id: string, body: Update): Promise<R>;
  abstract delete(at: WorkspaceScope, id: string): Promise<R>;

  /** The latest version, or the one `?version=` names. */
  get({ workspaceId }: WorkspaceScope, id: string, query: Readonly<Record<string, string>> = {}): Promise<R> {
    return this.documents.get(workspaceId, id, readVersionQuery(query));
  }

  versions({ workspaceId }: WorkspaceScope, id: string): Promise<V[]> {
    return this.documents.versions(workspaceId, id);
  }

  async list({ workspaceId }: WorkspaceScope, page: PageRequest): Promise<Page<View>> {
    const { items, lastKey } = await this.documents.list(workspaceId, page);
    return toPage(items.map(this.present), lastKey);
  }

  /** Every latest item read passes through here: as stored, unless a kind says otherwise. */
  protected readLatest(record: R): Promise<R> {
    return Promise.resolve(record);
  }

  /** Every version item read passes through here. */
  protected readVersion(_workspaceId: string, _id: string, version: V): Promise<V> {
    return Promise.resolve(version);
  }
}
