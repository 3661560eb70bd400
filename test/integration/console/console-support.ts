import type { Page } from 'playwright-core';

/** Signs the console at `consoleUrl` in with `credential`, from a clean session, and waits for its navigation. */
export async function signInToConsole(page: Page, consoleUrl: string, credential: string): Promise<void> {
  await page.goto(consoleUrl);
  await page.evaluate('sessionStorage.clear()');
  await page.reload();
  await page.getByLabel('gw API key or JWT').fill(credential);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Pages' }).waitFor();
}
