import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLogRepository } from '../../../shared/store/audit-log-repository.js';
import { signInToConsole, useSignedInConsole } from './console-support.js';
import type { TestGateway } from '../../support/gateway.js';
import { startTestMcpServer, type TestMcpServer } from '../../support/mcp-server.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';

/**
 * The playground and the control-plane areas (providers and integrations, MCP servers, deployments, exports, audit
 * log, users, workspace settings) in Debian chromium: each is created and listed through the console, and a key
 * without the write scope sees each action disabled with the scope it lacks.
 */
const SHOTS = 'test-results/console';
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 45_000, interval: 50 });
let gateway: TestGateway;
let upstream: MockUpstream;
let mcp: TestMcpServer;
let page: Page;
let virtualKeyId: string;

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${gateway.url}${path}`, { method, headers: { 'x-gw-api-key': gateway.apiKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const parsed = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(parsed)).toBeLessThan(300);
  return parsed;
}

const signIn = (credential: string) => signInToConsole(page, `${gateway.url}/console`, credential);

const open = (route: string) => page.goto(`${gateway.url}/console#/${route}`);
const section = (title: string) => page.locator('section', { has: page.getByRole('heading', { name: title, exact: true }) });
const rows = (title: string, text: string) => page.getByRole('table', { name: title, exact: true }).locator('tbody tr').filter({ hasText: text });
const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  upstream = await startMockUpstream(openAIMockHandler({ content: 'Streamed hello from the mock' }));
  mcp = await startTestMcpServer({ token: 'mcp-token' });
});
afterAll(async () => {
  await upstream?.close();
  await mcp?.close();
});

useSignedInConsole(
  {
    seed: async () => {
      virtualKeyId = String((await api('POST', '/v1/virtual-keys', { name: 'playground-vk', provider: 'openai', credential: 'sk-playground', custom_host: upstream.url })).id);
    },
  },
  (started) => {
    ({ gateway, page } = started);
    page.on('dialog', (dialog) => void dialog.accept(dialog.type() === 'prompt' ? 'sk-rotated-sentinel' : undefined));
  },
);

describe('the console’s playground and control-plane areas, in Debian chromium', { timeout: 120_000 }, () => {
  it('sends a streamed chat through a virtual key, shows the answer, its trace and cost, and the request as code', async () => {
    await open('playground');
    const form = page.getByRole('form', { name: 'Playground request' });
    await poll(() => form.getByLabel('virtual key').locator('option').count()).toBeGreaterThanOrEqual(1);
    await form.getByLabel('message 1', { exact: true }).fill('Say hello');
    await form.getByRole('button', { name: 'Send' }).click();
    await poll(() => page.getByTestId('playground-answer').textContent()).toBe('Streamed hello from the mock');
    // The upstream was asked to stream, with the message written in the playground.
    const sent = upstream.requests.at(-1)!.json as Record<string, unknown>;
    expect(sent.stream).toBe(true);
    expect(sent.messages).toEqual([{ role: 'user', content: 'Say hello' }]);
    await poll(() => page.getByTestId('playground-cost').textContent()).toMatch(/^\d+\.\d{6}$/);
    expect(await page.getByTestId('playground-tokens').textContent()).toMatch(/^\d+ in \/ \d+ out$/);
    const trace = page.getByLabel('Request outcome').getByRole('link').first();
    const traceId = (await trace.textContent())!;
    expect(traceId).toMatch(/^playground-/);
    const snippet = page.getByTestId('playground-snippet');
    expect(await snippet.textContent()).toContain(`x-gw-virtual-key: ${virtualKeyId}`);
    expect(await snippet.textContent()).toContain(`${gateway.url}/v1/chat/completions`);
    expect(await snippet.textContent()).not.toContain(gateway.apiKey);
    await page.getByRole('button', { name: 'TypeScript' }).click();
    expect(await snippet.textContent()).toContain(`import { createClient } from '@gw-gateway/sdk'`);
    expect(await snippet.textContent()).toContain(`virtualKey: "${virtualKeyId}"`);
    await page.getByRole('button', { name: 'Python' }).click();
    expect(await snippet.textContent()).toContain('from gw_sdk import Gw');
    expect(await snippet.textContent()).toContain(`virtual_key="${virtualKeyId}"`);
    await shot('playground');
    await trace.click();
    await page.getByRole('list', { name: 'Spans' }).waitFor();
  });

  it('sends through a saved config picked in the playground', async () => {
    const config = await api('POST', '/v1/configs', { name: 'playground-config', config: { strategy: { mode: 'fallback' }, targets: [{ virtual_key: virtualKeyId }] } });
    await open('playground');
    const form = page.getByRole('form', { name: 'Playground request' });
    await form.getByLabel('route through').selectOption('config');
    await poll(() => form.getByLabel('saved config', { exact: true }).locator('option').count()).toBe(1);
    await form.getByLabel('message 1', { exact: true }).fill('Through a config');
    await form.getByRole('button', { name: 'Send' }).click();
    await poll(() => page.getByTestId('playground-answer').textContent()).toBe('Streamed hello from the mock');
    expect(upstream.requests.at(-1)!.json).toMatchObject({ messages: [{ role: 'user', content: 'Through a config' }] });
    expect(await page.getByTestId('playground-snippet').textContent()).toContain(`x-gw-config: ${String(config.id)}`);
  });

  it('rotates a virtual key’s credential, which is sent once and never shown', async () => {
    await open('keys');
    const virtualKeys = section('Virtual keys');
    await poll(() => rows('Virtual keys', 'playground-vk').count()).toBe(1);
    // The new credential goes in a masked field (never window.prompt()). gw's hot caches may serve the old credential
    // for a while, so the check is the PATCH gw accepted, not the next upstream request.
    const patched = page.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().endsWith(`/v1/virtual-keys/${virtualKeyId}`));
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => void dialogs.push(dialog.type()));
    await virtualKeys.getByRole('button', { name: 'Rotate playground-vk' }).click();
    const form = virtualKeys.getByRole('form', { name: 'Rotate playground-vk' });
    const field = form.getByLabel('new credential (stored, never shown again)');
    expect(await field.getAttribute('type')).toBe('password');
    await field.fill('sk-rotated-sentinel');
    await form.getByRole('button', { name: 'Rotate' }).click();
    const response = await patched;
    expect(dialogs).toEqual([]);
    expect(await virtualKeys.getByRole('form', { name: 'Rotate playground-vk' }).count()).toBe(0);
    expect(response.status()).toBe(200);
    expect(JSON.parse(response.request().postData()!)).toEqual({ credential: 'sk-rotated-sentinel' });
    expect(await response.text()).not.toContain('sk-rotated-sentinel');
    expect(await page.content()).not.toContain('sk-rotated-sentinel');
  });

  it('creates an integration with tags, enables it as a provider, and disables it', async () => {
    await open('providers');
    const integrations = section('Integrations');
    const create = integrations.getByRole('form', { name: 'Create an integration' });
    await create.getByLabel('name', { exact: true }).fill('Console OpenAI');
    await create.getByLabel('credential').fill('sk-integration-sentinel');
    await create.getByLabel('tags (key=value, …)').fill('team=ml, env=test');
    await create.getByLabel('shared with (workspace ids, or all)').fill('all');
    await create.getByRole('button', { name: 'Create integration' }).click();
    await poll(() => rows('Integrations', 'Console OpenAI').count()).toBe(1);
    expect(await rows('Integrations', 'Console OpenAI').textContent()).toContain('team=ml');
    const slug = (await rows('Integrations', 'Console OpenAI').locator('td').nth(1).textContent())!;
    const providers = section('Providers');
    await providers.getByLabel('integration (id or slug)').fill(slug);
    await providers.getByLabel('budget (JSON, optional)').fill('{"limit_usd": 25, "period": "monthly"}');
    await providers.getByRole('button', { name: 'Enable a provider' }).click();
    await poll(() => rows('Providers', slug).count()).toBe(1);
    expect(await rows('Providers', slug).textContent()).toContain('$25 / monthly');
    await providers.getByRole('button', { name: 'Disable Console OpenAI' }).click();
    await poll(() => rows('Providers', slug).locator('td').nth(3).textContent()).toBe('no');
    expect(await page.content()).not.toContain('sk-integration-sentinel');
    await shot('providers');
  });

  it('registers an MCP server and shows its handshake metadata, sync status and tool allow-list', async () => {
    await open('mcp');
    const create = page.getByRole('form', { name: 'Register an MCP server' });
    await create.getByLabel('name', { exact: true }).fill('Console tools');
    await create.getByLabel('url').fill(mcp.url);
    await create.getByLabel('allowed tools (optional)').fill('echo, add');
    await create.getByRole('button', { name: 'Register an MCP server' }).click();
    await poll(() => rows('MCP servers', 'Console tools').count()).toBe(1);
    const row = rows('MCP servers', 'Console tools');
    await poll(async () => {
      await open('mcp');
      return rows('MCP servers', 'Console tools').locator('.sync').textContent();
    }).toBe('synced');
    expect(await row.textContent()).toContain('test-tools');
    expect(await row.textContent()).toContain('echo, add');
    await row.click();
    await poll(() => page.getByLabel('MCP servers detail').textContent()).toContain('delete_everything');
    await shot('mcp-servers');
  });

  it('creates a deployment of each type and filters by type', async () => {
    await open('deployments');
    const create = page.getByRole('form', { name: 'Create a deployment' });
    for (const [name, type] of [
      ['console-prod', 'production'],
      ['console-dev', 'non-production'],
    ]) {
      await create.getByLabel('name', { exact: true }).fill(name);
      await create.getByLabel('type').selectOption(type);
      await create.getByLabel(/^config/).fill('{"strategy": {"mode": "single"}, "targets": [{"provider": "openai"}]}');
      await create.getByRole('button', { name: 'Create deployment' }).click();
      await poll(() => rows('Deployments', name).count()).toBe(1);
    }
    await page.getByRole('form', { name: 'Filter Deployments' }).getByLabel('type').fill('non-production');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await poll(() => page.getByRole('table', { name: 'Deployments' }).locator('tbody tr').count()).toBe(1);
    expect(await rows('Deployments', 'console-dev').count()).toBe(1);
    await shot('deployments');
  });

  it('creates an export with filters, follows its progress and downloads it', async () => {
    await open('exports');
    const create = page.getByRole('form', { name: 'Create an export' });
    await create.getByLabel('model').fill('gpt-4o-mini');
    await create.getByRole('button', { name: 'Create export' }).click();
    await poll(() => page.getByTestId('export-status').first().textContent()).toBe('completed');
    expect(await page.getByRole('table', { name: 'Exports' }).textContent()).toContain('"model":"gpt-4o-mini"');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: /^Download / }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^gw-logs-.+\.jsonl$/);
    await shot('exports');
  });

  it('invites a user and lists the organisation’s members, SCIM-provisioned ones too', async () => {
    await api('POST', '/v1/scim/v2/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'grace@example.com', externalId: 'idp-grace', name: { givenName: 'Grace', familyName: 'Hopper' }, active: true });
    await open('users');
    await poll(() => rows('SCIM-provisioned members', 'grace@example.com').count()).toBe(1);
    expect(await rows('SCIM-provisioned members', 'grace@example.com').textContent()).toContain('idp-grace');
    const create = page.getByRole('form', { name: 'Invite a user' });
    await create.getByLabel('email').fill('ada@example.com');
    await create.getByLabel('name (optional)').fill('Ada');
    await create.getByRole('button', { name: 'Invite a user' }).click();
    await poll(() => rows('Users', 'ada@example.com').count()).toBe(1);
    expect(await rows('Users', 'ada@example.com').textContent()).toContain('invited');
    await shot('users');
  });

  it('saves the workspace budget with its reset and analytics visibility', async () => {
    await open('workspace');
    const form = page.getByRole('form', { name: 'Workspace settings' });
    await form.getByLabel('credit limit (USD, empty for none)').fill('150');
    await form.getByLabel('periodic reset').selectOption('weekly');
    await form.getByLabel('members may view analytics').uncheck();
    await form.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const workspaces = (await api('GET', '/v1/workspaces?limit=1')).data as Array<Record<string, Record<string, unknown>>>;
    expect(workspaces[0]!.budget!.credit_limit).toBe(150);
    expect(workspaces[0]!.budget!.periodic_reset).toBe('weekly');
    expect(workspaces[0]!.settings!.membersViewAnalytics).toBe(false);
    await shot('workspace');
  });

  it('filters the audit log by action and actor', async () => {
    await open('audit');
    const filters = page.getByRole('form', { name: 'Filter Audit log' });
    await filters.getByLabel('action').fill('deployment.create');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await poll(() => page.getByRole('table', { name: 'Audit log' }).locator('tbody tr').count()).toBe(2);
    expect(await rows('Audit log', 'integration.create').count()).toBe(0);
    await filters.getByLabel('actor').fill('no-such-actor');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await poll(() => page.getByText('No audit log.').count()).toBe(1);
    await shot('audit-log');
  });

  it('shows every write action disabled, with the scope it lacks, for a key that may only read', async () => {
    const reader = await api('POST', '/v1/api-keys', {
      name: 'console-areas-reader',
      scopes: ['virtual_keys:read', 'providers:read', 'integrations:read', 'mcp_servers:read', 'deployments:read', 'workspaces:read', 'audit_logs:read'],
    });
    await signIn(String(reader.key));
    for (const [route, title, scope, create] of [
      ['providers', 'Providers', 'providers:write', 'Enable a provider'],
      ['providers', 'Integrations', 'integrations:write', 'Create integration'],
      ['mcp', 'MCP servers', 'mcp_servers:write', 'Register an MCP server'],
      ['deployments', 'Deployments', 'deployments:delete', 'Create deployment'],
    ] as const) {
      await open(route);
      const view = section(title);
      await poll(() => view.getByTestId('write-disabled').textContent()).toContain(scope);
      expect(await view.getByRole('button', { name: create, exact: true }).isDisabled()).toBe(true);
      // Its rows are still listed, their actions disabled.
      await poll(() => view.locator('tbody tr').count()).toBeGreaterThan(0);
      for (const button of await view.locator('tbody button').all()) expect(await button.isDisabled()).toBe(true);
    }
    await shot('disabled-actions');
    await open('workspace');
    await poll(() => page.getByTestId('write-disabled').textContent()).toContain('workspaces:write');
    expect(await page.getByRole('button', { name: 'Save settings' }).isDisabled()).toBe(true);
    // Every page above learnt what the key may do from GET /v1/me: not one refused change in the audit log.
    const failures = await new AuditLogRepository().list({ organisationId: gateway.bootstrap.organisationId }, { actor_id: String(reader.id), outcome: 'failure' }, 100);
    expect(failures.items).toEqual([]);
    // Users need an organisation admin key and users:read: the view says so instead of showing a 403.
    await open('users');
    await poll(() => section('Users').getByTestId('read-denied').textContent()).toContain('users:read');
    await poll(() => section('SCIM-provisioned members').getByTestId('read-denied').textContent()).toContain('scim');
    expect(await page.getByRole('alert').count()).toBe(0);
    // The playground: the key lacks completions:write (GET /v1/me says so), so Send is disabled with the reason at once.
    await open('playground');
    const form = page.getByRole('form', { name: 'Playground request' });
    await poll(() => form.getByLabel('virtual key', { exact: true }).locator('option').count()).toBeGreaterThanOrEqual(1);
    await form.getByLabel('message 1', { exact: true }).fill('Not allowed');
    await poll(() => form.getByTestId('write-disabled').textContent()).toContain('completions:write');
    expect(await form.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    expect(await page.getByRole('alert').count()).toBe(0);
  });
});
