import { LRUCache } from 'lru-cache';
import { GUARDRAIL_REFERENCE, guardrailDefinitionSchema, type Guardrail } from '../guardrails/schemas.js';
import { GuardrailRepository } from '../store/guardrail-repository.js';

const LATEST_TTL_MS = 30_000;
// A pinned version never changes, so it can stay longer.
const PINNED_TTL_MS = 10 * 60_000;

/** Where guardrails come from (the main table in production; anything in tests). */
export interface GuardrailSource {
  load(workspaceId: string, id: string, version?: number): Promise<unknown>;
  workspaceDefaults(workspaceId: string): Promise<string[]>;
}

/**
 * Guardrails and workspace defaults for the hot path, cached per workspace like saved configs: a warm request
 * costs no store call, and a change is in force everywhere within 30 s. The control plane of the same process
 * forgets a workspace's entries when it changes them (so the local runtime applies a change at once).
 */
export class GuardrailResolver {
  private readonly cache = new LRUCache<string, { value: Guardrail | string[] }>({ max: 5_000 });
  /** Loads in flight, so a burst of cold requests for one workspace reads the store once, not once each. */
  private readonly loading = new Map<string, Promise<unknown>>();

  constructor(private readonly source: GuardrailSource) {}

  /** The guardrail a reference (`grd-…` or `grd-…@N`) names in the workspace; undefined when there is none. */
  async guardrail(workspaceId: string, reference: string): Promise<Guardrail | undefined> {
    const match = GUARDRAIL_REFERENCE.exec(reference);
    if (!match) return undefined;
    const key = `${workspaceId}\u0000${reference}`;
    const cached = this.cache.get(key);
    if (cached) return cached.value as Guardrail;
    const version = match[2] === undefined ? undefined : Number(match[2]);
    return this.once(key, async () => {
      const guardrail = toGuardrail(await this.source.load(workspaceId, match[1], version));
      if (guardrail) this.cache.set(key, { value: guardrail }, { ttl: version === undefined ? LATEST_TTL_MS : PINNED_TTL_MS });
      return guardrail;
    });
  }

  async workspaceDefaults(workspaceId: string): Promise<string[]> {
    const key = `${workspaceId}\u0000#defaults`;
    const cached = this.cache.get(key);
    if (cached) return cached.value as string[];
    return this.once(key, async () => {
      const ids = await this.source.workspaceDefaults(workspaceId);
      this.cache.set(key, { value: ids }, { ttl: LATEST_TTL_MS });
      return ids;
    });
  }

  /** Drops every cached entry of a workspace (its guardrails changed, or its defaults did). */
  forget(workspaceId: string): void {
    const prefix = `${workspaceId}\u0000`;
    for (const key of [...this.cache.keys()]) if (key.startsWith(prefix)) this.cache.delete(key);
    for (const key of [...this.loading.keys()]) if (key.startsWith(prefix)) this.loading.delete(key);
  }

  private once<T>(key: string, load: () => Promise<T>): Promise<T> {
    const pending = this.loading.get(key);
    if (pending) return pending as Promise<T>;
    const started = load().finally(() => {
      if (this.loading.get(key) === started) this.loading.delete(key);
    });
    this.loading.set(key, started);
    return started;
  }
}

/** A stored record as the pipeline runs it; a record that no longer parses is treated as missing. */
function toGuardrail(stored: unknown): Guardrail | undefined {
  if (!stored) return undefined;
  const record = stored as { id?: unknown; name?: unknown; version?: unknown; type?: unknown; config?: unknown };
  const definition = guardrailDefinitionSchema.safeParse({ type: record.type, config: record.config });
  if (!definition.success || typeof record.id !== 'string' || typeof record.version !== 'number') return undefined;
  return { ...definition.data, id: record.id, name: typeof record.name === 'string' ? record.name : record.id, version: record.version };
}

let shared: GuardrailResolver | undefined;

/** The process's resolver over the main table (created on first use: repositories read settings). */
export function guardrailResolver(): GuardrailResolver {
  if (shared) return shared;
  const repository = new GuardrailRepository();
  shared = new GuardrailResolver({
    load: (workspaceId, id, version) => (version === undefined ? repository.get(workspaceId, id) : repository.getVersion(workspaceId, id, version)),
    workspaceDefaults: (workspaceId) => repository.workspaceDefaults(workspaceId),
  });
  return shared;
}

/** Called by the control plane after a guardrail or a workspace's default_guardrails changed. */
export function forgetWorkspaceGuardrails(workspaceId: string): void {
  shared?.forget(workspaceId);
}
