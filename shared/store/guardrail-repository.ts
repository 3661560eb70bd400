import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { GuardrailDefinition } from '../guardrails/schemas.js';
import { keys } from './keys.js';
import { VersionedRepository } from './versioned/versioned-repository.js';

/** A guardrail's current state; every version's body (name, type, config) is kept under its own item too. */
export type GuardrailRecord = GuardrailDefinition & {
  id: string;
  workspace_id: string;
  name: string;
  version: number;
  created_at: string;
  updated_at: string;
};

export type GuardrailVersion = GuardrailDefinition & { id: string; name: string; version: number; created_at: string };

/**
 * Guardrails, versioned and scoped to their workspace (store/versioned/); each version keeps the
 * whole definition, so a pinned `grd-…@N` always means the same rule.
 */
export class GuardrailRepository extends VersionedRepository<GuardrailRecord, GuardrailVersion> {
  constructor() {
    super({ kind: 'GUARDRAIL', versionFields: ['name', 'type', 'config'], mutableFields: ['name', 'type', 'config'] });
  }

  /** The workspace's `default_guardrails` setting (kept on the workspace item), read alone. */
  async workspaceDefaults(workspaceId: string): Promise<string[]> {
    const result = await this.client.send(
      new GetCommand({ TableName: this.table, Key: keys.workspace(workspaceId), ProjectionExpression: 'default_guardrails' }),
    );
    const value = result.Item?.default_guardrails;
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
  }
}
