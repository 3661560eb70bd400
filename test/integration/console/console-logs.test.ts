import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestRow } from '../../../shared/observability/engine/columns.js';
import { logEngines } from '../../../shared/observability/engine/select.js';
import type { TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { logRecord } from '../observability/log-engine-support.js';
import { useSignedInConsole } from './console-support.js';

/**
 * The logs explorer in Debian chromium, walking the tasks: the most expensive request of the last hour in at
 * most four clicks, then its trace; paging to the 210th newest request; a view shared as a link; the column chooser;
 * a streamed request's complete "Reproduce" curl; and with gw unreachable, a clear error with Retry that keeps the
 * rows shown, never an empty state, recovering when gw answers again.
 */
const SHOTS = 'test-results/console';
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 45_000, interval: 50 });
const run = randomUUID().slice(0, 8);
const COUNT = 240;
let gateway: TestGateway;
let upstream: MockUpstream;
let page: Page;

const table = () => page.getByRole('table', { name: 'Request logs' });
const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
const idOf = (index: number) => `ui-${run}-${String(index).padStart(3, '0')}`;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  upstream = await startMockUpstream(openAIMockHandler());
});
afterAll(async () => {
  await upstream?.close();
});

useSignedInConsole({ seed }, (started) => ({ gateway, page } = started));

async function seed(): Promise<void> {
  // 240 requests of the last hour, one a second; the 30th newest is the costliest, the 210th newest costs 7.25.
  const now = Date.now();
  const records = Array.from({ length: COUNT }, (_, index) =>
    logRecord({
      id: idOf(index),
      trace_id: `ui-trace-${run}-${index}`,
      created_at: new Date(now - 60_000 - (COUNT - 1 - index) * 1_000).toISOString(),
      organisation_id: gateway.bootstrap.organisationId,
      workspace_id: gateway.bootstrap.workspaceId,
      cost: index === COUNT - 30 ? 9.5 : index === COUNT - 210 ? 7.25 : 0.001,
      model: index % 2 ? 'gpt-4o-mini' : 'gpt-4.1-nano',
      metadata: { run },
    }),
  );
  const { sink } = await logEngines();
  sink.append('requests', records.map(requestRow));
  await sink.flush();
}

describe('the logs explorer, in Debian chromium', { timeout: 120_000 }, () => {
  it('finds the most expensive request of the last hour in four clicks, and opens its trace', async () => {
    await page.goto(`${gateway.url}/console#/playground`);
    let clicks = 0;
    const click = async (locator: ReturnType<Page['getByRole']>) => {
      clicks++;
      await locator.click();
    };
    await click(page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Logs' }));
    await click(page.getByRole('button', { name: 'Last 1 h' }));
    await click(page.getByRole('button', { name: 'Sort by Cost (USD)' }));
    await poll(() => table().locator('tbody tr').first().textContent()).toContain('9.500000');
    expect(await page.getByRole('columnheader', { name: 'Sort by Cost (USD)' }).getAttribute('aria-sort')).toBe('descending');
    await shot('logs-by-cost');
    await click(page.getByRole('link', { name: `Trace of request ${idOf(COUNT - 30)}` }));
    expect(clicks).toBeLessThanOrEqual(4);
    await poll(() => page.getByRole('heading', { name: `Trace ui-trace-${run}-${COUNT - 30}` }).count()).toBe(1);
  });

  it('keeps the view in the URL: the same link shows the same sorted, filtered list', async () => {
    await page.goto(`${gateway.url}/console#/logs?range=1h&sort=cost&model=gpt-4.1-nano`);
    await poll(() => table().locator('tbody tr').first().textContent()).toContain('9.500000');
    expect(await page.getByRole('combobox', { name: 'model' }).inputValue()).toBe('gpt-4.1-nano');
    expect(await table().locator('tbody tr').filter({ hasText: 'gpt-4o-mini' }).count()).toBe(0);
    await page.getByRole('combobox', { name: 'model' }).selectOption('');
    await poll(() => page.url()).not.toContain('model=');
  });

  it('pages to the 210th newest request', async () => {
    await page.goto(`${gateway.url}/console#/logs?limit=50`);
    await poll(() => table().locator('tbody tr').count()).toBe(50);
    for (let next = 0; next < 4; next++) {
      await page.getByRole('button', { name: 'Next page' }).click();
      await poll(() => page.getByTestId('log-rows-shown').textContent()).toBe(`Rows ${(next + 1) * 50 + 1}–${Math.min(COUNT, (next + 2) * 50)}`);
    }
    await poll(() => table().locator('tbody tr').nth(9).textContent()).toContain('7.250000');
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await poll(() => page.getByTestId('log-rows-shown').textContent()).toBe('Rows 151–200');
  });

  it('chooses columns', async () => {
    await page.goto(`${gateway.url}/console#/logs`);
    await table().waitFor();
    expect(await table().getByRole('columnheader', { name: 'Cache' }).count()).toBe(1);
    await page.getByText('Columns', { exact: true }).click();
    await page.getByRole('checkbox', { name: 'Cache' }).uncheck();
    await page.getByRole('checkbox', { name: 'User' }).check();
    await poll(() => table().getByRole('columnheader', { name: 'Cache' }).count()).toBe(0);
    expect(await table().getByRole('columnheader', { name: 'User' }).count()).toBe(1);
    expect(page.url()).toContain('cols=');
  });

  it('reproduces a streamed request through a custom host with a complete curl, and shows its conversation', async () => {
    const traceId = `ui-stream-${run}`;
    const response = await gateway.post(
      '/v1/chat/completions',
      { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'Hi there' }] },
      { 'x-gw-provider': 'openai', authorization: 'Bearer sk-console', 'x-gw-custom-host': upstream.url, 'x-gw-trace-id': traceId },
    );
    await response.text();
    await page.goto(`${gateway.url}/console#/logs?trace_id=${traceId}`);
    await poll(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return table().locator('tbody tr').count();
    }).toBe(1);
    await table().locator('tbody tr').first().click();
    const curl = page.getByLabel('curl command');
    await poll(() => curl.textContent()).toContain(`x-gw-custom-host: ${upstream.url}`);
    expect(await curl.textContent()).toContain('"stream":true');
    expect(await curl.textContent()).toContain('curl -N');
    const conversation = page.getByRole('list', { name: 'Conversation' });
    expect(await conversation.locator('li').filter({ hasText: 'Hi there' }).count()).toBe(1);
    expect(await conversation.locator('li').first().textContent()).toContain('system');
    expect(await page.getByRole('table', { name: 'Attempts' }).locator('tbody tr').count()).toBe(1);
    // The key is named, not shown as its UUID, when it has a name.
    const keys = (await (await fetch(`${gateway.url}/v1/api-keys?limit=100`, { headers: { 'x-gw-api-key': gateway.apiKey } })).json()) as { data: Array<{ id: string; name?: string }> };
    const record = (await (await fetch(`${gateway.url}/v1/logs?trace_id=${traceId}`, { headers: { 'x-gw-api-key': gateway.apiKey } })).json()) as { data: Array<{ api_key_id: string }> };
    const name = keys.data.find((key) => key.id === record.data[0].api_key_id)?.name;
    if (name) await poll(() => page.locator('dd', { hasText: name }).count()).toBeGreaterThan(0);
    await shot('log-detail');
  });

  it('shows a trace to its last byte: the whole request is a bar as long as its latency', async () => {
    const record = (await (await fetch(`${gateway.url}/v1/logs?trace_id=ui-stream-${run}`, { headers: { 'x-gw-api-key': gateway.apiKey } })).json()) as { data: Array<{ latency_ms: number }> };
    await page.goto(`${gateway.url}/console#/traces/ui-stream-${run}`);
    const whole = page.getByRole('list', { name: 'Spans' }).locator('li').filter({ hasText: 'to the last byte' });
    await poll(() => whole.count()).toBe(1);
    expect(await whole.locator('.span-time').textContent()).toBe(`${record.data[0].latency_ms.toFixed(1)} ms`);
    const widths = await page.locator('.span-bar').evaluateAll((bars) => bars.map((bar) => bar.getBoundingClientRect().right));
    // Nothing of the trace reaches past the request's own bar.
    expect(Math.max(...widths)).toBeLessThanOrEqual((await whole.locator('.span-bar').boundingBox())!.x + (await whole.locator('.span-bar').boundingBox())!.width + 1);
    await shot('trace');
  });

  it('lists the top requests, users, keys and models of the range in Analytics, each linking to its logs', async () => {
    await page.goto(`${gateway.url}/console#/analytics`);
    const expensive = page.getByRole('region', { name: 'Most expensive requests' });
    await poll(() => expensive.getByRole('link').count()).toBeGreaterThan(0);
    await expensive.getByRole('link').first().click();
    await poll(() => page.getByTestId('log-cost').textContent()).toBe('$9.500000');
    await page.goBack();
    const models = page.getByRole('region', { name: 'Models by cost' });
    await models.getByRole('link', { name: 'gpt-4.1-nano' }).click();
    await poll(() => page.url()).toContain('model=gpt-4.1-nano');
    await poll(() => table().locator('tbody tr').first().textContent()).toContain('9.500000');
    expect(await table().locator('tbody tr').filter({ hasText: 'gpt-4o-mini' }).count()).toBe(0);
  });

  it('with gw unreachable: a clear error with Retry, the rows kept, no empty state; recovers when gw answers', async () => {
    await page.goto(`${gateway.url}/console#/logs`);
    await poll(() => table().locator('tbody tr').count()).toBeGreaterThan(10);
    const shown = await table().locator('tbody tr').count();
    await page.route('**/v1/**', (route) => route.abort('connectionrefused'));
    await page.getByRole('button', { name: 'Refresh' }).click();
    const alert = page.getByRole('alert');
    await poll(() => alert.textContent()).toContain('gw cannot be reached');
    expect(await table().locator('tbody tr').count()).toBe(shown);
    expect(await page.getByText('No requests match').count()).toBe(0);
    // A new view that cannot load shows the error alone: no empty state claims there is nothing.
    await page.getByRole('button', { name: 'Last 15 min' }).click();
    await poll(() => table().count()).toBe(0);
    expect(await page.getByText('No requests match').count()).toBe(0);
    expect(await alert.textContent()).toContain('gw cannot be reached');
    await shot('logs-unreachable');
    await page.unroute('**/v1/**');
    await alert.getByRole('button', { name: 'Retry' }).click();
    await poll(() => table().locator('tbody tr').count()).toBeGreaterThan(10);
    expect(await page.getByRole('alert').count()).toBe(0);
  });
});

describe('forms check input with the API\'s schemas before sending', { timeout: 120_000 }, () => {
  it('refuses "abc" as the default key expiry and sends nothing, where it once saved null and said "Saved"', async () => {
    const before = (await (await fetch(`${gateway.url}/v1/workspaces/${gateway.bootstrap.workspaceId}`, { headers: { 'x-gw-api-key': gateway.apiKey } })).json()) as { api_key_settings: Record<string, unknown>; updated_at: string | null };
    await page.goto(`${gateway.url}/console#/workspace`);
    const form = page.getByRole('form', { name: 'Workspace settings' });
    await form.getByLabel('default expiry (days)').fill('abc');
    const patches: string[] = [];
    page.on('request', (request) => void (request.method() === 'PATCH' && patches.push(request.url())));
    await form.getByRole('button', { name: 'Save settings' }).click();
    await poll(() => page.getByRole('alert').textContent()).toContain('api_key_settings.default_expiry_days');
    expect(await page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(0);
    expect(patches).toEqual([]);
    const after = (await (await fetch(`${gateway.url}/v1/workspaces/${gateway.bootstrap.workspaceId}`, { headers: { 'x-gw-api-key': gateway.apiKey } })).json()) as typeof before;
    expect(after.api_key_settings).toEqual(before.api_key_settings);
    await form.getByLabel('default expiry (days)').fill('30');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect(patches).toHaveLength(1);
  });
});

describe('policies and budgets are created and edited in the console', { timeout: 120_000 }, () => {
  it('creates a usage limit with a budget, edits it, and gw refuses a request it covers', async () => {
    const chat = () =>
      gateway.post('/v1/chat/completions', { model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] }, { 'x-gw-provider': 'openai', authorization: 'Bearer sk-console', 'x-gw-custom-host': upstream.url, 'x-gw-metadata': JSON.stringify({ _user: `budget-${run}` }) });
    await page.goto(`${gateway.url}/console#/policies`);
    const editor = page.getByRole('form', { name: 'Create a policy' });
    await editor.getByLabel('kind').selectOption('usage-limits');
    const policy = { name: `budget-${run}`, conditions: [{ key: 'metadata._user', value: `budget-${run}` }], group_by: [{ key: 'metadata._user' }], type: 'requests', unit: 'rpd', value: 1000, credit_limit: { type: 'cost', value: 5 } };
    await editor.getByLabel('policy (JSON)').fill(JSON.stringify({ ...policy, value: -1 }));
    await poll(() => page.getByTestId('policy-check').textContent()).toContain('value: must be a number greater than 0');
    expect(await editor.getByRole('button', { name: 'Create policy' }).isDisabled()).toBe(true);
    await editor.getByLabel('policy (JSON)').fill(JSON.stringify(policy));
    await editor.getByRole('button', { name: 'Create policy' }).click();
    const row = page.getByRole('table', { name: 'Usage-limit policies' }).locator('tbody tr').filter({ hasText: `budget-${run}` });
    await poll(() => row.count()).toBe(1);
    expect((await chat()).status).toBe(200);
    // Edit: the budget drops below what one request costs, so the next one is refused.
    await row.click();
    const edit = page.getByRole('form', { name: `Edit policy budget-${run}` });
    const text = JSON.parse(await edit.getByLabel('policy (JSON)').inputValue()) as Record<string, unknown>;
    expect(text.credit_limit).toEqual({ type: 'cost', value: 5 });
    await edit.getByLabel('policy (JSON)').fill(JSON.stringify({ ...text, credit_limit: { type: 'cost', value: 0.0000001 } }));
    await edit.getByRole('button', { name: 'Save policy' }).click();
    await edit.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await poll(async () => (await chat()).status).toBeGreaterThanOrEqual(400);
    const refused = await chat();
    expect([412, 429]).toContain(refused.status);
    await page.screenshot({ path: join(SHOTS, 'policies.png'), fullPage: true });
  });
});

describe('a media request in the console', { timeout: 120_000 }, () => {
  it('media units are lost from request logs unless the request page shows them where it shows tokens: images with their size and quality', async () => {
    // Appended only now, so the explorer's counts above are the seeded ones.
    const id = `ui-media-${run}`;
    const record = logRecord({
      id,
      created_at: new Date(Date.now() - 5_000).toISOString(),
      organisation_id: gateway.bootstrap.organisationId,
      workspace_id: gateway.bootstrap.workspaceId,
      endpoint: 'images/generations',
      model: 'dall-e-3',
      cost: 0.24,
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cached_tokens: 0, reasoning_tokens: 0, images: 2, image_size: '1024x1792', image_quality: 'hd' },
    });
    const { sink } = await logEngines();
    sink.append('requests', [requestRow(record)]);
    await sink.flush();
    await page.goto(`${gateway.url}/console#/logs/${id}`);
    const facts = page.locator('dl[aria-label="Cost and tokens"]');
    await poll(() => page.getByTestId('log-cost').textContent()).toBe('$0.240000');
    const text = await facts.textContent();
    expect(text).toContain('images2');
    expect(text).toContain('image size1024x1792');
    expect(text).toContain('image qualityhd');
    expect(text).not.toContain('audio seconds');
  });
});
