import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { expectError, newKey, type Reply } from '../control-plane/identities-support.js';

/**
 * Bad input is a 400 in the one error shape, never a 500 (issue #30): malformed percent-encoding in any path,
 * ids longer than gw accepts (in paths and bodies), JSON nested deeper than gw accepts (every JSON body parser).
 * Path checks run before authentication and before routing, so the answer is the same with or without a key and
 * for paths that exist or not: it says nothing about which resources exist.
 */
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

async function raw(method: string, path: string, options: { key?: string | null; body?: string; headers?: Record<string, string> } = {}): Promise<Reply<unknown>> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? gateway.apiKey : options.key;
  if (key !== null) headers['x-gw-api-key'] = key;
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(`${gateway.url}${path}`, { method, headers, body: options.body });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = { unparsed: text };
  }
  return { status: response.status, body, headers: response.headers };
}

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deepObject = (depth: number, inner = '1') => `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;

const MALFORMED = ['%ff', '%E0%A4%A', '%', 'ok%zz'];
const PATHS_WITH_A_SEGMENT = [
  // gateway
  ['GET', '/v1/responses/{x}'],
  ['DELETE', '/v1/responses/{x}'],
  ['GET', '/v1/responses/{x}/input_items'],
  ['POST', '/v1/prompts/{x}/completions'],
  ['POST', '/v1/mcp/{x}'],
  // control plane
  ['GET', '/v1/configs/{x}'],
  ['GET', '/v1/logs/{x}'],
  ['DELETE', '/v1/virtual-keys/{x}'],
  // no such route: the same answer, so the check tells nothing about which paths exist
  ['GET', '/v1/no-such-resource/{x}'],
  // the public console's files
  ['GET', '/console/assets/{x}'],
] as const;

describe('malformed percent-encoding in a path', () => {
  it('is a 400 invalid_path on every route, gateway and control plane, with and without a key', async () => {
    for (const [method, pattern] of PATHS_WITH_A_SEGMENT) {
      for (const bad of MALFORMED) {
        for (const key of [gateway.apiKey, null, 'gwk_never_issued_0000000000000000000']) {
          const reply = await raw(method, pattern.replace('{x}', bad), { key, body: method === 'POST' ? '{}' : undefined });
          expectError(reply, 400, 'invalid_path');
        }
      }
    }
  });

  it('is a 400 invalid_path on SCIM routes too, in SCIM’s error schema, with and without a key', async () => {
    for (const bad of MALFORMED) {
      for (const authorization of [`Bearer ${gateway.apiKey}`, undefined]) {
        const response = await fetch(`${gateway.url}/v1/scim/v2/Users/${bad}`, { headers: authorization ? { authorization } : {} });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ status: '400', code: 'invalid_path' });
      }
    }
  });

  it('still decodes well-formed escapes in a path parameter', async () => {
    const reply = await raw('GET', '/v1/configs/caf%C3%A9');
    expectError(reply, 404, 'not_found', { message: /café/ });
  });
});

describe('ids longer than gw accepts', () => {
  const longId = `resp_${'a'.repeat(2_100)}`;

  it('a response id over 2 KB on GET and DELETE /v1/responses/{id} is a 400, with and without a key', async () => {
    for (const method of ['GET', 'DELETE']) {
      for (const key of [gateway.apiKey, null]) {
        expectError(await raw(method, `/v1/responses/${longId}`, { key }), 400, 'invalid_path');
        expectError(await raw(method, `/v1/responses/${longId}/input_items`, { key }), 400, 'invalid_path');
      }
    }
  });

  it('a long id in any control-plane path is a 400 before anything else', async () => {
    for (const path of [`/v1/configs/${'c'.repeat(3_000)}`, `/v1/logs/${'l'.repeat(3_000)}`, `/v1/api-keys/${'k'.repeat(3_000)}/rotate`]) {
      expectError(await raw('GET', path), 400, 'invalid_path');
      expectError(await raw('GET', path, { key: null }), 400, 'invalid_path');
    }
  });

  it('a 10 KB previous_response_id is a 400 naming the field', async () => {
    const key = (await newKey(gateway, { scopes: ['completions:write'] })).key;
    const reply = await raw('POST', '/v1/responses', {
      key,
      headers: { 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: 'gpt-4o-mini', input: 'hi', previous_response_id: `resp_${'x'.repeat(10_240)}` }),
    });
    expectError(reply, 400, 'invalid_request', { param: 'previous_response_id' });
  });
});

describe('ids in queries and bodies', () => {
  it('a 3 KB workspace_id on any resource an admin key reads is a 400 naming workspace_id', async () => {
    const long = 'w'.repeat(3_000);
    for (const path of ['/v1/logs/x', '/v1/traces/x', '/v1/exports/x', '/v1/configs', '/v1/guardrails', '/v1/providers', '/v1/virtual-keys', '/v1/mcp-servers', '/v1/prompts']) {
      expectError(await raw('GET', `${path}?workspace_id=${long}`), 400, 'invalid_request', { param: 'workspace_id' });
    }
  });

  it('a 3 KB item_reference id in a Responses input is a 400 naming the item', async () => {
    const reply = await raw('POST', '/v1/responses', {
      headers: { 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: 'gpt-4o-mini', input: [{ type: 'item_reference', id: `msg_${'i'.repeat(3_000)}` }] }),
    });
    expectError(reply, 400, 'invalid_request', { param: 'input.0.id' });
  });
});

describe('ids in headers and cursors', () => {
  it('a 3 KB x-gw-virtual-key or virtual_key in a config is a 400, not a store error', async () => {
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expectError(await raw('POST', '/v1/chat/completions', { headers: { 'x-gw-virtual-key': `vk-${'v'.repeat(3_000)}` }, body }), 400, 'invalid_header', { param: 'x-gw-virtual-key' });
    const config = await raw('POST', '/v1/chat/completions', { headers: { 'x-gw-config': JSON.stringify({ virtual_key: `vk-${'v'.repeat(3_000)}` }) }, body });
    expect(config.status, JSON.stringify(config.body)).toBe(400);
  });

  it('a made-up cursor holding nested values is a 400 invalid_cursor', async () => {
    const cursor = Buffer.from(JSON.stringify({ pk: { M: { deep: [1, 2] } }, sk: 'x' })).toString('base64url');
    expectError(await raw('GET', `/v1/configs?cursor=${cursor}`), 400, 'invalid_cursor');
  });
});

describe('JSON nested deeper than gw accepts', () => {
  it('an MCP body nested 5,000 deep is a 400 json_too_deep', async () => {
    const key = (await newKey(gateway, { scopes: ['mcp:invoke'] })).key;
    const reply = await raw('POST', '/v1/mcp/anything', { key, headers: { accept: 'application/json, text/event-stream' }, body: nested(5_000) });
    expectError(reply, 400, 'json_too_deep');
    const rpc = await raw('POST', '/v1/mcp/anything', { key, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${deepObject(5_000)}}` });
    expectError(rpc, 400, 'json_too_deep');
  });

  it('a control-plane body nested 5,000 deep is a 400 json_too_deep on every resource', async () => {
    for (const path of ['/v1/configs', '/v1/policies/rate-limits', '/v1/prompts', '/v1/guardrails', '/v1/virtual-keys', '/v1/api-keys', '/v1/exports', '/v1/mcp-servers', '/v1/integrations']) {
      expectError(await raw('POST', path, { body: deepObject(5_000) }), 400, 'json_too_deep');
      expectError(await raw('POST', path, { body: nested(5_000) }), 400, 'json_too_deep');
    }
  });

  it('without a key, a deep body is the usual 401: authentication still comes first for bodies', async () => {
    expectError(await raw('POST', '/v1/configs', { key: null, body: deepObject(5_000) }), 401, 'api_key_missing');
    expect((await raw('POST', '/v1/mcp/anything', { key: null, body: nested(5_000) })).status).toBe(401);
    expect((await raw('POST', '/v1/chat/completions', { key: null, body: nested(5_000) })).status).toBe(401);
  });

  it('a SCIM body nested 5,000 deep is a 400 in SCIM’s error schema', async () => {
    const response = await fetch(`${gateway.url}/v1/scim/v2/Users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/scim+json' },
      body: `{"userName":"deep@example.com","name":${deepObject(5_000, '"x"')}}`,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ status: '400', scimType: 'invalidSyntax' });
  });

  it('an inline config, metadata or prompt-variables header nested 5,000 deep is a 400', async () => {
    const headers = { 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-test' };
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const config = await raw('POST', '/v1/chat/completions', { headers: { ...headers, 'x-gw-config': `{"provider":"openai","override_params":${deepObject(1_000)}}` }, body });
    expectError(config, 400, 'json_too_deep', { param: 'x-gw-config' });
    const metadata = await raw('POST', '/v1/chat/completions', { headers: { ...headers, 'x-gw-metadata': `{"a":${deepObject(1_000)}}` }, body });
    expectError(metadata, 400, 'json_too_deep', { param: 'x-gw-metadata' });
    const forward = await raw('POST', '/v1/chat/completions', { headers: { ...headers, 'x-gw-forward-headers': nested(1_000) }, body });
    expectError(forward, 400, 'json_too_deep', { param: 'x-gw-forward-headers' });
  });

  it('a gateway body nested deep stays a 400 (the check that already held)', async () => {
    expectError(await raw('POST', '/v1/chat/completions', { body: deepObject(5_000) }), 400, 'json_too_deep');
  });
});
