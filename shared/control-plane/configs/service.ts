import { ConfigResolver } from '../../gateway/config/resolve-config.js';
import { GatewayError } from '../../http/errors.js';
import { configErrorFromZod } from '../../gateway/config/errors.js';
import { configSchema, type GatewayConfig } from '../../gateway/config/schema.js';
import { assertPrintableConfigCredentials } from '../../gateway/config/credential-fields.js';
import { buildRouteTree } from '../../gateway/config/target-tree.js';
import { ConfigRepository, type SavedConfigRecord, type SavedConfigVersion } from '../../store/config-repository.js';
import { secretStore } from '../../store/secrets/secret-store-factory.js';
import type { SecretStore } from '../../store/secrets/secret-store.js';
import { checkConfigGuardrails } from '../guardrails/references.js';
import type { WorkspaceScope } from '../versioned/types.js';
import { VersionedDocumentService } from '../versioned/versioned-service.js';
import { configCredentialFields, refuseGatewayKeyCredentials } from '../gateway-key-credential.js';
import type { ConfigCreate, ConfigUpdate } from './schemas.js';
import { migratedItem, sealAndStore, secretNamesOf } from './sealing.js';

/**
 * Saved configs. A config is checked on save exactly as the gateway checks an inline one (schema, providers,
 * conditional target names, weights, custom hosts), so a saved config never fails later for its shape.
 * Credentials never stay in the table: they go to the secret store on save (sealing.ts), every read shows them
 * masked, and a config saved in plaintext before is migrated on its first read here.
 */
export class ConfigService extends VersionedDocumentService<SavedConfigRecord, SavedConfigVersion, ConfigCreate, ConfigUpdate, ReturnType<typeof presentConfig>> {
  constructor(
    private readonly repository = new ConfigRepository(),
    private readonly secrets: () => SecretStore = secretStore,
  ) {
    super(repository, { noun: 'saved config', idPrefix: 'cfg' }, presentConfig);
  }

  async create({ workspaceId }: WorkspaceScope, { name, config: raw }: ConfigCreate): Promise<SavedConfigRecord> {
    const config = checkConfig(raw);
    await refuseGatewayKeyCredentials(configCredentialFields(config));
    await checkConfigGuardrails(workspaceId, config);
    const now = new Date().toISOString();
    const id = this.documents.newId();
    const sealed = await sealAndStore(this.secrets(), { workspaceId, configId: id, version: 1 }, config);
    try {
      return await this.repository.create({ id, workspace_id: workspaceId, name, config: sealed.config, secret_ref: sealed.ref, created_at: now });
    } catch (error) {
      if (sealed.ref) await this.secrets().delete(sealed.ref.name);
      throw error;
    }
  }

  async update({ workspaceId }: WorkspaceScope, id: string, changes: ConfigUpdate): Promise<SavedConfigRecord> {
    const config = checkConfig(changes.config);
    await refuseGatewayKeyCredentials(configCredentialFields(config));
    await checkConfigGuardrails(workspaceId, config);
    const current = await this.documents.latest(workspaceId, id);
    const sealed = await sealAndStore(this.secrets(), { workspaceId, configId: id, version: current.version + 1 }, config, current);
    // No `secret_ref` removes the previous one: the new version holds no credentials.
    const fields = { name: changes.name ?? current.name, config: sealed.config, secret_ref: sealed.ref };
    const updated = await this.documents.update(current, fields, async () => {
      if (sealed.ref) await this.secrets().delete(sealed.ref.name);
    });
    ConfigResolver.forgetEverywhere(workspaceId, id);
    return updated;
  }

  async delete({ workspaceId }: WorkspaceScope, id: string): Promise<SavedConfigRecord> {
    const latest = await this.documents.latest(workspaceId, id);
    const versions = await this.repository.delete(workspaceId, id);
    ConfigResolver.forgetEverywhere(workspaceId, id);
    // After the items are gone, so no stored reference ever points at a deleted secret.
    for (const name of secretNamesOf([latest, ...versions])) await this.secrets().delete(name);
    return latest;
  }

  // Every item read is shown migrated: credentials a config still holds in plaintext move to the secret store.
  protected override readLatest(record: SavedConfigRecord): Promise<SavedConfigRecord> {
    const at = { workspaceId: record.workspace_id, configId: record.id, version: record.version, latest: true };
    return migratedItem(this.repository, this.secrets(), at, record, () => this.repository.get(record.workspace_id, record.id));
  }

  protected override readVersion(workspaceId: string, id: string, version: SavedConfigVersion): Promise<SavedConfigVersion> {
    const at = { workspaceId, configId: id, version: version.version, latest: false };
    return migratedItem(this.repository, this.secrets(), at, version, () => this.repository.getVersion(workspaceId, id, version.version));
  }
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

