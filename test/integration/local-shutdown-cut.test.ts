import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../../infra/local/server.js';
import { chatStream } from '../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { readSseEvents } from '../support/sse-client.js';
import { rowsOfStoppedLogFile } from '../support/request-logs.js';

/**
 * Issue #42: requests still running at the drain timeout of a graceful close. Before, their clients got a bare
 * abort, none was logged, and the shutdown line counted each twice. Now each is cut once: a stream ends with an
 * explicit SSE error event, a request not yet answered gets a 503, and every one is logged as `cut_at_shutdown`.
 */
const KEY = 'gwk_cut_at_shutdown_key_0123456789';
const STREAMS = 10;
const dataDir = mkdtempSync(join(tmpdir(), 'gw-cut-'));
let upstream: MockUpstream;
let gw: LocalServer;

beforeAll(async () => {
  // Streams that last far longer than the drain timeout: 200 chunks, 100 ms apart (about 20 s).
  const content = Array.from({ length: 200 }, (_, i) => `w${i} `).join('');
  upstream = await startMockUpstream((request) => {
    const body = request.json as { stream?: boolean; model: string };
    if (body.stream) return { chunks: chatStream(body.model, content, body), chunkDelayMs: 100 };
    // A non-streamed call whose provider has not answered by the drain timeout.
    return { hang: true };
  });
  gw = await startLocalServer({ port: 0, dataDir, bootstrapApiKey: KEY, env: { POWERTOOLS_LOG_LEVEL: 'SILENT', GW_LOCAL_STORE: 'in-process', GW_SHUTDOWN_DRAIN_TIMEOUT_MS: '1500' } });
}, 60_000);
afterAll(async () => {
  await upstream?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function chat(traceId: string, stream: boolean): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-x', 'x-gw-trace-id': traceId },
    body: JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'Hi' }] }),
  });
}

describe('requests cut at the drain timeout of a graceful close', () => {
  it('cut streams and unanswered requests: each ends with an explicit error, is logged as cut_at_shutdown and counted once', async () => {
    const streams = await Promise.all(Array.from({ length: STREAMS }, (_, i) => chat(`cut-stream-${i}`, true)));
    for (const response of streams) expect(response.status).toBe(200);
    const events = streams.map((response) => readSseEvents(response));
    const waiting = chat('cut-unanswered', false);
    while (upstream.requests.length < STREAMS + 1) await new Promise((resolve) => setTimeout(resolve, 20));

    const report = await gw.close();
    expect(report.cutRequests).toBe(STREAMS + 1);

    for (const received of await Promise.all(events)) {
      // Content went out, then the stream ended with an error event that says why: no [DONE], no bare abort.
      expect(received.length).toBeGreaterThan(1);
      const last = received.at(-1)!;
      expect(last.event).toBe('error');
      expect(JSON.parse(last.data)).toMatchObject({ error: { code: 'cut_at_shutdown', type: 'api_error' } });
      expect(received.some((event) => event.data === '[DONE]')).toBe(false);
    }
    const unanswered = await waiting;
    expect(unanswered.status).toBe(503);
    expect(unanswered.headers.get('retry-after')).toBe('1');
    expect(await unanswered.json()).toMatchObject({ error: { code: 'cut_at_shutdown' } });

    // Every cut request has exactly one log record, which says so.
    const rows = await rowsOfStoppedLogFile(join(dataDir, 'logs.duckdb'), "SELECT trace_id, CAST(status AS INTEGER) AS status, error_code FROM requests WHERE trace_id LIKE 'cut-%' ORDER BY trace_id");
    expect(rows).toHaveLength(STREAMS + 1);
    for (const row of rows) expect(row.error_code).toBe('cut_at_shutdown');
    expect(rows.find((row) => row.trace_id === 'cut-unanswered')?.status).toBe(503);
    for (const row of rows.filter((row) => row.trace_id !== 'cut-unanswered')) expect(row.status).toBe(200);
  }, 120_000);
});
