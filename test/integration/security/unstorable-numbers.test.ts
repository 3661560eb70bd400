import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { requestLogsOfTrace } from '../../support/request-logs.js';
import { viaMock } from '../observability/observability-support.js';
import { rateLimitPayload, usageLimitPayload } from '../control-plane/policies-support.js';

/**
 * Numbers beyond what gw can store and use exactly (±(2^53 − 1)) in any control-plane body are a 400 naming the
 * field, not a 500 from the store's marshaller. Class: unchecked numeric range of client input.
 * Bodies are sent as raw text: `9007199254740993` cannot be written by JSON.stringify at all.
 */
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

async function post(path: string, text: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, ...headers }, body: text });
  return { status: response.status, body: (await response.json()) as { error: { code: string; param: string | null; type: string; message: string } } };
}

/** A JSON body with `"__N__"` replaced by the raw number text. */
const withNumber = (body: Record<string, unknown>, raw: string) => JSON.stringify(body).replace('"__N__"', raw);

describe('numbers beyond 2^53 in control-plane bodies', () => {
  const cases: Array<{ name: string; path: string; body: Record<string, unknown>; param: string }> = [
    { name: 'a rate limit value', path: '/v1/policies/rate-limits', body: rateLimitPayload({ value: '__N__' }), param: 'value' },
    { name: 'a usage limit credit', path: '/v1/policies/usage-limits', body: usageLimitPayload({ credit_limit: { type: 'cost', value: '__N__' } }), param: 'credit_limit.value' },
    { name: 'a config’s override_params seed', path: '/v1/configs', body: { name: 'seed', config: { provider: 'openai', override_params: { seed: '__N__' } } }, param: 'config.override_params.seed' },
    { name: 'a deployment config', path: '/v1/deployments', body: { name: 'big', slug: 'big-numbers', type: 'production', config: { provider: 'openai', override_params: { max_tokens: '__N__' } } }, param: 'config.override_params.max_tokens' },
    // The check runs on the parsed body before any schema, so every resource gets it, whatever its fields.
    { name: 'an API key’s rate limit', path: '/v1/api-keys', body: { name: 'big', type: 'service', scopes: ['logs:read'], rate_limits: [{ type: 'requests', unit: 'rpm', value: '__N__' }] }, param: 'rate_limits[0].value' },
    { name: 'a virtual key’s usage limit', path: '/v1/virtual-keys', body: { name: 'big', provider: 'openai', credential: 'sk-big', usage_limits: { credit_limit: '__N__' } }, param: 'usage_limits.credit_limit' },
    { name: 'a prompt’s parameter', path: '/v1/prompts', body: { name: 'big', template: 'Hi', parameters: { temperature: '__N__' } }, param: 'parameters.temperature' },
    { name: 'a guardrail check’s setting', path: '/v1/guardrails', body: { name: 'big', checks: [{ id: 'default.wordCount', parameters: { maxWords: '__N__' } }] }, param: 'checks[0].parameters.maxWords' },
    { name: 'a workspace budget', path: '/v1/workspaces', body: { name: 'big', budget: { limit: '__N__' } }, param: 'budget.limit' },
  ];
  for (const raw of ['9007199254740993', '1e16', '1e308', '-1e308', '9223372036854775808']) {
    for (const { name, path, body, param } of cases) {
      it(`${name} of ${raw} is a 400 naming ${param}`, async () => {
        const reply = await post(path, withNumber(body, raw));
        expect({ status: reply.status, code: reply.body.error?.code, param: reply.body.error?.param }, JSON.stringify(reply.body)).toEqual({ status: 400, code: 'invalid_number', param });
        expect(reply.body.error.type).toBe('invalid_request_error');
      });
    }
  }

  it('still accepts the largest exact integer', async () => {
    const reply = await post('/v1/configs', withNumber({ name: 'max seed', config: { provider: 'openai', override_params: { seed: '__N__' } } }, String(Number.MAX_SAFE_INTEGER)));
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  });
});

describe('numbers beyond 2^53 in SCIM bodies', () => {
  // SCIM keeps attributes it does not model (an extension's, a client's own), so their numbers reach the store too.
  const scim = { 'content-type': 'application/scim+json' };
  const user = (extra: string) => `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"n-${randomUUID()}@example.com"${extra}}`;
  const cases = [
    { name: 'an enterprise extension’s employeeNumber', path: '/v1/scim/v2/Users', text: user(',"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":"__N__"}'), field: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User.employeeNumber' },
    { name: 'a user attribute gw does not model', path: '/v1/scim/v2/Users', text: user(',"x-count":"__N__"'), field: 'x-count' },
    { name: 'a group attribute gw does not model', path: '/v1/scim/v2/Groups', text: `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"g-${randomUUID()}","x-count":"__N__"}`, field: 'x-count' },
  ];
  for (const raw of ['9007199254740993', '1e308']) {
    for (const { name, path, text, field } of cases) {
      it(`${name} of ${raw} is a SCIM 400 naming ${field}, not a 500 from the store`, async () => {
        const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { ...scim, authorization: `Bearer ${gateway.apiKey}` }, body: text.replace('"__N__"', raw) });
        const body = (await response.json()) as { status: string; scimType: string; detail: string };
        expect({ status: response.status, scimType: body.scimType }, JSON.stringify(body)).toEqual({ status: 400, scimType: 'invalidValue' });
        expect(body.detail.startsWith(`${field}:`)).toBe(true);
      });
    }
  }
});

describe('numbers beyond 2^53 in inference bodies', () => {
  const chat = (extra: string) => `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hi"}]${extra}}`;

  for (const field of ['max_tokens', 'max_completion_tokens']) {
    it(`a chat ${field} of 1e308, which gw's own estimate uses, is a 400 naming it and reaches no provider`, async () => {
      const before = upstream.requests.length;
      const reply = await post('/v1/chat/completions', chat(`,"${field}":1e308`), viaMock(upstream.url));
      expect({ status: reply.status, code: reply.body.error?.code, param: reply.body.error?.param }).toEqual({ status: 400, code: 'invalid_number', param: field });
      expect(upstream.requests.length).toBe(before);
    });
  }

  it('a seed of 9223372036854775808 is the provider’s business: forwarded as parsed, answered, and logged', async () => {
    const traceId = `unstorable-seed-${randomUUID()}`;
    const reply = await post('/v1/chat/completions', chat(',"seed":9223372036854775808'), { ...viaMock(upstream.url), 'x-gw-trace-id': traceId });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect((upstream.requests.at(-1)!.json as { seed: number }).seed).toBe(9223372036854775808);
    await drainAllBackgroundWork();
    expect((await requestLogsOfTrace(traceId)).map((record) => record.status)).toEqual([200]);
  });
});
