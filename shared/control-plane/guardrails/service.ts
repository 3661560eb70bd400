import { forgetWorkspaceGuardrails } from '../../gateway/guardrail-resolver.js';
import { guardrailDefinitionSchema, type GuardrailDefinition } from '../../guardrails/schemas.js';
import { GatewayError } from '../../http/errors.js';
import { GuardrailRepository, type GuardrailRecord, type GuardrailVersion } from '../../store/guardrail-repository.js';
import type { WorkspaceScope } from '../versioned/types.js';
import { VersionedDocumentService } from '../versioned/versioned-service.js';
import { validate } from '../../http/json-body.js';
import { guardrailUsers } from './references.js';
import type { GuardrailCreate, GuardrailUpdate } from './schemas.js';

/**
 * Guardrails of a workspace. Every update is a new version; the gateway's cache of the workspace is dropped on
 * each change (in this process at once, elsewhere within its 30 s TTL).
 */
export class GuardrailService extends VersionedDocumentService<GuardrailRecord, GuardrailVersion, GuardrailCreate, GuardrailUpdate, ReturnType<typeof presentGuardrail>> {
  constructor(private readonly repository = new GuardrailRepository()) {
    super(repository, { noun: 'guardrail', idPrefix: 'grd' }, presentGuardrail);
  }

  async create({ workspaceId }: WorkspaceScope, body: GuardrailCreate): Promise<GuardrailRecord> {
    const now = new Date().toISOString();
    const record = await this.repository.create({ id: this.documents.newId(), workspace_id: workspaceId, name: body.name, type: body.type, config: body.config, created_at: now } as Omit<GuardrailRecord, 'version' | 'updated_at'>);
    forgetWorkspaceGuardrails(workspaceId);
    return record;
  }

  async update({ workspaceId }: WorkspaceScope, id: string, changes: GuardrailUpdate): Promise<GuardrailRecord> {
    const current = await this.documents.latest(workspaceId, id);
    const definition: GuardrailDefinition = validate(guardrailDefinitionSchema, { type: changes.type ?? current.type, config: changes.config });
    // A discriminated union: name, type and config change together, so the fields are one whole definition.
    const updated = await this.documents.update(current, { name: changes.name ?? current.name, ...definition } as Partial<GuardrailRecord>);
    forgetWorkspaceGuardrails(workspaceId);
    return updated;
  }

  /** A guardrail still named by the workspace defaults or a saved config is not deleted (409): requests would fail. */
  async delete({ workspaceId }: WorkspaceScope, id: string): Promise<GuardrailRecord> {
    const latest = await this.documents.latest(workspaceId, id);
    const users = await guardrailUsers(workspaceId, id);
    if (users.length > 0) throw new GatewayError(409, 'guardrail_in_use', `Guardrail '${id}' is still used by ${users.join(', ')}; remove it there first`);
    await this.repository.delete(workspaceId, id);
    forgetWorkspaceGuardrails(workspaceId);
    return latest;
  }
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

export function presentGuardrailVersion(version: GuardrailVersion) {
  return { object: 'guardrail_version' as const, id: version.id, name: version.name, type: version.type, version: version.version, config: version.config, created_at: version.created_at };
}
