import { loadOnce } from '../../cache/load-once.js';
import { RefreshingCache, maxStaleFor } from '../../cache/refreshing-cache.js';
import type { GatewayError } from '../../http/errors.js';
import { settings } from '../../settings.js';
import { configError } from './errors.js';
import type { GatewayConfig } from './schema.js';

/** The config parser, schema and zod with it: loaded by the first config a process parses, never at a cold start. */
const configParser = loadOnce(() => import('./parse-config.js'));

/** Parses an inline config object (the text of `x-gw-config`, or a deployment's config), loading the parser first. */
export async function parseInlineConfigLazily(text: string): Promise<GatewayConfig> {
  return (await configParser()).parseInlineConfig(text);
}

/** Where saved configs come from (the main table in production; anything in tests). */
export interface SavedConfigSource {
  /** The config body of `id` in the workspace: the latest version, or exactly `version`. */
  load(workspaceId: string, id: string, version?: number): Promise<{ config: unknown; version: number } | undefined>;
}

const SAVED_REFERENCE = /^([A-Za-z0-9_-]{1,64})(?:@(\d{1,9}))?$/;
const latestTtlMs = () => settings().GW_CONFIG_CACHE_TTL_MS;
// A pinned version never changes, so it can stay longer.
const PINNED_TTL_MS = 10 * 60_000;

/** A saved config as cached: parsed, or the error a missing or invalid one answers (never kept). */
type SavedLookup = { config: GatewayConfig; pinned: boolean } | { error: GatewayError };

/**
 * Reads `x-gw-config`: an inline JSON object, or a saved config id (`cfg-…`, optionally `@<version>`).
 * Saved configs are cached per workspace for GW_CONFIG_CACHE_TTL_MS (30 s; a pinned version for 10 min), then
 * served stale while one background read refreshes them, for at most GW_CACHE_MAX_STALE_MS more
 * (refreshing-cache.ts): an update is in force everywhere within the TTL + max staleness, and no request waits on
 * a refresh.
 */
export class ConfigResolver {
  private readonly cache = new RefreshingCache<string, SavedLookup>({
    name: 'saved-configs',
    max: 2_000,
    ttlMs: latestTtlMs,
    maxStaleMs: () => maxStaleFor(latestTtlMs()),
    lifetimeOf: (lookup) => ('error' in lookup ? { ttlMs: 0 } : lookup.pinned ? { ttlMs: PINNED_TTL_MS, maxStaleMs: maxStaleFor(PINNED_TTL_MS) } : {}),
  });

  /** Every resolver of this process (each gateway app holds one; the local runtime runs one next to the control plane). */
  private static readonly instances = new Set<WeakRef<ConfigResolver>>();

  constructor(private readonly source: SavedConfigSource) {
    ConfigResolver.instances.add(new WeakRef(this));
  }

  /**
   * Drops a saved config's cached latest version from every resolver of this process, right after the control
   * plane updated or deleted it. Pinned versions never change, but a deleted config loses them too.
   */
  static forgetEverywhere(workspaceId: string, configId: string): void {
    const prefix = `${workspaceId}\u0000${configId}\u0000`;
    for (const reference of ConfigResolver.instances) {
      const resolver = reference.deref();
      if (resolver) resolver.cache.forget((key) => key.startsWith(prefix));
      else ConfigResolver.instances.delete(reference);
    }
  }

  async resolve(value: string | undefined, workspaceId: string): Promise<GatewayConfig | undefined> {
    if (value === undefined) return undefined;
    const trimmed = value.trim();
    if (trimmed.startsWith('{')) return parseInlineConfigLazily(trimmed);
    const match = SAVED_REFERENCE.exec(trimmed);
    if (!match) {
      throw configError('AB0116', 'x-gw-config', 'expected an inline JSON object or a saved config id such as "cfg-abc123" or "cfg-abc123@2"');
    }
    const [, id, versionText] = match;
    const version = versionText === undefined ? undefined : Number(versionText);
    const key = `${workspaceId}\u0000${id}\u0000${version ?? 'latest'}`;
    const lookup = await this.cache.get(key, () => this.loadSaved(workspaceId, id, version));
    if ('error' in lookup) throw lookup.error;
    return lookup.config;
  }

  private async loadSaved(workspaceId: string, id: string, version: number | undefined): Promise<SavedLookup> {
    const saved = await this.source.load(workspaceId, id, version);
    if (!saved) {
      return { error: configError('AB0111', 'x-gw-config', version === undefined ? `no saved config "${id}" in this workspace` : `no version ${version} of saved config "${id}" in this workspace`) };
    }
    const parsed = (await configParser()).parseSavedConfig(saved.config);
    return 'error' in parsed ? parsed : { config: parsed.config, pinned: version !== undefined };
  }
}
