import { ConfigResolver } from '../../gateway/config/resolve-config.js';
import { randomBytes } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import { configErrorFromZod } from '../../gateway/config/errors.js';
import { configSchema, type GatewayConfig } from '../../gateway/config/schema.js';
import { assertPrintableConfigCredentials } from '../../gateway/config/credential-fields.js';
import { buildRouteTree } from '../../gateway/config/target-tree.js';
import { ConfigRepository, type SavedConfigRecord, type SavedConfigVersion } from '../../store/config-repository.js';
import { secretStore } from '../../store/secrets/secret-store-factory.js';
import type { SecretStore } from '../../store/secrets/secret-store.js';
import { checkConfigGuardrails } from '../guardrails/references.js';
import type { PageRequest } from '../pagination.js';
import { migratedItem, sealAndStore, secretNamesOf } from './sealing.js';

/**
 * Saved configs. A config is checked on save exactly as the gateway checks an inline one (schema, providers,
 * conditional target names, weights, custom hosts), so a saved config never fails later for its shape.
 * Credentials never stay in the table: they go to the secret store on save (sealing.ts), every read shows them
 * masked, and a config saved in plaintext before is migrated on its first read here.
 */
export class ConfigService {
  constructor(
    private readonly repository = new ConfigRepository(),
    private readonly secrets: () => SecretStore = secretStore,
  ) {}

  async create(workspaceId: string, name: string, raw: unknown): Promise<SavedConfigRecord> {
    const config = checkConfig(raw);
    await checkConfigGuardrails(workspaceId, config);
    const now = new Date().toISOString();
    const id = `cfg-${randomBytes(9).toString('base64url')}`;
    const sealed = await sealAndStore(this.secrets(), { workspaceId, configId: id, version: 1 }, config);
    try {
      return await this.repository.create({ id, workspace_id: workspaceId, name, config: sealed.config, secret_ref: sealed.ref, created_at: now });
    } catch (error) {
      if (sealed.ref) await this.secrets().delete(sealed.ref.name);
      throw error;
    }
  }

  async get(workspaceId: string, id: string, version?: number): Promise<SavedConfigRecord> {
    const latest = await this.latest(workspaceId, id);
    if (version === undefined || version === latest.version) return latest;
    const stored = await this.repository.getVersion(workspaceId, id, version);
    if (!stored) throw new GatewayError(404, 'not_found', `Saved config '${id}' has no version ${version}`);
    const pinned = await this.migratedVersion(workspaceId, id, stored);
    return { ...latest, version: pinned.version, config: pinned.config, secret_ref: pinned.secret_ref, updated_at: pinned.created_at };
  }

  async versions(workspaceId: string, id: string): Promise<SavedConfigVersion[]> {
    await this.latest(workspaceId, id);
    const versions = await this.repository.listVersions(workspaceId, id);
    return Promise.all(versions.map((version) => this.migratedVersion(workspaceId, id, version)));
  }

  async list(workspaceId: string, page: PageRequest) {
    const { items, lastKey } = await this.repository.list(workspaceId, page.limit, page.startKey);
    return { items: await Promise.all(items.map((item) => this.migratedLatest(item))), lastKey };
  }

  async update(workspaceId: string, id: string, changes: { name?: string; config: unknown }): Promise<SavedConfigRecord> {
    const config = checkConfig(changes.config);
    await checkConfigGuardrails(workspaceId, config);
    const current = await this.latest(workspaceId, id);
    const sealed = await sealAndStore(this.secrets(), { workspaceId, configId: id, version: current.version + 1 }, config, current);
    const updated = await this.repository.update(current, { name: changes.name, config: sealed.config, secret_ref: sealed.ref }, new Date().toISOString());
    if (!updated) {
      if (sealed.ref) await this.secrets().delete(sealed.ref.name);
      throw new GatewayError(409, 'conflict', `Saved config '${id}' was changed concurrently; read it again and retry`);
    }
    ConfigResolver.forgetEverywhere(workspaceId, id);
    return updated;
  }

  async delete(workspaceId: string, id: string): Promise<void> {
    const latest = await this.latest(workspaceId, id);
    const versions = await this.repository.listVersions(workspaceId, id);
    await this.repository.delete(workspaceId, id);
    ConfigResolver.forgetEverywhere(workspaceId, id);
    // After the items are gone, so no stored reference ever points at a deleted secret.
    for (const name of secretNamesOf([latest, ...versions])) await this.secrets().delete(name);
  }

  private async latest(workspaceId: string, id: string): Promise<SavedConfigRecord> {
    const latest = await this.repository.get(workspaceId, id);
    if (!latest) throw configNotFound(id);
    return this.migratedLatest(latest);
  }

  private migratedLatest(record: SavedConfigRecord): Promise<SavedConfigRecord> {
    const at = { workspaceId: record.workspace_id, configId: record.id, version: record.version, latest: true };
    return migratedItem(this.repository, this.secrets(), at, record, () => this.repository.get(record.workspace_id, record.id));
  }

  private migratedVersion(workspaceId: string, id: string, version: SavedConfigVersion): Promise<SavedConfigVersion> {
    const at = { workspaceId, configId: id, version: version.version, latest: false };
    return migratedItem(this.repository, this.secrets(), at, version, () => this.repository.getVersion(workspaceId, id, version.version));
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
  assertPrintableConfigCredentials(parsed.data);
  return parsed.data;
}

/** A saved config as every read returns it: credentials masked (never the secret reference). */
export function presentConfig(record: SavedConfigRecord) {
  return { id: record.id, object: 'config' as const, name: record.name, workspace_id: record.workspace_id, version: record.version, config: record.config, created_at: record.created_at, updated_at: record.updated_at };
}

export function presentConfigVersion(version: SavedConfigVersion) {
  return { object: 'config_version' as const, id: version.id, version: version.version, config: version.config, created_at: version.created_at };
}

export type { Principal };
