/**
 * Response-cache entries this process read or wrote, kept in memory so that a hot entry is answered without a
 * store round trip (issue #48). Bounded in bytes, least recently used first out, and scoped per workspace: a
 * workspace's entries live in a map of their own (the same key text in two workspaces is two entries), and no
 * workspace may hold more than a share of the bound, so one busy tenant cannot push every other one out.
 *
 * An entry is held until the earlier of its own expiry (the `expires_at` the store keeps) and `ttlMs` after it
 * was read or written: memory never answers past the entry's TTL, and a change made by another process (a forced
 * refresh, a deletion) is seen here within `ttlMs` at most. docs/cache.md says what that staleness means.
 */
export interface HotEntriesOptions {
  /** The most bytes (estimated) all workspaces' entries may take together; 0 keeps nothing. */
  maxBytes: () => number;
  /** How long an entry is held after it was read or written (never past its own expiry); 0 keeps nothing. */
  ttlMs: () => number;
  now?: () => number;
}

interface Held {
  body: string;
  bytes: number;
  heldUntil: number;
}

/** A store read of one entry, from `readStarted` to `readEnded`. */
export interface ReadMark {
  workspaceId: string;
  key: string;
  version: number;
}

/** Workspace ids never contain the separator (a UUID or slug), so the pair is unambiguous. */
const readId = (workspaceId: string, key: string) => `${workspaceId}\u0000${key}`;

/** One workspace's entries in least-recently-used-first order (a Map keeps insertion order). */
interface WorkspaceEntries {
  entries: Map<string, Held>;
  bytes: number;
}

/** A workspace may fill at most this part of the bound. */
const WORKSPACE_SHARE = 4;
/** An entry over this part of the bound is not held: a few large answers must not empty the memory. */
const LARGEST_ENTRY_SHARE = 64;
/** What a held entry costs besides its text (two maps' slots, the record, the key): an estimate. */
const ENTRY_OVERHEAD_BYTES = 160;

export class HotEntries {
  /** Workspaces in least-recently-used-first order, so the global bound evicts from the coldest one. */
  private readonly workspaces = new Map<string, WorkspaceEntries>();
  private totalBytes = 0;
  /**
   * Store reads in flight, per workspace and key, with a version bumped by every write and forget of that key: a
   * read that began before one of them may have read an older value, so it is not kept (`readEnded`). Per key, so
   * a busy cache's writes of other entries never keep a hot entry out of memory; an item lives while its reads run.
   */
  private readonly reads = new Map<string, { running: number; version: number }>();
  private readonly now: () => number;

  constructor(private readonly options: HotEntriesOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The entry's body, if held and within both its expiry and its memory lifetime. */
  get(workspaceId: string, key: string): string | undefined {
    const workspace = this.workspaces.get(workspaceId);
    const held = workspace?.entries.get(key);
    if (!workspace || !held) return undefined;
    if (this.now() >= held.heldUntil) {
      this.drop(workspaceId, workspace, key, held);
      return undefined;
    }
    // Most recently used last, in both orders.
    workspace.entries.delete(key);
    workspace.entries.set(key, held);
    this.workspaces.delete(workspaceId);
    this.workspaces.set(workspaceId, workspace);
    return held.body;
  }

  /** Notes a store read of the entry that starts now; `readEnded` must follow it, whatever the read gave. */
  readStarted(workspaceId: string, key: string): ReadMark {
    const id = readId(workspaceId, key);
    const read = this.reads.get(id) ?? { running: 0, version: 0 };
    read.running++;
    this.reads.set(id, read);
    return { workspaceId, key, version: read.version };
  }

  /**
   * Ends a read begun with `readStarted`, keeping what it found unless the entry was written or forgotten since it
   * started (that read may hold an older value). `found` is undefined when the store had no live entry.
   */
  readEnded(mark: ReadMark, found?: { body: string; expiresAt: number }): void {
    const id = readId(mark.workspaceId, mark.key);
    const read = this.reads.get(id);
    if (!read) return;
    if (--read.running === 0) this.reads.delete(id);
    if (found && read.version === mark.version) this.keep(mark.workspaceId, mark.key, found.body, found.expiresAt);
  }

  /** Keeps what this process just wrote to the store (it replaces anything held for the key). */
  rememberWrite(workspaceId: string, key: string, body: string, expiresAt: number): void {
    this.changed(workspaceId, key);
    this.keep(workspaceId, key, body, expiresAt);
  }

  /** Drops the entry (a forced refresh is about to replace it). */
  forget(workspaceId: string, key: string): void {
    this.changed(workspaceId, key);
    const workspace = this.workspaces.get(workspaceId);
    const held = workspace?.entries.get(key);
    if (workspace && held) this.drop(workspaceId, workspace, key, held);
  }

  /** Estimated bytes held, all workspaces. */
  get bytes(): number {
    return this.totalBytes;
  }

  /** Estimated bytes one workspace holds. */
  bytesOf(workspaceId: string): number {
    return this.workspaces.get(workspaceId)?.bytes ?? 0;
  }

  /** Reads of the entry still running must not keep what they found. */
  private changed(workspaceId: string, key: string): void {
    const read = this.reads.get(readId(workspaceId, key));
    if (read) read.version++;
  }

  private keep(workspaceId: string, key: string, body: string, expiresAt: number): void {
    const maxBytes = this.options.maxBytes();
    const heldUntil = Math.min(expiresAt, this.now() + this.options.ttlMs());
    // JavaScript strings take up to two bytes a character.
    const bytes = 2 * (body.length + key.length) + ENTRY_OVERHEAD_BYTES;
    const workspaceLimit = maxBytes / WORKSPACE_SHARE;
    let workspace = this.workspaces.get(workspaceId);
    const previous = workspace?.entries.get(key);
    if (workspace && previous) this.drop(workspaceId, workspace, key, previous);
    if (heldUntil <= this.now() || bytes > maxBytes / LARGEST_ENTRY_SHARE) return;
    workspace = this.workspaces.get(workspaceId) ?? { entries: new Map(), bytes: 0 };
    // The workspace's own least recently used entries make room first, then the coldest workspaces'.
    while (workspace.bytes + bytes > workspaceLimit && workspace.entries.size > 0) this.evictOldest(workspaceId, workspace);
    this.workspaces.delete(workspaceId);
    this.workspaces.set(workspaceId, workspace);
    workspace.entries.set(key, { body, bytes, heldUntil });
    workspace.bytes += bytes;
    this.totalBytes += bytes;
    while (this.totalBytes > maxBytes) {
      const [coldestId, coldest] = this.workspaces.entries().next().value as [string, WorkspaceEntries];
      this.evictOldest(coldestId, coldest);
    }
  }

  private evictOldest(workspaceId: string, workspace: WorkspaceEntries): void {
    const [key, held] = workspace.entries.entries().next().value as [string, Held];
    this.drop(workspaceId, workspace, key, held);
  }

  private drop(workspaceId: string, workspace: WorkspaceEntries, key: string, held: Held): void {
    workspace.entries.delete(key);
    workspace.bytes -= held.bytes;
    this.totalBytes -= held.bytes;
    if (workspace.entries.size === 0) this.workspaces.delete(workspaceId);
  }
}
