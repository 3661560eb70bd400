import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DataExport } from '../../../shared/control-plane/exports/schemas.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { api } from '../control-plane/identities-support.js';
import { viaMock } from '../observability/observability-support.js';

/**
 * What an export hands out is gw's, not the caller's: CSV cells a `completions:write` caller wrote (model,
 * metadata, …) cannot run as spreadsheet formulas (class: CSV injection, OWASP), and the download_url is built
 * from gw's own address, never from the request's Host or X-Forwarded-Proto (class: URL built from request headers).
 */
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

const traceId = `export-output-${randomUUID()}`;
const FORMULAS = ["=cmd|' /C calc'!A0", '+1+1', '-2+3', '@SUM(A1)', '\tTAB', '\rCR'];

beforeAll(async () => {
  for (const [index, formula] of FORMULAS.entries()) {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'x-gw-trace-id': traceId, 'x-gw-metadata': JSON.stringify({ note: formula }), ...viaMock(upstream.url) },
      body: JSON.stringify({ model: index === 0 ? formula : 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    await response.text();
  }
  await drainAllBackgroundWork();
});

async function finishedExport(format: string, headers: Record<string, string> = {}): Promise<DataExport> {
  const created = await api<DataExport>(gateway, 'POST', '/v1/exports', { body: { trace_id: traceId, format }, headers });
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  await drainAllBackgroundWork();
  const read = await api<DataExport>(gateway, 'GET', `/v1/exports/${created.body.id}`, { headers });
  expect(read.body.status).toBe('completed');
  return read.body;
}

describe('CSV exports', () => {
  it('neutralise cells that begin with =, +, -, @, tab or carriage return', async () => {
    const job = await finishedExport('csv');
    const csv = await (await fetch(job.download_url!, { headers: { 'x-gw-api-key': gateway.apiKey } })).text();
    expect(csv).toContain("'=cmd|' /C calc'!A0");
    // No cell (start of a line, or after a separator, quoted or not) begins with a formula character.
    const cells = csv.split(/\r?\n/).flatMap((line) => line.split(','));
    const dangerous = cells.filter((cell) => /^"?[=+\-@\t\r]/.test(cell));
    expect(dangerous).toEqual([]);
  });

  it('leave JSON Lines exports as they were written', async () => {
    const job = await finishedExport('jsonl');
    const lines = (await (await fetch(job.download_url!, { headers: { 'x-gw-api-key': gateway.apiKey } })).text()).trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { model: string }).model)).toContain(FORMULAS[0]);
  });
});

describe('download_url', () => {
  it('ignores the caller’s Host and X-Forwarded-Proto', async () => {
    const job = await finishedExport('jsonl', { 'x-forwarded-proto': 'javascript:alert(1)//', 'x-forwarded-host': 'evil.example', host: 'evil.example' });
    expect(job.download_url).not.toBeNull();
    expect(job.download_url!.startsWith(`${gateway.url}/v1/exports/`)).toBe(true);
    expect(job.download_urls.every((url) => url.startsWith(`${gateway.url}/`))).toBe(true);
    expect(JSON.stringify(job)).not.toMatch(/evil\.example|javascript:/);
  });
});
