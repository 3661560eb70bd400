import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DataExport } from '../../../shared/control-plane/exports/schemas.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useTestGateway } from '../../support/harness.js';
import { api } from '../control-plane/identities-support.js';

/**
 * With GW_PUBLIC_BASE_URL set (gw behind a proxy or CDN), the links gw hands out start with it, whatever Host and
 * X-Forwarded-* the caller sent; export-output.test.ts covers the unset case (the listening address). Class: URL
 * built from request headers.
 */
const PUBLIC = 'https://gw.example.com/base';
let gateway: TestGateway;
useTestGateway((started) => void (gateway = started), { GW_PUBLIC_BASE_URL: `${PUBLIC}/` });

describe('an export’s download_url under GW_PUBLIC_BASE_URL', () => {
  it('starts with the configured address, not the caller’s Host or X-Forwarded-Proto/-Host, and names a route gw serves', async () => {
    const spoofed = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'javascript:alert(1)//' };
    const created = await api<DataExport>(gateway, 'POST', '/v1/exports', { body: { trace_id: `public-base-${randomUUID()}`, format: 'jsonl' }, headers: spoofed });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    await drainAllBackgroundWork();
    const job = (await api<DataExport>(gateway, 'GET', `/v1/exports/${created.body.id}`, { headers: spoofed })).body;
    expect(job.status).toBe('completed');
    expect(job.download_urls.length).toBeGreaterThan(0);
    for (const url of job.download_urls) expect(url.startsWith(`${PUBLIC}/v1/exports/${created.body.id}/download`), url).toBe(true);
    expect(JSON.stringify(job)).not.toMatch(/evil\.example|javascript:/);
    // The path after the public base is gw's own download route (the proxy forwards it here).
    const local = job.download_url!.replace(PUBLIC, gateway.url);
    expect((await fetch(local, { headers: { 'x-gw-api-key': gateway.apiKey } })).status).toBe(200);
  });
});
