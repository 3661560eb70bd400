import { chromium, type Browser, type Page, type Request } from 'playwright-core';

/** Debian's chromium (installed by .ci/run), driven by playwright-core; flags keep it off the closed network. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

interface RequestWatch {
  inFlight: Set<Request>;
  started: number;
}

const watches = new WeakMap<Page, RequestWatch>();

/** Counts the page's requests in flight from now on, for `settled` (call it right after the page is made). */
export function watchRequests(page: Page): void {
  const watch: RequestWatch = { inFlight: new Set(), started: 0 };
  page.on('request', (request) => {
    watch.inFlight.add(request);
    watch.started++;
  });
  page.on('requestfinished', (request) => watch.inFlight.delete(request));
  page.on('requestfailed', (request) => watch.inFlight.delete(request));
  watches.set(page, watch);
}

/** One rendered frame, then the tasks it queued (bounded: a page in the background gets no frames). */
const NEXT_FRAME = 'new Promise((resolve) => { requestAnimationFrame(() => setTimeout(resolve, 0)); setTimeout(resolve, 100); })';

/**
 * Resolves once the page has loaded, has no request in flight, and has drawn what the last one brought: two frames
 * in a row with no request in flight and none started. Playwright's 'networkidle' waits for 500 ms without a request
 * instead, a fixed pause at every call (about a second per page with axe, dozens of pages per console file). Gives
 * up after `limitMs` without failing: a page that refreshes live may never be quiet, and what it shows is loaded.
 * A page `watchRequests` never saw falls back to 'networkidle'.
 */
export async function settled(page: Page, limitMs = 5_000): Promise<void> {
  const watch = watches.get(page);
  if (!watch) {
    await page.waitForLoadState('networkidle', { timeout: limitMs }).catch(() => undefined);
    return;
  }
  const giveUpAt = Date.now() + limitMs;
  await page.waitForLoadState('load', { timeout: limitMs }).catch(() => undefined);
  let quietFrames = 0;
  while (quietFrames < 2 && Date.now() < giveUpAt) {
    if (watch.inFlight.size > 0) {
      quietFrames = 0;
      await new Promise((resolve) => setTimeout(resolve, 10));
      continue;
    }
    const startedBefore = watch.started;
    // A navigation under way replaces the page's context: that frame does not count.
    const drawn = await page.evaluate(NEXT_FRAME).then(
      () => true,
      () => false,
    );
    quietFrames = drawn && watch.inFlight.size === 0 && watch.started === startedBefore ? quietFrames + 1 : 0;
  }
}
