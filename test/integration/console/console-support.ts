import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { ensureConsoleBuilt } from '../../../scripts/build-console.js';
import { launchChromium, watchRequests } from '../../support/browser.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

/** Signs the console at `consoleUrl` in with `credential`, from a clean session, and waits for its navigation. */
export async function signInToConsole(page: Page, consoleUrl: string, credential: string): Promise<void> {
  await page.goto(consoleUrl);
  // A page that held a session starts over from a clean one; a fresh page has nothing to clear (one load saved).
  if (await page.evaluate<boolean>('sessionStorage.length > 0')) {
    await page.evaluate('sessionStorage.clear()');
    await page.reload();
  }
  await page.getByLabel('gw API key or JWT').fill(credential);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Pages' }).waitFor();
}

export interface ConsoleUnderTest {
  gateway: TestGateway;
  browser: Browser;
  page: Page;
  /** The folder of the console build gw serves (GW_CONSOLE_DIR). */
  consoleDir: string;
}

export interface ConsoleOptions {
  /** gw's settings for the file (GW_CONSOLE_DIR is set by the helper). */
  env?: Record<string, string>;
  /** What the file needs in gw before the page signs in (through the API or the log sink); runs after `onStart`. */
  seed?: () => Promise<void>;
  /** The page's options; a 1280 × 900 viewport unless given. */
  page?: BrowserContextOptions;
  /** Signs the page in with the admin key (default); a file that tests the sign-in itself says false. */
  signIn?: boolean;
}

/**
 * The console files' set-up: the console built (once per run, see consoleBuild), the real gw serving it, Debian
 * chromium and one page, signed in with the admin key, before the file's tests; all of it closed after them.
 * `onStart` hands them to the file's variables before the seed and the sign-in (so a file can watch the page's requests).
 */
export function useSignedInConsole(options: ConsoleOptions, onStart: (started: ConsoleUnderTest) => void): void {
  let started: Partial<ConsoleUnderTest> = {};
  let ownBuild: string | undefined;
  beforeAll(async () => {
    const build = consoleBuild();
    ownBuild = build.own ? build.dir : undefined;
    // The build, gw and chromium do not wait on each other.
    const [gateway, browser] = await Promise.all([startTestGateway({ ...options.env, GW_CONSOLE_DIR: build.dir }), launchChromium(), build.ready]);
    started = { gateway, browser, consoleDir: build.dir };
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, ...options.page });
    watchRequests(page);
    started.page = page;
    onStart(started as ConsoleUnderTest);
    await options.seed?.();
    if (options.signIn !== false) await signInToConsole(page, `${gateway.url}/console`, gateway.apiKey);
  }, 90_000);
  afterAll(async () => {
    await started.browser?.close();
    await started.gateway?.close();
    if (ownBuild) rmSync(ownBuild, { recursive: true, force: true });
    started = {};
  });
}

/**
 * The console build a file serves. In a vitest run (test/support/temp-dirs-global-setup.ts names the run's folder)
 * every console file shares one build, made by the first file that needs it and removed with the run's folder;
 * otherwise each file builds into a folder of its own, which it removes.
 */
export function consoleBuild(): { dir: string; ready: Promise<void>; own: boolean } {
  const runDir = process.env.GW_TEST_RUN_DIR;
  const dir = runDir ? join(runDir, 'console-build') : mkdtempSync(join(tmpdir(), 'gw-console-'));
  return { dir, ready: ensureConsoleBuilt(dir), own: !runDir };
}
