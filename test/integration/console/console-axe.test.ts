import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { requestRow } from '../../../shared/observability/engine/columns.js';
import { logEngines } from '../../../shared/observability/engine/select.js';
import { settled } from '../../support/browser.js';
import type { TestGateway } from '../../support/gateway.js';
import { rateLimitPayload } from '../control-plane/policies-support.js';
import { logRecord } from '../observability/log-engine-support.js';
import { signInToConsole, useSignedInConsole } from './console-support.js';

/**
 * Accessibility: axe-core, the standard rules engine, runs in Debian chromium on every console page with seeded
 * data (a request log, a policy, a deployment, a guardrail), on the request detail, with the policy editor, a
 * deployment's edit form and a guardrail's editor open, and at 390 px; any violation
 * of any impact fails, naming the rule and the nodes, so the fix goes into console/src and never into the test.
 */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PAGES = ['logs', 'traces', 'analytics', 'playground', 'configs', 'prompts', 'guardrails', 'mcp', 'deployments', 'keys', 'providers', 'policies', 'exports', 'workspace', 'users', 'audit'];
const LOG_ID = 'axe-request-1';
let gateway: TestGateway;
let page: Page;

interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  nodes: { target: string[]; failureSummary: string }[];
}

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${gateway.url}${path}`, { method, headers: { 'x-gw-api-key': gateway.apiKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const parsed = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(parsed)).toBeLessThan(300);
  return parsed;
}

/** Injects axe (through the debugger, so the console's CSP still holds for the page itself) and lists violations. */
async function violations(): Promise<string[]> {
  await settled(page);
  if (!(await page.evaluate<boolean>('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate<AxeViolation[]>("axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)");
  return found.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => `${n.target.join(' ')} [${n.failureSummary.replace(/\s+/g, ' ')}]`).join('; ')}`);
}

async function visit(route: string): Promise<void> {
  await page.goto(`${gateway.url}/console#/${route}`);
  await page.locator('h1').waitFor();
}

useSignedInConsole(
  {
    seed: async () => {
      await api('POST', '/v1/policies/rate-limits', rateLimitPayload());
      await api('POST', '/v1/deployments', { name: 'axe-deployment', type: 'production', config: { strategy: { mode: 'single' }, targets: [{ provider: 'openai' }] } });
      await api('POST', '/v1/guardrails', { name: 'axe-guardrail', type: 'add_prefix', config: { prefix: 'Be brief. ', position: 'last_user' } });
      const { sink } = await logEngines();
      sink.append('requests', [
        requestRow(logRecord({ id: LOG_ID, trace_id: 'axe-trace-1', created_at: new Date(Date.now() - 60_000).toISOString(), organisation_id: gateway.bootstrap.organisationId, workspace_id: gateway.bootstrap.workspaceId, cost: 0.002 })),
      ]);
      await sink.flush();
    },
  },
  (started) => ({ gateway, page } = started),
);

describe('the console has no axe violation of any impact, in Debian chromium', { timeout: 240_000 }, () => {
  it('on the sign-in page', async () => {
    await page.evaluate('sessionStorage.clear()');
    await page.reload();
    await page.getByLabel('gw API key or JWT').waitFor();
    expect(await violations()).toEqual([]);
    await signInToConsole(page, `${gateway.url}/console`, gateway.apiKey);
  });

  it('sees a violation when there is one (the check is not vacuous)', async () => {
    await visit('keys');
    await page.evaluate("document.querySelector('main').append(Object.assign(document.createElement('input'), { type: 'text' }))");
    expect((await violations()).join('\n')).toContain('label (critical)');
    await page.reload();
  });

  it.each(PAGES)('on %s, with seeded data', async (route) => {
    await visit(route);
    expect(await violations()).toEqual([]);
  });

  it('on the request detail page', async () => {
    await visit(`logs/${LOG_ID}`);
    await page.getByText(LOG_ID).first().waitFor();
    expect(await violations()).toEqual([]);
  });

  it('with a policy open in the editor', async () => {
    await visit('policies');
    await page.getByRole('table', { name: 'Rate-limit policies' }).locator('tbody tr').first().click();
    await page.getByRole('button', { name: /save/i }).first().waitFor();
    expect(await violations()).toEqual([]);
  });

  it('with a deployment open in its edit form, showing gw’s refusal', async () => {
    await visit('deployments');
    await page.getByRole('table', { name: 'Deployments', exact: true }).locator('tbody tr').filter({ hasText: 'axe-deployment' }).click();
    const form = page.getByRole('form', { name: 'Edit axe-deployment' });
    await form.getByLabel(/^config/).fill('{"targets": [');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.getByRole('alert').waitFor();
    expect(await violations()).toEqual([]);
  });

  it('with a guardrail open in its editor', async () => {
    await visit('guardrails');
    await page.getByRole('table', { name: 'Guardrails', exact: true }).locator('tbody tr').filter({ hasText: 'axe-guardrail' }).click();
    await page.getByRole('form', { name: 'Edit guardrail axe-guardrail' }).waitFor();
    expect(await violations()).toEqual([]);
  });

  it('with gw unreachable, the rows kept from the last load keep their contrast (class: stale content faded below WCAG contrast)', async () => {
    await visit('logs');
    const rows = page.getByRole('table', { name: 'Request logs' }).locator('tbody tr');
    await rows.first().waitFor();
    await page.route('**/v1/**', (route) => route.abort('connectionrefused'));
    try {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.getByText('from the last successful load').waitFor();
      expect(await rows.count()).toBeGreaterThan(0);
      expect(await violations()).toEqual([]);
    } finally {
      await page.unroute('**/v1/**');
    }
  });

  it('at 390 px, with the menu folded and open', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await visit('keys');
    expect(await violations()).toEqual([]);
    await page.getByRole('button', { name: 'Menu' }).click();
    expect(await violations()).toEqual([]);
  });
});
