import { expect } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { newKey, newWorkspace, type Workspace } from './identities-support.js';

export const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

export interface ScimReply<Body = Record<string, unknown>> {
  status: number;
  body: Body;
  contentType: string | null;
}

/** One SCIM call as an identity provider makes it: `Authorization: Bearer <gw API key>`, application/scim+json. */
export async function scim<Body = Record<string, unknown>>(gateway: TestGateway, method: string, path: string, body?: unknown, token: string | null = gateway.apiKey): Promise<ScimReply<Body>> {
  const headers: Record<string, string> = { accept: 'application/scim+json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/scim+json; charset=utf-8';
  const response = await fetch(`${gateway.url}/v1/scim/v2${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Body, contentType: response.headers.get('content-type') };
}

export const patchOp = (...operations: unknown[]) => ({ schemas: [PATCH_OP], Operations: operations });

/**
 * The workspace-identity tests' organisation: a workspace (`own`) with a SCIM key confined to it and its group
 * ("Team") created by that key, and a second workspace (`elsewhere`) for users who live outside it.
 */
export async function confinedScimWorkspace(gateway: TestGateway): Promise<{ own: Workspace; elsewhere: Workspace; confinedKey: string }> {
  const own = await newWorkspace(gateway);
  const elsewhere = await newWorkspace(gateway);
  const confinedKey = (await newKey(gateway, { workspace_id: own.id, scopes: ['scim'] })).key;
  expect((await scim(gateway, 'POST', '/Groups', { schemas: [GROUP], displayName: 'Team' }, confinedKey)).status).toBe(201);
  return { own, elsewhere, confinedKey };
}
