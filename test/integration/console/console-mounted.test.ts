import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../../scripts/build-console.js';
import { launchChromium } from '../../support/browser.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 45_000, interval: 50 });
const consoleDir = mkdtempSync(join(tmpdir(), 'gw-console-mounted-'));
const STAGE = '/prod';
let gateway: TestGateway;
let upstream: MockUpstream;
let stage: Server;
let stageUrl: string;
let browser: Browser;
let page: Page;

/**
 * API Gateway's default URL in front of gw: `https://…/prod/<path>` reaches gw as `<path>` (the stage is not in
 * the event's path), and anything outside the stage is API Gateway's own 403.
 */
function startStageProxy(target: string): Promise<Server> {
  const server = createServer((incoming, outgoing) => {
    if (!incoming.url?.startsWith(`${STAGE}/`)) {
      outgoing.writeHead(403, { 'content-type': 'application/json' }).end('{"message":"Missing Authentication Token"}');
      return;
    }
    const forwarded = httpRequest(`${target}${incoming.url.slice(STAGE.length)}`, { method: incoming.method, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    incoming.pipe(forwarded);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  await buildConsole(consoleDir);
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway({ GW_CONSOLE_DIR: consoleDir });
  stage = await startStageProxy(gateway.url);
  stageUrl = `http://127.0.0.1:${(stage.address() as AddressInfo).port}${STAGE}`;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (stage ? stage.close(() => resolve()) : resolve()));
  await gateway?.close();
  await upstream?.close();
  rmSync(consoleDir, { recursive: true, force: true });
});

describe('the console behind API Gateway’s /prod stage, in Debian chromium', { timeout: 120_000 }, () => {
  it('loads its assets and calls the API under the stage, and shows a request sent through it', async () => {
    const chat = await fetch(`${stageUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'x-gw-provider': 'openai', authorization: 'Bearer sk-stage', 'x-gw-custom-host': upstream.url, 'x-gw-trace-id': 'staged-trace' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(chat.status).toBe(200);

    const seen: Array<{ url: string; status: number }> = [];
    page.on('response', (response) => seen.push({ url: response.url(), status: response.status() }));
    await page.goto(`${stageUrl}/console`);
    expect(page.url()).toBe(`${stageUrl}/console/`);
    await page.getByLabel('gw API key or JWT').fill(gateway.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
    const table = page.getByRole('table', { name: 'Request logs' });
    await poll(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return table.locator('tbody tr').filter({ hasText: 'gpt-4o-mini' }).count();
    }).toBe(1);
    await table.locator('tbody tr').filter({ hasText: 'gpt-4o-mini' }).click();
    await poll(() => page.getByLabel('curl command').textContent()).toContain(`${stageUrl}/v1/chat/completions`);

    // The playground streams a chat through gw under the stage too (its code is a lazily loaded chunk).
    const created = await fetch(`${stageUrl}/v1/virtual-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey },
      body: JSON.stringify({ name: 'staged-vk', provider: 'openai', credential: 'sk-stage', custom_host: upstream.url }),
    });
    expect(created.status).toBe(201);
    await page.getByRole('link', { name: 'Playground' }).click();
    const form = page.getByRole('form', { name: 'Playground request' });
    await poll(() => form.getByLabel('virtual key', { exact: true }).locator('option').count()).toBe(1);
    await form.getByLabel('message 1', { exact: true }).fill('Hi from the stage');
    await form.getByRole('button', { name: 'Send' }).click();
    await poll(() => page.getByTestId('playground-answer').textContent()).toBe('Hello from the mock provider!');
    expect(await page.getByTestId('playground-snippet').textContent()).toContain(`curl '${stageUrl}/v1/chat/completions'`);
    expect(seen.some((response) => response.url === `${stageUrl}/v1/chat/completions` && response.status === 200)).toBe(true);

    // Every asset and API call went under the stage, and none failed.
    expect(seen.filter((response) => response.url.includes('/console/assets/')).length).toBeGreaterThanOrEqual(2);
    expect(seen.some((response) => response.url.startsWith(`${stageUrl}/v1/logs`))).toBe(true);
    expect(seen.filter((response) => !response.url.startsWith(`${stageUrl}/`))).toEqual([]);
    expect(seen.filter((response) => response.status >= 400)).toEqual([]);
  });
});
