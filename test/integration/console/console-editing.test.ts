import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { startTestMcpServer, type TestMcpServer } from '../../support/mcp-server.js';
import { useSignedInConsole } from './console-support.js';

/**
 * Editing, not only create and delete, in Debian chromium: a row opens into a prefilled form that is checked in the
 * browser before sending, sent as the API defines (PATCH for MCP servers and deployments), and gw's 400 is shown
 * next to the form; the change is read back through the API.
 */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 45_000, interval: 50 });
let gateway: TestGateway;
let mcp: TestMcpServer;
let page: Page;
const sent: string[] = [];

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${gateway.url}${path}`, { method, headers: { 'x-gw-api-key': gateway.apiKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const parsed = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(parsed)).toBeLessThan(300);
  return parsed;
}

const open = (route: string) => page.goto(`${gateway.url}/console#/${route}`);
const rows = (title: string, text: string) => page.getByRole('table', { name: title, exact: true }).locator('tbody tr').filter({ hasText: text });

beforeAll(async () => {
  mcp = await startTestMcpServer({ token: 'mcp-token' });
});
afterAll(async () => {
  await mcp?.close();
});

useSignedInConsole({}, (started) => {
  ({ gateway, page } = started);
  page.on('request', (request) => void (['PATCH', 'PUT'].includes(request.method()) && sent.push(`${request.method()} ${new URL(request.url()).pathname}`)));
});

describe('editing control-plane resources in the console, in Debian chromium', { timeout: 120_000 }, () => {
  it('edits a deployment: bad JSON is caught before sending, gw’s 400 shows by the form, a good edit is saved', async () => {
    const created = await api('POST', '/v1/deployments', { name: 'edit-me', type: 'production', config: { strategy: { mode: 'single' }, targets: [{ provider: 'openai' }] } });
    await open('deployments');
    await poll(() => rows('Deployments', 'edit-me').count()).toBe(1);
    await rows('Deployments', 'edit-me').click();
    const form = page.getByRole('form', { name: 'Edit edit-me' });
    expect(await form.getByLabel('name', { exact: true }).inputValue()).toBe('edit-me');
    expect(JSON.parse(await form.getByLabel(/^config/).inputValue())).toMatchObject({ targets: [{ provider: 'openai' }] });

    await form.getByLabel(/^config/).fill('{"targets": [');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => form.getByRole('alert').textContent()).toContain('not valid JSON');
    expect(sent).toEqual([]);

    await form.getByLabel(/^config/).fill('{"strategy": {"mode": "fallbak"}, "targets": [{"provider": "openai"}]}');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => form.getByRole('alert').textContent()).toMatch(/strategy|mode/);
    expect(sent).toEqual([`PATCH /v1/deployments/${String(created.id)}`]);

    await form.getByLabel('name', { exact: true }).fill('edited');
    await form.getByLabel('type').selectOption('non-production');
    await form.getByLabel(/^config/).fill('{"strategy": {"mode": "fallback"}, "targets": [{"provider": "openai"}, {"provider": "anthropic"}]}');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => rows('Deployments', 'edited').count()).toBe(1);
    const stored = await api('GET', `/v1/deployments/${String(created.id)}`);
    expect(stored).toMatchObject({ name: 'edited', type: 'non-production', config: { strategy: { mode: 'fallback' } } });
  });

  it('edits an MCP server’s name and tool rules, and shows gw’s 400 for a bad url', async () => {
    const created = await api('POST', '/v1/mcp-servers', { name: 'Tools to edit', url: mcp.url, auth: { type: 'bearer', token: 'mcp-token' } });
    await open('mcp');
    await poll(() => rows('MCP servers', 'Tools to edit').count()).toBe(1);
    await rows('MCP servers', 'Tools to edit').click();
    const form = page.getByRole('form', { name: 'Edit Tools to edit' });
    expect(await form.getByLabel('url').inputValue()).toBe(mcp.url);
    expect(await form.getByLabel('new bearer token (optional)').inputValue()).toBe('');

    await form.getByLabel('url').fill('not a url');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => form.getByRole('alert').textContent()).toMatch(/url/i);

    await form.getByLabel('url').fill(mcp.url);
    await form.getByLabel('name', { exact: true }).fill('Edited tools');
    await form.getByLabel('allowed tools (optional)').fill('echo');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => rows('MCP servers', 'Edited tools').count()).toBe(1);
    const stored = await api('GET', `/v1/mcp-servers/${String(created.id)}`);
    expect(stored).toMatchObject({ name: 'Edited tools', tools: { allow: ['echo'] } });
    expect(JSON.stringify(stored)).not.toContain('mcp-token');
  });

  it('edits a guardrail into a new version, and shows gw’s 400 for a config its type refuses', async () => {
    const created = await api('POST', '/v1/guardrails', { name: 'prefix-to-edit', type: 'add_prefix', config: { prefix: 'Be brief. ', position: 'last_user' } });
    await open('guardrails');
    await poll(() => rows('Guardrails', 'prefix-to-edit').count()).toBe(1);
    await rows('Guardrails', 'prefix-to-edit').click();
    const form = page.getByRole('form', { name: 'Edit guardrail prefix-to-edit' });
    expect(JSON.parse(await form.getByLabel('config (JSON)').inputValue())).toMatchObject({ prefix: 'Be brief. ' });
    expect(await form.getByLabel('type').inputValue()).toBe('add_prefix');

    await form.getByLabel('config (JSON)').fill('{"prefix": 42}');
    await form.getByRole('button', { name: 'Save new version' }).click();
    await poll(() => form.getByRole('alert').textContent()).toMatch(/prefix/);

    await form.getByLabel('config (JSON)').fill('{"prefix": "Answer in French. ", "position": "last_user"}');
    await form.getByRole('button', { name: 'Save new version' }).click();
    await poll(() => form.getByRole('status').textContent()).toBe('Saved version 2');
    expect(await form.getByRole('alert').count()).toBe(0);
    const stored = await api('GET', `/v1/guardrails/${String(created.id)}`);
    expect(stored).toMatchObject({ version: 2, config: { prefix: 'Answer in French. ' } });
  });

  it('edits a saved config into a new version (PUT), validated in the browser, gw’s 400 beside the editor', async () => {
    const created = await api('POST', '/v1/configs', { name: 'config-to-edit', config: { strategy: { mode: 'single' }, targets: [{ provider: 'openai' }] } });
    await open('configs');
    await poll(() => rows('Saved configs', 'config-to-edit').count()).toBe(1);
    await rows('Saved configs', 'config-to-edit').click();
    const editor = page.getByRole('form', { name: 'Config editor' });
    await poll(async () => JSON.parse(await editor.getByLabel('config (JSON)').inputValue()) as unknown).toMatchObject({ strategy: { mode: 'single' } });
    await editor.getByLabel('config (JSON)').fill('{"strategy": {"mode": "fallbak"}, "targets": [{"provider": "openai"}]}');
    expect(await editor.getByRole('button', { name: 'Save new version' }).isDisabled()).toBe(true);

    await editor.getByLabel('config (JSON)').fill('{"strategy": {"mode": "fallback"}, "targets": [{"provider": "openai"}, {"provider": "anthropic"}]}');
    await editor.getByLabel('name').fill('x'.repeat(300));
    await editor.getByRole('button', { name: 'Save new version' }).click();
    await poll(() => editor.getByRole('alert').textContent()).toMatch(/name/);

    await editor.getByLabel('name').fill('config-edited');
    await editor.getByRole('button', { name: 'Save new version' }).click();
    await poll(() => editor.getByRole('status').filter({ hasText: 'Saved version' }).textContent()).toBe('Saved version 2');
    const stored = await api('GET', `/v1/configs/${String(created.id)}`);
    expect(stored).toMatchObject({ name: 'config-edited', version: 2, config: { strategy: { mode: 'fallback' } } });
  });
});
