import { ConfigRepository } from '../../store/config-repository.js';
import { VirtualKeyRepository } from '../../store/virtual-key-repository.js';
import { canonicalProvider } from './catalog.js';

/** Enough for any real workspace; a listing never turns into an unbounded read. */
const MAX_PAGES = 10;
const PAGE_SIZE = 100;

/** Every `provider` named anywhere in a config (targets, nested strategies, the semantic cache's embeddings …). */
function providersInConfig(config: unknown, into: Set<string>): void {
  if (Array.isArray(config)) {
    for (const item of config) providersInConfig(item, into);
    return;
  }
  if (typeof config !== 'object' || config === null) return;
  for (const [field, value] of Object.entries(config)) {
    if (field === 'provider' && typeof value === 'string') {
      const slug = canonicalProvider(value.replace(/^@/, ''));
      if (slug) into.add(slug);
    } else {
      providersInConfig(value, into);
    }
  }
}

/**
 * The providers a workspace can reach: those of its virtual keys and those its saved configs name. Empty when it
 * has neither (GET /v1/models then lists every known model: the caller may still pass its own provider key).
 */
export async function reachableProviders(workspaceId: string, virtualKeys = new VirtualKeyRepository(), configs = new ConfigRepository()): Promise<Set<string>> {
  const providers = new Set<string>();
  let keyCursor: Record<string, unknown> | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await virtualKeys.list(workspaceId, PAGE_SIZE, keyCursor);
    for (const key of result.items) providers.add(key.provider);
    keyCursor = result.nextKey;
    if (!keyCursor) break;
  }
  let configCursor: Record<string, unknown> | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await configs.list(workspaceId, PAGE_SIZE, configCursor);
    for (const record of result.items) providersInConfig(record.config, providers);
    configCursor = result.lastKey;
    if (!configCursor) break;
  }
  return providers;
}
