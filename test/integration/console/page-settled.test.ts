import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, settled, watchRequests } from '../../support/browser.js';

/**
 * `settled` (test/support/browser.ts) stands in for Playwright's 'networkidle' before axe and layout checks: it must
 * not resolve while a page is still loading what it shows (a chain of requests, the next started only once the
 * last answered), and must not hang on a page that refreshes forever. A real page, served on loopback, in chromium.
 */
const CHAIN = `<!doctype html><html lang="en"><title>chain</title><main id="out">loading</main><script>
  fetch('/slow').then((r) => r.text()).then((first) =>
    setTimeout(() => fetch('/slow').then((r) => r.text()).then((second) => {
      document.getElementById('out').textContent = first + ' ' + second;
    }), 0));
</script></html>`;
const LIVE = `<!doctype html><html lang="en"><title>live</title><main id="out">0</main><script>
  let n = 0;
  setInterval(() => fetch('/slow').then(() => (document.getElementById('out').textContent = String(++n))), 20);
</script></html>`;

let server: Server;
let url: string;
let browser: Browser;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/slow') {
      // Longer than two frames: a wait that only looked at frames would resolve before the answer.
      setTimeout(() => response.end('loaded'), 300);
      return;
    }
    response.setHeader('content-type', 'text/html');
    response.end(request.url === '/live' ? LIVE : CHAIN);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

async function watchedPage(): Promise<Page> {
  const page = await browser.newPage();
  watchRequests(page);
  return page;
}

describe('settled: a page has loaded and drawn what its requests brought', () => {
  it('waits through a chain of requests, each started after the last answered (class: checked before the data arrived)', async () => {
    const page = await watchedPage();
    await page.goto(`${url}/chain`);
    await settled(page, 15_000);
    expect(await page.locator('#out').textContent()).toBe('loaded loaded');
    await page.close();
  });

  it('gives up without failing on a page that never stops requesting', async () => {
    const page = await watchedPage();
    await page.goto(`${url}/live`);
    await settled(page, 1_000);
    expect(Number(await page.locator('#out').textContent())).toBeGreaterThanOrEqual(0);
    await page.close();
  });
});
