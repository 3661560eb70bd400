import { expect } from 'vitest';
import type { DeployedStack } from './deployed-stack.js';

/**
 * The console on the default API URL (issue #33): the page under `/<stage>/console`, and every asset it loads,
 * resolved as a browser resolves them against the page's URL, answered by the control plane. Run by
 * test/aws-shaped/deployed-stack.test.ts once the console addresses itself relative to where it is mounted.
 */
export async function checkConsoleUnderStage(stack: DeployedStack): Promise<void> {
  const pageUrl = `https://api.aws-shaped.test/${stack.stage}/console/`;
  const page = await stack.request('GET', pageUrl);
  expect(page.status, page.body).toBe(200);
  expect(page.headers['content-type'] ?? page.headers['Content-Type']).toContain('text/html');
  // A `data:` URI (the inline favicon) is part of the page itself: nothing to fetch from the stage.
  const references = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => new URL(match[1], pageUrl)).filter((url) => url.protocol !== 'data:');
  expect(references.length).toBeGreaterThan(1);
  for (const url of references) {
    const asset = await stack.request('GET', url.href);
    expect(asset.status, `${url.pathname} (from the page at ${pageUrl})`).toBe(200);
  }
}
