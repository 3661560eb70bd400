import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { DataExport } from '../../../shared/control-plane/exports/schemas.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { requestRow } from '../../../shared/observability/engine/columns.js';
import { logEngines } from '../../../shared/observability/engine/select.js';
import type { TestGateway } from '../../support/gateway.js';
import { api, newKey, newWorkspace } from '../control-plane/identities-support.js';
import { logRecord } from '../observability/log-engine-support.js';
import { signInToConsole, useSignedInConsole } from './console-support.js';

/**
 * Exports in Debian chromium with a format choice: each format POST /v1/exports accepts can be picked, the list
 * says which one a row is, and the downloaded file is that format (named and shaped so). The list is the one gw
 * keeps for the workspace (GET /v1/exports), so a fresh tab sees exports made elsewhere, page by page, and never
 * another workspace's.
 */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 45_000, interval: 50 });
let gateway: TestGateway;
let browser: Browser;
let page: Page;

useSignedInConsole(
  {
    page: { acceptDownloads: true },
    seed: async () => {
      const { sink } = await logEngines();
      sink.append('requests', [
        requestRow(logRecord({ id: 'export-format-1', created_at: new Date(Date.now() - 60_000).toISOString(), organisation_id: gateway.bootstrap.organisationId, workspace_id: gateway.bootstrap.workspaceId, model: 'gpt-4o-mini' })),
      ]);
      await sink.flush();
    },
  },
  (started) => ({ gateway, browser, page } = started),
);

describe('exports with a format choice, in Debian chromium', { timeout: 120_000 }, () => {
  it('offers the formats the API accepts, and a CSV export downloads as CSV', async () => {
    await page.goto(`${gateway.url}/console#/exports`);
    const create = page.getByRole('form', { name: 'Create an export' });
    // allTextContents does not wait for the form: polled, as a loaded machine renders the page late.
    await poll(() => create.getByLabel('format').locator('option').allTextContents()).toEqual(['jsonl', 'parquet', 'csv']);
    await create.getByLabel('format').selectOption('csv');
    await create.getByLabel('model').fill('gpt-4o-mini');
    await create.getByRole('button', { name: 'Create export' }).click();
    await poll(() => page.getByTestId('export-status').first().textContent()).toBe('completed');
    const row = page.getByRole('table', { name: 'Exports' }).locator('tbody tr').first();
    expect(await row.textContent()).toContain('csv');
    const download = page.waitForEvent('download');
    await row.getByRole('button', { name: /^Download / }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^gw-logs-.+\.csv$/);
    const [header, first] = readFileSync((await file.path())!, 'utf8').split('\n');
    expect(header.split(',')).toContain('model');
    expect(first).toContain('export-format-1');
  });
});

describe('the export list gw keeps, in Debian chromium', { timeout: 120_000 }, () => {
  it('shows the workspace’s exports made anywhere, newest first, page by page, and never another workspace’s', async () => {
    const made: string[] = [];
    for (let index = 0; index < 20; index++) {
      const created = await api<DataExport>(gateway, 'POST', '/v1/exports', { body: { format: 'jsonl', model: `elsewhere-${index}` } });
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      made.push(created.body.id);
    }
    const other = await newWorkspace(gateway);
    const otherKey = (await newKey(gateway, { workspace_id: other.id, scopes: ['logs:read'] })).key;
    const theirs = await api<DataExport>(gateway, 'POST', '/v1/exports', { body: { format: 'csv' }, key: otherKey });
    expect(theirs.status).toBe(202);
    await drainAllBackgroundWork();
    const listed = (await api<{ data: DataExport[] }>(gateway, 'GET', '/v1/exports?limit=100')).body.data.map((job) => job.id);
    expect(listed).toHaveLength(21);

    // A tab that made none of them: the list is gw's, not this tab's.
    const fresh = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signInToConsole(fresh, `${gateway.url}/console`, gateway.apiKey);
    await fresh.goto(`${gateway.url}/console#/exports`);
    const table = fresh.getByRole('table', { name: 'Exports' });
    const ids = () => table.locator('tbody tr td:first-child code').allTextContents();
    await poll(ids).toEqual(listed.slice(0, 20));
    expect(await table.locator('tbody tr').first().textContent()).toContain('completed');
    const pager = fresh.getByRole('group', { name: 'Pages of exports' });
    await pager.getByRole('button', { name: 'Next page' }).click();
    // Page 2: the oldest, the CSV export the first test made in another tab.
    await poll(ids).toEqual(listed.slice(20));
    expect(await table.locator('tbody tr').first().textContent()).toContain('csv');
    await pager.getByRole('button', { name: 'Previous page' }).click();
    await poll(ids).toEqual(listed.slice(0, 20));
    expect(listed).not.toContain(theirs.body.id);
    expect(await fresh.content()).not.toContain(theirs.body.id);
    await fresh.close();
  });
});
