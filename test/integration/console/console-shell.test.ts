import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { settled } from '../../support/browser.js';
import type { TestGateway } from '../../support/gateway.js';
import { useSignedInConsole } from './console-support.js';

/**
 * The console's frame in Debian chromium: a grouped sidebar naming the workspace and the key's role, one h1 per
 * page that takes the focus after navigation, a skip link that goes to the content (not to Logs), no 401 for a
 * favicon, and at phone width (390 px) a folding menu and no page that scrolls sideways.
 */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 45_000, interval: 50 });
const PAGES = ['logs', 'traces', 'analytics', 'playground', 'configs', 'prompts', 'guardrails', 'mcp', 'deployments', 'keys', 'providers', 'policies', 'exports', 'workspace', 'users', 'audit'];
let gateway: TestGateway;
let page: Page;
const refused: string[] = [];

useSignedInConsole({}, (started) => {
  ({ gateway, page } = started);
  page.on('response', (response) => void (response.status() === 401 && refused.push(response.url())));
});

describe('the console frame, in Debian chromium', { timeout: 180_000 }, () => {
  it('groups the pages and names the workspace and the key’s role', async () => {
    const nav = page.getByRole('navigation', { name: 'Pages' });
    for (const group of ['Observe', 'Build', 'Manage', 'Administer']) expect(await nav.getByRole('group', { name: group }).count()).toBe(1);
    expect(await nav.getByRole('group', { name: 'Observe' }).getByRole('link').allTextContents()).toEqual(['Logs', 'Traces', 'Analytics']);
    await poll(() => page.getByTestId('identity').textContent()).toContain('organisation admin');
    expect(await page.getByTestId('identity').textContent()).not.toContain(gateway.bootstrap.workspaceId);
  });

  it('has one h1 per page, focused after navigation; the skip link goes to it and stays on the page', async () => {
    for (const route of PAGES) {
      await page.getByRole('navigation', { name: 'Pages' }).locator(`a[href="#/${route}"]`).click();
      await poll(() => page.evaluate<string | undefined>('document.activeElement?.id')).toBe('page-title');
      expect(await page.locator('h1').count()).toBe(1);
    }
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('link', { name: 'Skip to content' }).focus();
    await page.keyboard.press('Enter');
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('page-title');
    expect(page.url()).toContain('#/keys');
    expect(await page.locator('h1').textContent()).toBe('Keys');
  });

  it('asks gw for no favicon, so no load logs a 401', async () => {
    await page.reload();
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
    expect(refused).toEqual([]);
  });

  it('at 390 px: the menu folds, no page scrolls sideways, and Keys’ buttons are on screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const nav = page.getByRole('navigation', { name: 'Pages' });
    for (const route of PAGES) {
      await page.goto(`${gateway.url}/console#/${route}`);
      await page.locator('h1').waitFor();
      await settled(page);
      expect(await nav.isVisible()).toBe(false);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow, `${route} scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
    }
    await page.getByRole('button', { name: 'Menu' }).click();
    await nav.getByRole('link', { name: 'Keys' }).click();
    expect(await nav.isVisible()).toBe(false);
    for (const button of await page.getByRole('button').all()) {
      if (!(await button.isVisible())) continue;
      const box = (await button.boundingBox())!;
      expect(box.x + box.width, `${await button.textContent()} is off-screen`).toBeLessThanOrEqual(390);
    }
    await page.screenshot({ path: join('test-results/console', 'phone-keys.png'), fullPage: true });
  });
});
