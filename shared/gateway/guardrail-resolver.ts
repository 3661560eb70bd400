import { loadOnce } from '../cache/load-once.js';
import { maxStaleFor, RefreshingCache } from '../cache/refreshing-cache.js';
import { GUARDRAIL_REFERENCE } from '../guardrails/reference.js';
import type { Guardrail } from '../guardrails/schemas.js';
import { settings } from '../settings.js';
import { GuardrailRepository } from '../store/guardrail-repository.js';
import { merged } from '../merged.js';

const latestTtlMs = () => settings().GW_CONFIG_CACHE_TTL_MS;
// A pinned version never changes, so it can stay longer.
const PINNED_TTL_MS = 10 * 60_000;

/** Where guardrails come from (the main table in production; anything in tests). */
export interface GuardrailSource {
  load(workspaceId: string, id: string, version?: number): Promise<unknown>;
  workspaceDefaults(workspaceId: string): Promise<string[]>;
}

type Cached = { guardrail: Guardrail | undefined; pinned: boolean } | { defaults: string[] };

/**
 * Guardrails and workspace defaults for the hot path, cached per workspace like saved configs: a warm request
 * costs no store call, not even after the TTL (an entry is then served stale while one background read refreshes
 * it: refreshing-cache.ts), and a change is in force everywhere within GW_CONFIG_CACHE_TTL_MS (30 s) + GW_CACHE_MAX_STALE_MS. A burst of
 * cold requests for one workspace reads the store once. The control plane of the same process forgets a
 * workspace's entries when it changes them (so the local runtime applies a change at once).
 */
export class GuardrailResolver {
  private readonly cache = new RefreshingCache<string, Cached>({
    name: 'guardrails',
    max: 5_000,
    ttlMs: latestTtlMs,
    maxStaleMs: () => maxStaleFor(latestTtlMs()),
    // A miss is not kept (a guardrail created a moment later works at once); a pinned version never changes.
    lifetimeOf: (cached) => ('guardrail' in cached ? (!cached.guardrail ? { ttlMs: 0 } : cached.pinned ? { ttlMs: PINNED_TTL_MS, maxStaleMs: maxStaleFor(PINNED_TTL_MS) } : {}) : {}),
  });

  constructor(private readonly source: GuardrailSource) {}

  /** The guardrail a reference (`grd-…` or `grd-…@N`) names in the workspace; undefined when there is none. */
  async guardrail(workspaceId: string, reference: string): Promise<Guardrail | undefined> {
    const match = GUARDRAIL_REFERENCE.exec(reference);
    if (!match) return undefined;
    const version = match[2] === undefined ? undefined : Number(match[2]);
    const cached = await this.cache.get(`${workspaceId}\u0000${reference}`, async () => ({
      guardrail: await toGuardrail(await this.source.load(workspaceId, match[1], version)),
      pinned: version !== undefined,
    }));
    return 'guardrail' in cached ? cached.guardrail : undefined;
  }

  async workspaceDefaults(workspaceId: string): Promise<string[]> {
    const cached = await this.cache.get(defaultsKey(workspaceId), () => this.loadDefaults(workspaceId));
    return 'defaults' in cached ? cached.defaults : [];
  }

  /** Starts reading a workspace's defaults when none are held (refreshing-cache.ts `prefetch`). */
  prefetchWorkspaceDefaults(workspaceId: string): void {
    this.cache.prefetch(defaultsKey(workspaceId), () => this.loadDefaults(workspaceId));
  }

  private async loadDefaults(workspaceId: string): Promise<Cached> {
    return { defaults: await this.source.workspaceDefaults(workspaceId) };
  }

  /** Drops every cached entry of a workspace (its guardrails changed, or its defaults did). */
  forget(workspaceId: string): void {
    const prefix = `${workspaceId}\u0000`;
    this.cache.forget((key) => key.startsWith(prefix));
  }
}

const defaultsKey = (workspaceId: string) => `${workspaceId}\u0000#defaults`;

/** The guardrail schemas (and zod), loaded by the first guardrail a process reads, never at a cold start. */
const guardrailSchemas = loadOnce(() => import('../guardrails/schemas.js'));

/** A stored record as the pipeline runs it; a record that no longer parses is treated as missing. */
async function toGuardrail(stored: unknown): Promise<Guardrail | undefined> {
  if (!stored) return undefined;
  const record = stored as { id?: unknown; name?: unknown; version?: unknown; type?: unknown; config?: unknown };
  const { guardrailDefinitionSchema } = await guardrailSchemas();
  const definition = guardrailDefinitionSchema.safeParse({ type: record.type, config: record.config });
  if (!definition.success || typeof record.id !== 'string' || typeof record.version !== 'number') return undefined;
  return merged(definition.data, { id: record.id, name: typeof record.name === 'string' ? record.name : record.id, version: record.version });
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
