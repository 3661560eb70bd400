/**
 * How versioned documents (saved configs, guardrails) lie in the main table. Saved data depends on it, so it
 * never changes shape: per document, one partition `WS#{workspace}#{KIND}#{id}` holding
 * - the latest item, sort key `LATEST`: the whole current document, and `gsi1pk = WS#{workspace}#{KIND}S`,
 *   `gsi1sk = {id}` so the workspace's documents list from one gsi1 partition;
 * - one immutable item per version, sort key `V#{version, 9 digits}`: id, version, the kind's version fields and
 *   `created_at` (when that version was written).
 * Every key starts with the workspace, so one workspace can never read another's documents.
 */

/** What every versioned document has. */
export interface VersionedEntity {
  id: string;
  workspace_id: string;
  version: number;
  created_at: string;
  updated_at: string;
}

/** What every stored version has. */
export interface StoredVersion {
  id: string;
  version: number;
  created_at: string;
}

export interface VersionedLayout<R> {
  /** Names the partitions: `WS#{workspace}#{KIND}#{id}` for a document, `WS#{workspace}#{KIND}S` for the list. */
  kind: string;
  /** The fields each immutable version item keeps besides id, version and created_at. */
  versionFields: ReadonlyArray<keyof R & string>;
  /** The fields an update may change on the latest item (an undefined value removes the attribute). */
  mutableFields: ReadonlyArray<keyof R & string>;
}

export const LATEST_SORT_KEY = 'LATEST';
export const VERSION_SORT_PREFIX = 'V#';

/** The key of a document's latest item (`version` undefined) or of one of its versions. */
export function documentKey(kind: string, workspaceId: string, id: string, version?: number): { pk: string; sk: string } {
  return {
    pk: `WS#${workspaceId}#${kind}#${id}`,
    sk: version === undefined ? LATEST_SORT_KEY : `${VERSION_SORT_PREFIX}${String(version).padStart(9, '0')}`,
  };
}

/** The gsi1 partition listing a workspace's documents of one kind. */
export function documentListPartition(kind: string, workspaceId: string): string {
  return `WS#${workspaceId}#${kind}S`;
}

/** A stored item without its table keys: the document or version itself. */
export function withoutTableKeys<T>(item: Record<string, unknown>): T {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, ...rest } = item;
  return rest as T;
}
