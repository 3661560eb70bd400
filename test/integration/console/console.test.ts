import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole, CONSOLE_BUDGET_KIB, CONSOLE_ENTRY_BUDGET_KIB } from '../../../scripts/build-console.js';
import { hashApiKey } from '../../../shared/auth/api-key-secrets.js';
import { ApiKeyRepository } from '../../../shared/store/api-key-repository.js';
import { AuditLogRepository } from '../../../shared/store/audit-log-repository.js';
import { launchChromium } from '../../support/browser.js';
import { signInToConsole } from './console-support.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';

const SHOTS = 'test-results/console';
// The page updates asynchronously (and the machine may be busy): wait for what it shows, up to a bound.
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 45_000, interval: 50 });
const consoleDir = mkdtempSync(join(tmpdir(), 'gw-console-'));
let built: Awaited<ReturnType<typeof buildConsole>>;
let gateway: TestGateway;
let upstream: MockUpstream;
let browser: Browser;
let page: Page;

async function chat(model: string, headers: Record<string, string> = {}): Promise<Response> {
  return gateway.post('/v1/chat/completions', { model, messages: [{ role: 'user', content: 'Hi' }] }, { 'x-gw-provider': 'openai', authorization: 'Bearer sk-console', 'x-gw-custom-host': upstream.url, ...headers });
}

const signIn = (credential: string) => signInToConsole(page, `${gateway.url}/console`, credential);

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  built = await buildConsole(consoleDir);
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway({ GW_CONSOLE_DIR: consoleDir });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on('dialog', (dialog) => void dialog.accept());
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await upstream?.close();
  rmSync(consoleDir, { recursive: true, force: true });
});

describe('the console, in Debian chromium', { timeout: 120_000 }, () => {
  it('stays within its bundle budget and is served with safe headers', async () => {
    expect(built.bytes / 1024).toBeLessThanOrEqual(CONSOLE_BUDGET_KIB);
    expect(built.entryBytes / 1024).toBeLessThanOrEqual(CONSOLE_ENTRY_BUDGET_KIB);
    const html = await fetch(`${gateway.url}/console`);
    expect(html.status).toBe(200);
    expect(html.headers.get('cache-control')).toBe('no-cache');
    expect(html.headers.get('content-security-policy')).toContain("script-src 'self'");
    const asset = await fetch(`${gateway.url}/console/assets/${built.js}`);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${gateway.url}/console/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${gateway.url}/console/assets/nope.js`)).status).toBe(404);
  });

  it('signs in with an API key kept in session storage, never in the URL', async () => {
    await signIn(gateway.apiKey);
    expect(page.url()).not.toContain(gateway.apiKey);
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.evaluate('Object.values(sessionStorage)')).toContain(gateway.apiKey);
  });

  it('shows requests sent through the gateway in Logs, with status and model; opens one and its trace', async () => {
    for (const model of ['gpt-4o-mini', 'gpt-4o-mini', 'gpt-4.1-nano']) expect((await chat(model, { 'x-gw-trace-id': `console-trace-${model}` })).status).toBe(200);
    upstream.setHandler(() => ({ status: 500, body: { error: { message: 'boom', type: 'server_error' } } }));
    expect((await chat('gpt-4o-mini', { 'x-gw-trace-id': 'console-trace-failed' })).status).toBeGreaterThanOrEqual(500);
    upstream.setHandler(openAIMockHandler());
    await page.goto(`${gateway.url}/console#/logs`);
    const table = page.getByRole('table', { name: 'Request logs' });
    // Records are written after the response: refresh until all four are there.
    await poll(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return table.locator('tbody tr').count();
    }).toBeGreaterThanOrEqual(4);
    await poll(() => table.locator('tbody tr').filter({ hasText: 'gpt-4.1-nano' }).count()).toBe(1);
    await poll(() => table.locator('tbody tr').filter({ hasText: '200' }).count()).toBeGreaterThanOrEqual(3);
    await shot('logs');
    await table.locator('tbody tr').filter({ hasText: 'gpt-4.1-nano' }).click();
    await poll(() => page.getByTestId('log-model').textContent()).toBe('gpt-4.1-nano');
    expect(await page.getByTestId('log-status').textContent()).toBe('200');
    expect(await page.getByLabel('curl command').textContent()).toContain('$GW_API_KEY');
    await shot('log-detail');
    await page.getByRole('link', { name: 'console-trace-gpt-4.1-nano' }).click();
    await page.getByRole('list', { name: 'Spans' }).waitFor();
    expect(await page.locator('.waterfall li').count()).toBeGreaterThan(0);
    await shot('trace');
  });

  it('shows analytics whose totals match the requests sent', async () => {
    await page.goto(`${gateway.url}/console#/analytics`);
    await poll(() => page.getByTestId('total-requests').textContent()).toBe('4');
    expect(await page.getByTestId('total-errors').textContent()).toBe('1');
    await page.getByRole('table', { name: 'Analytics by group' }).waitFor();
    // A chart per figure, each with a line per model (busiest first), latency percentiles included.
    for (const figure of ['Requests', 'Errors', 'Tokens', 'Cost (USD)', 'Latency p50 (ms)', 'Latency p95 (ms)']) {
      await page.getByRole('img', { name: `${figure} over time, by gpt-4o-mini, gpt-4.1-nano`, exact: true }).waitFor();
    }
    await page.getByLabel('group by').selectOption('provider');
    await page.getByRole('img', { name: 'Requests over time, by openai', exact: true }).waitFor();
    await shot('analytics');
  });

  it('creates and revokes a virtual key; the credential is never shown back', async () => {
    await page.goto(`${gateway.url}/console#/keys`);
    const form = page.getByRole('form', { name: 'Create a virtual key' });
    await form.getByLabel('name').fill('console-vk');
    await form.getByLabel('credential').fill('sk-console-sentinel-credential');
    await form.getByRole('button', { name: 'Create virtual key' }).click();
    const table = page.getByRole('table', { name: 'Virtual keys' });
    await poll(() => table.locator('tbody tr').filter({ hasText: 'console-vk' }).count()).toBe(1);
    expect(await page.content()).not.toContain('sk-console-sentinel-credential');
    await shot('keys');
    await page.getByRole('button', { name: 'Revoke console-vk' }).click();
    await poll(() => table.locator('tbody tr').filter({ hasText: 'console-vk' }).count()).toBe(0);
  });

  it('creates an API key and shows its raw key once', async () => {
    const form = page.getByRole('form', { name: 'Create an API key' });
    await form.getByLabel('name').fill('console-reader');
    await form.getByLabel('scopes (comma-separated)').fill('virtual_keys:read, logs:read, workspaces:read');
    await form.getByRole('button', { name: 'Create API key' }).click();
    const raw = (await page.getByTestId('raw-key').textContent())!;
    expect(raw.length).toBeGreaterThan(20);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(raw);
    // The next test signs in with it.
    process.env.CONSOLE_READER_KEY = raw;
  });

  it('shows what a read-only key may not do as disabled, with the scope it lacks, instead of a refused request', async () => {
    // What the console sends from here on: it asks GET /v1/me what the key may do and never tries a change.
    const sent: string[] = [];
    const record = (request: { method(): string; url(): string }) => void sent.push(`${request.method()} ${new URL(request.url()).pathname}`);
    page.on('request', record);
    await signIn(process.env.CONSOLE_READER_KEY!);
    await page.goto(`${gateway.url}/console#/keys`);
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Virtual keys' }) });
    const form = section.getByRole('form', { name: 'Create a virtual key' });
    await poll(() => section.getByTestId('write-disabled').textContent()).toContain('virtual_keys:write');
    expect(await form.getByRole('button', { name: 'Create virtual key' }).isDisabled()).toBe(true);
    expect(await form.getByLabel('name').isDisabled()).toBe(true);
    // The reader may not list API keys: that section says which scope it lacks, in place of the list.
    const apiKeys = page.locator('section', { has: page.getByRole('heading', { name: 'API keys' }) });
    await poll(() => apiKeys.getByTestId('read-denied').textContent()).toContain('api_keys:read');
    expect(await page.getByRole('alert').count()).toBe(0);
    await shot('denied');
    // The editors of configs, prompts and guardrails say the same and keep their save buttons disabled.
    for (const [route, scope, button] of [
      ['configs', 'configs:write', 'Create config'],
      ['prompts', 'prompts:write', 'Create prompt'],
      ['guardrails', 'guardrails:write', 'Create guardrail'],
    ] as const) {
      await page.goto(`${gateway.url}/console#/${route}`);
      await poll(() => page.getByTestId('write-disabled').textContent()).toContain(scope);
      expect(await page.getByRole('button', { name: button }).isDisabled()).toBe(true);
    }
    // A page whose data the key may not read is shown disabled, naming the scope; nothing is requested for it.
    await page.goto(`${gateway.url}/console#/policies`);
    await poll(() => page.getByTestId('read-denied').textContent()).toContain('policies:read');
    expect(await page.getByRole('alert').count()).toBe(0);
    page.off('request', record);
    expect(sent.filter((line) => line.startsWith('GET /v1/policies'))).toEqual([]);
    expect(sent).toContain('GET /v1/me');
    expect(sent.filter((line) => !line.startsWith('GET '))).toEqual([]);
    // Opening the console as this key left no refused change behind in the audit log.
    const reader = (await new ApiKeyRepository().findByHash(hashApiKey(process.env.CONSOLE_READER_KEY!)))!;
    const failures = await new AuditLogRepository().list({ organisationId: gateway.bootstrap.organisationId }, { actor_id: reader.id, outcome: 'failure' }, 100);
    expect(failures.items).toEqual([]);
  });

  it('shows logs, traces and analytics disabled to a key without logs:read, and asks gw for none of them', async () => {
    const created = await gateway.post('/v1/api-keys', { name: 'console-caller', scopes: ['completions:write'] });
    const { key } = (await created.json()) as { key: string };
    const sent: string[] = [];
    const record = (request: { method(): string; url(): string }) => void sent.push(`${request.method()} ${new URL(request.url()).pathname}`);
    await signIn(key);
    // From here on, as this key (signing in first loads the page as whoever was signed in before).
    page.on('request', record);
    for (const route of ['logs', 'traces', 'analytics']) {
      await page.goto(`${gateway.url}/console#/${route}`);
      await poll(() => page.getByTestId('read-denied').textContent()).toContain('logs:read');
      expect(await page.getByRole('alert').count()).toBe(0);
    }
    page.off('request', record);
    expect(sent.filter((line) => /^GET \/v1\/(logs|traces|analytics)/.test(line))).toEqual([]);
  });

  it('renders the other pages (configs with schema validation, prompts, policies, guardrails), light and dark', async () => {
    await signIn(gateway.apiKey);
    await page.goto(`${gateway.url}/console#/configs`);
    const editor = page.getByRole('form', { name: 'Config editor' });
    await editor.getByLabel('config (JSON)').fill('{"strategy":{"mode":"fallbak"},"targets":[{"provider":"openai"}]}');
    await poll(() => page.getByTestId('config-validation').textContent()).toContain('AB0103');
    await editor.getByLabel('config (JSON)').fill('{"strategy":{"mode":"fallback"},"targets":[{"provider":"openai"},{"provider":"anthropic"}]}');
    await poll(() => page.getByTestId('config-validation').textContent()).toBe('Valid config');
    await editor.getByLabel('name').fill('console-config');
    await editor.getByRole('button', { name: 'Create config' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved version 1' }).waitFor();
    await shot('configs');
    for (const name of ['prompts', 'policies', 'guardrails']) {
      await page.goto(`${gateway.url}/console#/${name}`);
      await page.getByRole('heading', { level: 2 }).first().waitFor();
      await shot(name);
    }
    await page.getByRole('button', { name: /Switch to (dark|light) mode/ }).click();
    await page.goto(`${gateway.url}/console#/logs`);
    await page.getByRole('table', { name: 'Request logs' }).waitFor();
    await shot('logs-theme-toggled');
  });
});
