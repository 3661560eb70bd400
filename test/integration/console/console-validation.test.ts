import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../../shared/http/errors.js';
import type { TestGateway } from '../../support/gateway.js';
import { api } from '../control-plane/identities-support.js';
import { useSignedInConsole } from './console-support.js';

/**
 * The policy editor checks a policy with the API's own schemas (bundled from shared/control-plane/policies/schemas.ts)
 * before anything is sent. The class of defect guarded: a browser check weaker than the server's, which let a policy
 * gw refuses (an unknown unit, an unknown condition key, an empty edit) reach gw, or showed a message of its own
 * instead of gw's. Each bad input shows gw's message on the page with no request made, and the API answers the same
 * input with a 400 carrying that very message.
 */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 30_000, interval: 50 });
let gateway: TestGateway;
let page: Page;
const sent: Request[] = [];

const policy = { name: 'validated', conditions: [{ key: 'metadata._user', value: 'someone' }], group_by: [{ key: 'metadata._user' }], type: 'requests', unit: 'rpd', value: 100, credit_limit: { type: 'cost', value: 5 } };

useSignedInConsole({}, (started) => {
  ({ gateway, page } = started);
  page.on('request', (request) => {
    if (request.method() !== 'GET' && new URL(request.url()).pathname.startsWith('/v1/policies')) sent.push(request);
  });
});

/** Types `body` into the open editor, tries to send it (button and a forced submit), and returns the page's message. */
async function refusedOnThePage(form: string, button: string, body: unknown): Promise<string> {
  const editor = page.getByRole('form', { name: form });
  await editor.getByLabel('policy (JSON)').fill(JSON.stringify(body));
  const check = page.getByTestId('policy-check');
  await poll(() => check.getAttribute('class')).toBe('invalid');
  expect(await editor.getByRole('button', { name: button }).isDisabled()).toBe(true);
  // Even a submit the disabled button cannot stop (Enter in a field, a script) sends nothing.
  await editor.evaluate((element) => (element as unknown as { requestSubmit(): void }).requestSubmit());
  return (await check.textContent()) ?? '';
}

describe('policy forms check input with the API’s schemas, in Debian chromium', { timeout: 120_000 }, () => {
  const cases: Array<{ what: string; body: Record<string, unknown>; param: string }> = [
    { what: 'an unknown unit', body: { ...policy, unit: 'rps' }, param: 'unit' },
    { what: 'an unknown condition key', body: { ...policy, conditions: [{ key: 'team', value: 'a' }] }, param: 'conditions[0].key' },
    { what: 'a budget without a value', body: { ...policy, credit_limit: { type: 'cost' } }, param: 'credit_limit.value' },
  ];

  it.each(cases)('creating with $what: the field’s error on the page, nothing sent, and gw’s 400 says the same', async ({ body, param }) => {
    await page.goto(`${gateway.url}/console#/policies`);
    const before = sent.length;
    const shown = await refusedOnThePage('Create a policy', 'Create policy', body);
    expect(shown.startsWith(`${param}: `), shown).toBe(true);
    expect(sent.length).toBe(before);
    const reply = await api<ErrorBody>(gateway, 'POST', '/v1/policies/usage-limits', { body });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 'invalid_request', param, message: shown });
  });

  it('editing with an empty change: refused on the page as gw refuses it', async () => {
    const created = await api<{ id: string }>(gateway, 'POST', '/v1/policies/usage-limits', { body: policy });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await page.goto(`${gateway.url}/console#/policies`);
    await page.getByRole('table', { name: 'Usage-limit policies' }).locator('tbody tr').filter({ hasText: 'validated' }).first().click();
    const before = sent.length;
    const shown = await refusedOnThePage('Edit policy validated', 'Save policy', {});
    expect(shown).toMatch(/^must change at least one field: /);
    expect(sent.length).toBe(before);
    const reply = await api<ErrorBody>(gateway, 'PUT', `/v1/policies/usage-limits/${created.body.id}`, { body: {} });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toBe(shown);
  });
});
