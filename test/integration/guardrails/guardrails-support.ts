import { expect } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { call } from '../control-plane/policies-support.js';

export interface GuardrailBody {
  id: string;
  object: 'guardrail';
  name: string;
  type: string;
  config: Record<string, unknown>;
  version: number;
  workspace_id: string;
}

/** Creates a guardrail through the API (the bootstrap admin key unless `key` is given) and returns it. */
export async function createGuardrail(gateway: TestGateway, body: Record<string, unknown>, key?: string): Promise<GuardrailBody> {
  const created = await call<GuardrailBody>(gateway, 'POST', '/v1/guardrails', { body, key });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** Sets the workspace's default_guardrails (as the bootstrap admin). */
export async function setWorkspaceDefaults(gateway: TestGateway, workspaceId: string, ids: string[]): Promise<void> {
  const updated = await call(gateway, 'PATCH', `/v1/workspaces/${workspaceId}`, { body: { default_guardrails: ids } });
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
}

/** Headers that send a request to the mock provider as OpenAI, optionally under an inline config. */
export function toMock(upstream: MockUpstream, config?: Record<string, unknown>): Record<string, string> {
  if (config) return { 'x-gw-config': JSON.stringify(config) };
  return { 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-provider' };
}

/** A config target that calls the mock provider. */
export function mockTarget(upstream: MockUpstream, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { provider: 'openai', api_key: 'sk-provider', custom_host: upstream.url, ...extra };
}

export interface Sent {
  status: number;
  body: { error?: { message: string; type: string; code: string; param: string | null }; [key: string]: unknown };
}

/** One gateway request; the body is read whole. */
export async function send(gateway: TestGateway, path: string, body: unknown, headers: Record<string, string>, key = gateway.apiKey): Promise<Sent> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': key, ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : { text } };
}

/** Asserts a guardrail denial: 400, type guardrail_violation, the rule's code, the guardrail's id and name. */
export function expectDenied(sent: Sent, code: string, guardrail: GuardrailBody, param?: string | null): void {
  expect(sent.status, JSON.stringify(sent.body)).toBe(400);
  expect(sent.body.error, JSON.stringify(sent.body)).toMatchObject({ type: 'guardrail_violation', code });
  expect(sent.body.error!.message).toContain(guardrail.id);
  expect(sent.body.error!.message).toContain(guardrail.name);
  expect(sent.body.status).toBe('failure');
  if (param !== undefined) expect(sent.body.error!.param).toBe(param);
}

export const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] };
