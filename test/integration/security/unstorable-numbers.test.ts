import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { rateLimitPayload, usageLimitPayload } from '../control-plane/policies-support.js';

/**
 * Numbers beyond what gw can store and use exactly (±(2^53 − 1)) in any control-plane body are a 400 naming the
 * field, not a 500 from the store's marshaller. Class: unchecked numeric range of client input.
 * Bodies are sent as raw text: `9007199254740993` cannot be written by JSON.stringify at all.
 */
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

async function post(path: string, text: string) {
  const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey }, body: text });
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
