import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { requestRow } from '../../../shared/observability/engine/columns.js';
import { logEngines } from '../../../shared/observability/engine/select.js';
import type { TestGateway } from '../../support/gateway.js';
import { api, newKey } from '../control-plane/identities-support.js';
import { logRecord } from '../observability/log-engine-support.js';
import { signInToConsole, useSignedInConsole } from './console-support.js';

/**
 * Names instead of bare UUIDs (class of defect: an id shown where the caller knows a name): Analytics grouped by API
 * key or by workspace shows each group by its name, in the table and in the charts' line names, the id kept as the
 * cell's title.
 */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 30_000, interval: 50 });
let gateway: TestGateway;
let page: Page;
let keyId: string;
let workspaceName: string;

useSignedInConsole(
  {
    seed: async () => {
      keyId = (await newKey(gateway, { name: 'named-ci-bot', workspace_id: gateway.bootstrap.workspaceId, scopes: ['completions:write'] })).id;
      workspaceName = (await api<{ name: string }>(gateway, 'GET', `/v1/workspaces/${gateway.bootstrap.workspaceId}`)).body.name;
      const { sink } = await logEngines();
      sink.append('requests', [
        requestRow(logRecord({ id: 'named-1', created_at: new Date(Date.now() - 60_000).toISOString(), organisation_id: gateway.bootstrap.organisationId, workspace_id: gateway.bootstrap.workspaceId, api_key_id: keyId, model: 'gpt-4o-mini' })),
      ]);
      await sink.flush();
    },
  },
  (started) => ({ gateway, page } = started),
);

describe('names instead of bare UUIDs, in Debian chromium', { timeout: 120_000 }, () => {
  it('Analytics grouped by API key or workspace names each group', async () => {
    await page.goto(`${gateway.url}/console#/analytics`);
    const table = page.getByRole('table', { name: 'Analytics by group' });
    await page.getByLabel('group by').selectOption('api_key');
    await poll(() => table.locator('tbody tr').first().textContent()).toContain('named-ci-bot');
    expect(await table.textContent()).not.toContain(keyId);
    expect(await table.locator('tbody tr td span').first().getAttribute('title')).toBe(keyId);
    expect(await page.getByRole('img', { name: /^Requests over time/ }).getAttribute('aria-label')).toContain('named-ci-bot');
    await page.getByLabel('group by').selectOption('workspace');
    await poll(() => table.locator('tbody tr').first().textContent()).toContain(workspaceName);
    expect(await table.textContent()).not.toContain(gateway.bootstrap.workspaceId);
  });

  it('a deployment names its saved config and workspace, and the audit log names the acting key', async () => {
    const config = await api<{ id: string }>(gateway, 'POST', '/v1/configs', { body: { name: 'named-config', config: { strategy: { mode: 'single' }, targets: [{ provider: 'openai' }] } } });
    expect(config.status, JSON.stringify(config.body)).toBe(201);
    // Made by a named workspace key, so the audit log has an actor with a name.
    const deployer = await newKey(gateway, { name: 'named-deployer', workspace_id: gateway.bootstrap.workspaceId, scopes: ['deployments:create', 'deployments:read'] });
    const deployment = await api(gateway, 'POST', '/v1/deployments', { key: deployer.key, body: { name: 'named-deployment', type: 'production', config: { id: config.body.id } } });
    expect(deployment.status, JSON.stringify(deployment.body)).toBe(201);
    // Fresh names for this tab (they are read once per credential and tab).
    await signInToConsole(page, `${gateway.url}/console`, gateway.apiKey);
    await page.goto(`${gateway.url}/console#/deployments`);
    const row = page.getByRole('table', { name: 'Deployments', exact: true }).locator('tbody tr').filter({ hasText: 'named-deployment' });
    await poll(() => row.textContent()).toContain('named-config');
    expect(await row.textContent()).not.toContain(config.body.id);
    expect(await row.textContent()).toContain(workspaceName);
    await page.goto(`${gateway.url}/console#/audit`);
    const created = page.getByRole('table', { name: 'Audit log', exact: true }).locator('tbody tr').filter({ hasText: 'deployment.create' });
    await poll(() => created.first().textContent()).toContain('named-deployer');
    expect(await created.first().textContent()).not.toContain(deployer.id);
  });
});
