import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { generateRawApiKey, hashApiKey, maskApiKey } from '../../../shared/auth/api-key-secrets.js';
import { ApiKeyRepository } from '../../../shared/store/api-key-repository.js';
import { WorkspaceRepository } from '../../../shared/store/workspace-repository.js';
import type { ApiKey, ApiKeyWithSecret } from '../../../shared/control-plane/api-keys/schemas.js';
import type { Page } from '../../../shared/control-plane/pagination.js';
import type { Workspace } from '../../../shared/control-plane/workspaces/schemas.js';
import type { ErrorBody } from '../../../shared/http/errors.js';
import type { TestGateway } from '../../support/gateway.js';

/** A parsed control-plane answer; `Body` is what a success carries, errors are read with expectError. */
export interface Reply<Body = unknown> {
  status: number;
  body: Body;
  headers: Headers;
}

export type { ApiKey, ApiKeyWithSecret, Page, Workspace };

export interface CallOptions {
  /** x-gw-api-key; the bootstrap admin key when omitted, no header with null. */
  key?: string | null;
  /** Sent as `Authorization: Bearer <token>`. */
  bearer?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One real HTTP call to the local runtime's control plane. */
export async function api<Body = unknown>(gateway: TestGateway, method: string, path: string, options: CallOptions = {}): Promise<Reply<Body>> {
  const key = options.key === undefined ? (options.bearer ? null : gateway.apiKey) : options.key;
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (key !== null) headers['x-gw-api-key'] = key;
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Body, headers: response.headers };
}

/** Asserts gw's error shape: status, code, and (when given) param and a message fragment. */
export function expectError(reply: Reply<unknown>, status: number, code: string, expected: { param?: string | null; message?: string | RegExp } = {}): void {
  const body = reply.body as ErrorBody;
  expect({ status: reply.status, code: body.error?.code }, JSON.stringify(body)).toEqual({ status, code });
  expect(body.status).toBe('failure');
  expect(body.error.message).toEqual(expect.any(String));
  expect(body.error.type).toEqual(expect.any(String));
  expect(body.error).toHaveProperty('param');
  if (expected.param !== undefined) expect(body.error.param).toBe(expected.param);
  if (expected.message !== undefined) expect(body.error.message).toMatch(expected.message);
}

/** Invites an organisation user as a member of one workspace (as the bootstrap admin); its id. */
export async function inviteMember(gateway: TestGateway, email: string, workspaceId: string): Promise<string> {
  const invited = await api<{ id: string }>(gateway, 'POST', '/v1/admin/users/invites', { body: { email, workspaces: [{ workspace_id: workspaceId, role: 'member' }] } });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  return invited.body.id;
}

/** Creates a workspace through the API (as the bootstrap admin). */
export async function newWorkspace(gateway: TestGateway, body: Record<string, unknown> = {}): Promise<Workspace> {
  const reply = await api<Workspace>(gateway, 'POST', '/v1/workspaces', { body: { name: `ws ${randomUUID().slice(0, 8)}`, ...body } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

/** Creates an API key through the API; returns the response body (with the raw `key`). */
export async function newKey(gateway: TestGateway, body: Record<string, unknown>, key?: string): Promise<ApiKeyWithSecret> {
  const reply = await api<ApiKeyWithSecret>(gateway, 'POST', '/v1/api-keys', { key, body: { name: 'test key', ...body } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

/** Reads every page of a list, following next_cursor. */
export async function allPages<Item>(gateway: TestGateway, path: string, options: CallOptions = {}, limit = 2): Promise<{ items: Item[]; pages: number }> {
  const items: Item[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const reply: Reply<Page<Item>> = await api<Page<Item>>(gateway, 'GET', `${path}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, options);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.object).toBe('list');
    expect(reply.body.data.length).toBeLessThanOrEqual(limit);
    items.push(...reply.body.data);
    cursor = reply.body.next_cursor;
    expect(reply.body.has_more).toBe(cursor !== null);
    pages++;
  } while (cursor);
  return { items, pages };
}

/**
 * A second organisation with a workspace and an admin key, made straight through the repositories (the API
 * has no "create organisation": bootstrap makes the first). The test gateway runs in this process.
 */
export async function otherOrganisation(): Promise<{ organisationId: string; workspaceId: string; adminKey: string }> {
  const organisationId = randomUUID();
  const workspaceId = randomUUID();
  const now = new Date().toISOString();
  const workspaces = new WorkspaceRepository();
  await workspaces.createOrganisation({ id: organisationId, name: 'other organisation', created_at: now });
  await workspaces.createWorkspace({ id: workspaceId, organisation_id: organisationId, name: 'other', slug: 'other', created_at: now });
  const adminKey = generateRawApiKey();
  await new ApiKeyRepository().create({
    id: randomUUID(),
    key_hash: hashApiKey(adminKey),
    masked: maskApiKey(adminKey),
    name: 'other admin',
    kind: 'admin',
    type: 'service',
    organisation_id: organisationId,
    workspace_id: workspaceId,
    scopes: [],
    status: 'active',
    created_at: now,
  });
  return { organisationId, workspaceId, adminKey };
}

/** Waits until the wall clock has passed `iso` (for expiry; asserts on order, never on speed). */
export async function waitUntilPast(iso: string): Promise<void> {
  const target = Date.parse(iso);
  while (Date.now() <= target) await new Promise((resolve) => setTimeout(resolve, Math.min(200, target - Date.now() + 5)));
}
