import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { requestRow } from '../../../shared/observability/engine/columns.js';
import { logEngines } from '../../../shared/observability/engine/select.js';
import { settled } from '../../support/browser.js';
import type { TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { api } from '../control-plane/identities-support.js';
import { logRecord } from '../observability/log-engine-support.js';
import { useSignedInConsole } from './console-support.js';

/**
 * Issue #46's "Done when", as one walk in Debian chromium, each step asserted; console-done-when-desktop and -phone
 * walk it at 1280 and 390 px, each file with its own gw and browser, so the two run side by side:
 * the most expensive request of the last hour in at most 4 clicks and its trace; the 210th newest request; a policy
 * with a budget created, edited, and refusing a request; a credential rotated in a masked field; gw's address gone
 * (its listener closed: the browser's connections are refused) with a clear error, and recovery once it is back;
 * and axe finding no violation of any impact on every page the walk visits.
 */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 45_000, interval: 50 });
const COUNT = 240;
let gateway: TestGateway;
let upstream: MockUpstream;
let page: Page;
let door: Door;

/**
 * The address the browser knows gw by: a TCP listener that passes each connection to gw. Closing it (and every
 * connection through it) is gw gone as a browser sees it (connection refused); opening it on the same port is gw back.
 */
interface Door {
  url: string;
  close(): Promise<void>;
  open(): Promise<void>;
}

async function openDoor(target: number): Promise<Door> {
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  let port = 0;
  const open = async () => {
    server = createServer((socket) => {
      const upstreamSocket = createConnection({ host: '127.0.0.1', port: target });
      for (const end of [socket, upstreamSocket]) {
        sockets.add(end);
        end.on('close', () => sockets.delete(end));
        end.on('error', () => undefined);
      }
      socket.pipe(upstreamSocket).pipe(socket);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', () => resolve()));
    port = (server.address() as { port: number }).port;
  };
  await open();
  return {
    url: `http://127.0.0.1:${port}`,
    open,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
    },
  };
}

/** The file's set-up: a mock provider, gw with 240 requests of the last hour, the door, and a page `width` wide. */
export function useDoneWhenWalk(width: number): void {
  beforeAll(async () => {
    upstream = await startMockUpstream(openAIMockHandler());
  });
  useSignedInConsole({ signIn: false, page: { viewport: { width, height: 900 } }, seed }, (started) => ({ gateway, page } = started));
  afterAll(async () => {
    await door?.close().catch(() => undefined);
    await upstream?.close();
  });
}

async function seed(): Promise<void> {
  door = await openDoor(gateway.port);
  // 240 requests of the last hour; the 30th newest is the costliest, the 210th newest costs 7.25.
  const now = Date.now();
  const { sink } = await logEngines();
  sink.append(
    'requests',
    Array.from({ length: COUNT }, (_, index) =>
      requestRow(
        logRecord({
          id: `walk-${String(index).padStart(3, '0')}`,
          trace_id: `walk-trace-${index}`,
          created_at: new Date(now - 60_000 - (COUNT - 1 - index) * 1_000).toISOString(),
          organisation_id: gateway.bootstrap.organisationId,
          workspace_id: gateway.bootstrap.workspaceId,
          cost: index === COUNT - 30 ? 9.5 : index === COUNT - 210 ? 7.25 : 0.001,
          model: 'gpt-4o-mini',
          metadata: { walk: 'seed' },
        }),
      ),
    ),
  );
  await sink.flush();
}

/** axe-core on the page as it stands: every violation, whatever its impact. */
async function axeViolations(page: Page): Promise<string[]> {
  // The page has loaded and drawn what its requests brought (a page with live refresh may never go network-idle on
  // a loaded machine: the full run timed out here once; settled gives up quietly after 5 s).
  await settled(page);
  if (!(await page.evaluate<boolean>('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate<Array<{ id: string; impact: string; nodes: { target: string[] }[] }>>("axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)");
  return found.map((violation) => `${violation.id} (${violation.impact}) at ${violation.nodes.map((node) => node.target.join(' ')).join('; ')}`);
}

/** Signs in from a clean session; the first page is Logs (at 390 px the sidebar is folded, so the page's h1 says it). */
async function signIn(page: Page): Promise<void> {
  await page.goto(`${door.url}/console`);
  await page.evaluate('sessionStorage.clear()');
  await page.reload();
  await page.getByLabel('gw API key or JWT').fill(gateway.apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await poll(() => page.locator('h1').textContent()).toBe('Logs');
}

/** The walk, on the file's page; `tag` names what it creates (a policy's user, a virtual key). */
export async function walk(tag: string): Promise<void> {
  const width = page.viewportSize()!.width;
  const table = () => page.getByRole('table', { name: 'Request logs' });
  const visited: Record<string, string[]> = {};
  const audit = async (name: string) => {
    visited[name] = await axeViolations(page);
  };
  // 1. From the console's first page (Logs), the most expensive request of the last hour, then its trace.
  await signIn(page);
  let clicks = 0;
  const click = async (target: Locator) => {
    clicks++;
    await target.click();
  };
  await click(page.getByRole('button', { name: 'Last 1 h' }));
  await click(page.getByRole('button', { name: 'Sort by Cost (USD)' }));
  await poll(() => table().locator('tbody tr').first().textContent()).toContain('9.500000');
  await audit('logs sorted by cost');
  await click(page.getByRole('link', { name: `Trace of request walk-${COUNT - 30}` }));
  await poll(() => page.getByRole('heading', { name: `Trace walk-trace-${COUNT - 30}` }).count()).toBe(1);
  expect(clicks).toBeLessThanOrEqual(4);
  await audit('trace');

  // 2. The 210th newest request, page by page. The walk's own requests (step 3) are newer than the seeded ones, so
  // the list is the seeded requests (a shared link's metadata filter), and the 210th is the same in both walks.
  await page.goto(`${door.url}/console#/logs?limit=50&meta_key=walk&meta_value=seed`);
  await poll(() => table().locator('tbody tr').count()).toBe(50);
  for (let next = 1; next <= 4; next++) {
    await page.getByRole('button', { name: 'Next page' }).click();
    await poll(() => page.getByTestId('log-rows-shown').textContent()).toBe(`Rows ${next * 50 + 1}–${Math.min(COUNT, (next + 1) * 50)}`);
  }
  // Row 210 is the tenth of page 5: the seeded request that costs 7.25.
  await poll(() => table().locator('tbody tr').nth(9).textContent()).toContain('7.250000');
  await audit('logs page 5');

  // 3. A policy with a budget: created, edited down, and refusing a request it covers.
  const user = `walk-${tag}`;
  const chat = () =>
    gateway.post('/v1/chat/completions', { model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] }, { 'x-gw-provider': 'openai', authorization: 'Bearer sk-walk', 'x-gw-custom-host': upstream.url, 'x-gw-metadata': JSON.stringify({ _user: user }) });
  await page.goto(`${door.url}/console#/policies`);
  const editor = page.getByRole('form', { name: 'Create a policy' });
  await editor.getByLabel('kind').selectOption('usage-limits');
  const policy = { name: user, conditions: [{ key: 'metadata._user', value: user }], group_by: [{ key: 'metadata._user' }], type: 'requests', unit: 'rpd', value: 1000, credit_limit: { type: 'cost', value: 5 } };
  await editor.getByLabel('policy (JSON)').fill(JSON.stringify(policy));
  await editor.getByRole('button', { name: 'Create policy' }).click();
  const row = page.getByRole('table', { name: 'Usage-limit policies' }).locator('tbody tr').filter({ hasText: user });
  await poll(() => row.count()).toBe(1);
  expect((await chat()).status).toBe(200);
  await row.click();
  const edit = page.getByRole('form', { name: `Edit policy ${user}` });
  const text = JSON.parse(await edit.getByLabel('policy (JSON)').inputValue()) as Record<string, unknown>;
  await edit.getByLabel('policy (JSON)').fill(JSON.stringify({ ...text, credit_limit: { type: 'cost', value: 0.0000001 } }));
  await audit('policy editor');
  await edit.getByRole('button', { name: 'Save policy' }).click();
  await edit.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  await poll(async () => (await chat()).status).toBeGreaterThanOrEqual(400);
  expect([412, 429]).toContain((await chat()).status);

  // 4. A credential rotated in a masked field, never a browser prompt, and never shown back.
  const vk = await api<{ id: string }>(gateway, 'POST', '/v1/virtual-keys', { body: { name: `vk-${tag}`, provider: 'openai', credential: 'sk-before', custom_host: upstream.url } });
  expect(vk.status, JSON.stringify(vk.body)).toBe(201);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => void (dialogs.push(dialog.type()), dialog.dismiss()));
  await page.goto(`${door.url}/console#/keys`);
  const virtualKeys = page.locator('section', { has: page.getByRole('heading', { name: 'Virtual keys', exact: true }) });
  await virtualKeys.getByRole('button', { name: `Rotate vk-${tag}` }).click();
  const rotate = virtualKeys.getByRole('form', { name: `Rotate vk-${tag}` });
  const secret = rotate.getByLabel('new credential (stored, never shown again)');
  expect(await secret.getAttribute('type')).toBe('password');
  await audit('keys with the rotate form');
  const patched = page.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().endsWith(`/v1/virtual-keys/${vk.body.id}`));
  await secret.fill(`sk-after-${tag}`);
  await rotate.getByRole('button', { name: 'Rotate' }).click();
  expect((await patched).status()).toBe(200);
  expect(dialogs).toEqual([]);
  expect(await page.content()).not.toContain(`sk-after-${tag}`);

  // 5. gw gone: a clear error with Retry, the rows kept, no empty state; back: Retry recovers.
  await page.goto(`${door.url}/console#/logs`);
  await poll(() => table().locator('tbody tr').count()).toBeGreaterThan(10);
  const shown = await table().locator('tbody tr').count();
  await door.close();
  try {
    await page.getByRole('button', { name: 'Refresh' }).click();
    const alert = page.getByRole('alert');
    await poll(() => alert.textContent()).toContain('gw cannot be reached');
    expect(await alert.getByRole('button', { name: 'Retry' }).count()).toBe(1);
    expect(await table().locator('tbody tr').count()).toBe(shown);
    expect(await page.getByText('No requests match').count()).toBe(0);
    await audit('logs with gw gone');
  } finally {
    await door.open();
  }
  await page.getByRole('alert').getByRole('button', { name: 'Retry' }).click();
  await poll(() => page.getByRole('alert').count()).toBe(0);
  expect(await table().locator('tbody tr').count()).toBeGreaterThan(10);

  // 6. Every page of the console, with axe.
  for (const route of ['logs', 'traces', 'analytics', 'playground', 'configs', 'prompts', 'guardrails', 'mcp', 'deployments', 'keys', 'providers', 'policies', 'exports', 'workspace', 'users', 'audit']) {
    await page.goto(`${door.url}/console#/${route}`);
    await page.locator('h1').waitFor();
    await audit(`#/${route}`);
  }
  if (width < 500) {
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
    await audit('menu open');
  }
  expect(Object.entries(visited).filter(([, found]) => found.length > 0)).toEqual([]);
}
