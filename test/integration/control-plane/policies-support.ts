import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { generateRawApiKey, hashApiKey, maskApiKey } from '../../../shared/auth/api-key-secrets.js';
import { ApiKeyRepository, type ApiKeyKind } from '../../../shared/store/api-key-repository.js';
import { WorkspaceRepository } from '../../../shared/store/workspace-repository.js';
import type { TestGateway } from '../../support/gateway.js';

export interface CreatedKey {
  raw: string;
  id: string;
}

export interface CallResult<Body = Record<string, unknown>> {
  status: number;
  body: Body;
  headers: Headers;
}

/** An HTTP call to the control plane with a given key (or none), returning the parsed JSON body. */
export async function call<Body = Record<string, unknown>>(
  gateway: TestGateway,
  method: string,
  path: string,
  options: { key?: string | null; body?: unknown } = {},
): Promise<CallResult<Body>> {
  const key = options.key === undefined ? gateway.apiKey : options.key;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== null) headers['x-gw-api-key'] = key;
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  return { status: response.status, body: (await response.json()) as Body, headers: response.headers };
}

/**
 * Tenants created straight through the repositories (the test gateway runs in this process and shares the
 * store), so these tests do not depend on the workspace and API-key endpoints.
 */
export async function createWorkspace(organisationId: string, slug: string): Promise<string> {
  const id = randomUUID();
  await new WorkspaceRepository().createWorkspace({ id, organisation_id: organisationId, name: `Workspace ${slug}`, slug, created_at: new Date().toISOString() });
  return id;
}

export async function createOrganisation(): Promise<{ organisationId: string; workspaceId: string }> {
  const organisationId = randomUUID();
  await new WorkspaceRepository().createOrganisation({ id: organisationId, name: 'other organisation', created_at: new Date().toISOString() });
  const workspaceId = await createWorkspace(organisationId, `other-${organisationId.slice(0, 8)}`);
  return { organisationId, workspaceId };
}

export async function createKey(options: { organisationId: string; workspaceId: string; kind?: ApiKeyKind; scopes?: string[]; name?: string }): Promise<CreatedKey> {
  const raw = generateRawApiKey();
  const id = randomUUID();
  await new ApiKeyRepository().create({
    id,
    key_hash: hashApiKey(raw),
    masked: maskApiKey(raw),
    name: options.name ?? 'test key',
    kind: options.kind ?? 'workspace',
    type: 'service',
    organisation_id: options.organisationId,
    workspace_id: options.workspaceId,
    scopes: options.scopes ?? [],
    status: 'active',
    created_at: new Date().toISOString(),
  });
  return { raw, id };
}

/** A valid rate-limit create payload; tests change one field at a time. */
export function rateLimitPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    conditions: [{ key: 'model', value: 'gpt-4o-mini' }],
    group_by: [{ key: 'api_key' }],
    type: 'requests',
    unit: 'rpm',
    value: 60,
    name: 'sixty a minute',
    ...overrides,
  };
}

export function usageLimitPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return rateLimitPayload({ type: 'tokens', unit: 'rpd', credit_limit: { type: 'cost', value: 25 }, periodic_reset: 'monthly', name: 'monthly budget', ...overrides });
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The error body every refusal has; `message` is a fragment the message must contain. */
export function expectedError(code: string, type: string, param: string | null, message: string) {
  return { error: { code, type, param, message: expect.stringContaining(message) }, status: 'failure' };
}
