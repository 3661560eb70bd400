import { randomBytes } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import { configErrorFromZod } from '../../gateway/config/errors.js';
import { configSchema, type GatewayConfig } from '../../gateway/config/schema.js';
import { buildRouteTree } from '../../gateway/config/target-tree.js';
import { ConfigRepository, type SavedConfigRecord } from '../../store/config-repository.js';
import type { PageRequest } from '../pagination.js';

/**
 * Saved configs. A config is checked on save exactly as the gateway checks an inline one (schema, providers,
 * conditional target names, weights, custom hosts), so a saved config never fails later for its shape.
 */
export class ConfigService {
  constructor(private readonly repository = new ConfigRepository()) {}

  async create(workspaceId: string, name: string, raw: unknown): Promise<SavedConfigRecord> {
    const config = checkConfig(raw);
    const now = new Date().toISOString();
    return this.repository.create({ id: `cfg-${randomBytes(9).toString('base64url')}`, workspace_id: workspaceId, name, config, created_at: now });
  }

  async get(workspaceId: string, id: string, version?: number): Promise<SavedConfigRecord> {
    const latest = await this.repository.get(workspaceId, id);
    if (!latest) throw configNotFound(id);
    if (version === undefined || version === latest.version) return latest;
    const pinned = await this.repository.getVersion(workspaceId, id, version);
    if (!pinned) throw new GatewayError(404, 'not_found', `Saved config '${id}' has no version ${version}`);
    return { ...latest, version: pinned.version, config: pinned.config, updated_at: pinned.created_at };
  }

  async versions(workspaceId: string, id: string) {
    await this.get(workspaceId, id);
    return this.repository.listVersions(workspaceId, id);
  }

  list(workspaceId: string, page: PageRequest) {
    return this.repository.list(workspaceId, page.limit, page.startKey);
  }

  async update(workspaceId: string, id: string, changes: { name?: string; config: unknown }): Promise<SavedConfigRecord> {
    const config = checkConfig(changes.config);
    const current = await this.get(workspaceId, id);
    const updated = await this.repository.update(current, { name: changes.name, config }, new Date().toISOString());
    if (!updated) throw new GatewayError(409, 'conflict', `Saved config '${id}' was changed concurrently; read it again and retry`);
    return updated;
  }

  async delete(workspaceId: string, id: string): Promise<void> {
    await this.get(workspaceId, id);
    await this.repository.delete(workspaceId, id);
  }
}

export function configNotFound(id: string): GatewayError {
  return new GatewayError(404, 'not_found', `No saved config with id '${id}' in this workspace`);
}

function checkConfig(raw: unknown): GatewayConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new GatewayError(400, 'AB0105', 'Invalid config at config: the config must be a JSON object', { param: 'config' });
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw configErrorFromZod(parsed.error, raw);
  // The same semantic checks the gateway runs, with no request headers to inherit from.
  buildRouteTree(parsed.data, { azure: {}, vertex: {}, aws: {}, overrideParams: {} });
  return parsed.data;
}

export function presentConfig(record: SavedConfigRecord) {
  return { id: record.id, object: 'config' as const, name: record.name, workspace_id: record.workspace_id, version: record.version, config: record.config, created_at: record.created_at, updated_at: record.updated_at };
}

export type { Principal };
