import { randomBytes } from 'node:crypto';
import { forgetWorkspaceGuardrails } from '../../gateway/guardrail-resolver.js';
import { guardrailDefinitionSchema, type GuardrailDefinition } from '../../guardrails/schemas.js';
import { GatewayError } from '../../http/errors.js';
import { GuardrailRepository, type GuardrailRecord } from '../../store/guardrail-repository.js';
import type { PageRequest } from '../pagination.js';
import { validate } from '../validation.js';
import { guardrailUsers } from './references.js';
import type { GuardrailCreate, GuardrailUpdate } from './schemas.js';

/**
 * Guardrails of a workspace. Every update is a new version; the gateway's cache of the workspace is dropped on
 * each change (in this process at once, elsewhere within its 30 s TTL).
 */
export class GuardrailService {
  constructor(private readonly repository = new GuardrailRepository()) {}

  async create(workspaceId: string, body: GuardrailCreate): Promise<GuardrailRecord> {
    const now = new Date().toISOString();
    const record = await this.repository.create({ id: `grd-${randomBytes(9).toString('base64url')}`, workspace_id: workspaceId, name: body.name, type: body.type, config: body.config, created_at: now } as Omit<GuardrailRecord, 'version' | 'updated_at'>);
    forgetWorkspaceGuardrails(workspaceId);
    return record;
  }

  async get(workspaceId: string, id: string, version?: number): Promise<GuardrailRecord> {
    const latest = await this.repository.get(workspaceId, id);
    if (!latest) throw guardrailNotFound(id);
    if (version === undefined || version === latest.version) return latest;
    const pinned = await this.repository.getVersion(workspaceId, id, version);
    if (!pinned) throw new GatewayError(404, 'not_found', `Guardrail '${id}' has no version ${version}`);
    return { ...latest, name: pinned.name, type: pinned.type, config: pinned.config, version: pinned.version, updated_at: pinned.created_at } as GuardrailRecord;
  }

  async versions(workspaceId: string, id: string) {
    await this.get(workspaceId, id);
    return this.repository.listVersions(workspaceId, id);
  }

  list(workspaceId: string, page: PageRequest) {
    return this.repository.list(workspaceId, page.limit, page.startKey);
  }

  async update(workspaceId: string, id: string, changes: GuardrailUpdate): Promise<GuardrailRecord> {
    const current = await this.get(workspaceId, id);
    const definition: GuardrailDefinition = validate(guardrailDefinitionSchema, { type: changes.type ?? current.type, config: changes.config });
    const updated = await this.repository.update(current, { name: changes.name ?? current.name, ...definition }, new Date().toISOString());
    if (!updated) throw new GatewayError(409, 'conflict', `Guardrail '${id}' was changed concurrently; read it again and retry`);
    forgetWorkspaceGuardrails(workspaceId);
    return updated;
  }

  /** A guardrail still named by the workspace defaults or a saved config is not deleted (409): requests would fail. */
  async delete(workspaceId: string, id: string): Promise<void> {
    await this.get(workspaceId, id);
    const users = await guardrailUsers(workspaceId, id);
    if (users.length > 0) throw new GatewayError(409, 'guardrail_in_use', `Guardrail '${id}' is still used by ${users.join(', ')}; remove it there first`);
    await this.repository.delete(workspaceId, id);
    forgetWorkspaceGuardrails(workspaceId);
  }
}

export function guardrailNotFound(id: string): GatewayError {
  return new GatewayError(404, 'not_found', `No guardrail with id '${id}' in this workspace`);
}

export function presentGuardrail(record: GuardrailRecord) {
  return {
    id: record.id,
    object: 'guardrail' as const,
    name: record.name,
    type: record.type,
    config: record.config as Record<string, unknown>,
    version: record.version,
    workspace_id: record.workspace_id,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}
