import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatReconcileReport, reconcile, type ReconcileReport } from '../../../shared/gateway/enforcement/reconcile.js';
import { returnAllQuotaLeases } from '../../../shared/gateway/enforcement/quota-leases.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';
import { createKey } from '../control-plane/policies-support.js';
import { createPolicy, eventually } from '../enforcement/enforcement-support.js';

/**
 * Media units are lost from request logs (issue #47) unless the record keeps them: image, speech and transcription
 * requests made through gw against a provider on loopback (OpenAI's own endpoints, Deepgram), priced and unpriced,
 * must show the units they were billed by in GET /v1/logs (list and single record), sum in GET /v1/analytics, and
 * reconcile: analytics = the logged sums, and the workspace budget and a cost usage limit hold exactly the logged
 * costs plus what the unpriced ones were charged at the default media rates, re-derived from the rows' units.
 */
const deepgramAnswer = JSON.parse(readFileSync(fileURLToPath(new URL('../../fixtures/deepgram/listen.json', import.meta.url)), 'utf8')) as unknown;

let gateway: TestGateway;
let upstream: MockUpstream;
const from = new Date(Date.now() - 1_000).toISOString();

function answer(request: RecordedRequest): ScriptedResponse {
  if (request.path === '/v1/images/generations') {
    const body = request.json as { n?: number };
    return { json: { created: 1_700_000_000, data: Array.from({ length: Number(body.n ?? 1) }, () => ({ b64_json: 'iVBORw0KGgo=' })) } };
  }
  if (request.path === '/v1/audio/speech') return { headers: { 'content-type': 'audio/mpeg' }, chunks: [new Uint8Array([1, 2, 3])] };
  // OpenAI's transcription answer reports what it bills: the audio's duration.
  if (request.path === '/v1/audio/transcriptions') return { json: { text: 'hello there', usage: { type: 'duration', seconds: 7 } } };
  if (request.path === '/v1/listen') return { json: deepgramAnswer };
  return { status: 404, json: { error: { message: 'no route' } } };
}

useGatewayWithUpstream(answer, (started) => ({ gateway, upstream } = started));

const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const response = await fetch(`${gateway.url}${path}`, { method, headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey }, body: body === undefined ? undefined : JSON.stringify(body) });
  expect(response.status, path).toBeLessThan(300);
  return (await response.json()) as T;
};

const providerHeaders = (key: string, provider: string, host: string) => ({ 'x-gw-api-key': key, 'x-gw-provider': provider, 'x-gw-custom-host': host, authorization: 'Bearer sk-test' });

async function json(key: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${gateway.url}${path}`, { method: 'POST', headers: { ...providerHeaders(key, 'openai', `${upstream.url}/v1`), 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function transcription(key: string, provider: 'openai' | 'deepgram', model: string): Promise<Response> {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(4_000)], { type: 'audio/mpeg' }), 'speech.mp3');
  form.set('model', model);
  return fetch(`${gateway.url}/v1/audio/transcriptions`, { method: 'POST', headers: providerHeaders(key, provider, provider === 'openai' ? `${upstream.url}/v1` : upstream.url), body: form });
}

interface LoggedUsage {
  images?: number;
  characters?: number;
  audio_seconds?: number;
  image_size?: string;
  image_quality?: string;
  total_tokens: number;
}
interface Log {
  id: string;
  model: string;
  cost: number | null;
  usage: LoggedUsage | null;
}

describe('media units are lost from request logs: through gw, the logs API, analytics and reconcile', { timeout: 120_000 }, () => {
  it('image, speech and transcription requests (priced and unpriced) log their units, analytics sum them, and the charges reconcile', async () => {
    const workspaceId = gateway.bootstrap.workspaceId;
    await admin('PATCH', `/v1/workspaces/${workspaceId}`, { budget: { credit_limit: 1_000 } });
    const policy = await createPolicy(gateway, 'usage-limits', {
      name: 'media cost per key',
      conditions: [{ key: 'workspace_id', value: '*' }],
      group_by: [{ key: 'api_key' }],
      type: 'requests',
      unit: 'rpd',
      value: 1_000_000,
      credit_limit: { type: 'cost', value: 1_000 },
      periodic_reset: 'monthly',
    });
    const key = (await createKey({ organisationId: gateway.bootstrap.organisationId, workspaceId, scopes: ['completions:write'] })).raw;

    const speechInput = 'Hello there, lighthouse keeper.';
    const answers = await Promise.all([
      json(key, '/v1/images/generations', { model: 'dall-e-3', prompt: 'a lighthouse', n: 2, size: '1024x1792', quality: 'hd' }),
      json(key, '/v1/images/generations', { model: 'house-image-model-v9', prompt: 'a lighthouse', n: 3 }),
      json(key, '/v1/audio/speech', { model: 'tts-1', input: speechInput, voice: 'alloy' }),
      json(key, '/v1/audio/speech', { model: 'house-voice-v2', input: 'Ahoy', voice: 'alloy' }),
      transcription(key, 'deepgram', 'nova-3'),
      transcription(key, 'openai', 'house-transcriber-v1'),
      transcription(key, 'openai', 'house-transcriber-v1'),
    ]);
    expect(answers.map((response) => response.status)).toEqual(answers.map(() => 200));
    await Promise.all(answers.map((response) => response.arrayBuffer()));

    // GET /v1/logs: every request's units, as billed.
    const logs = await eventually(async () => {
      await drainAllBackgroundWork();
      const page = await admin<{ data: Log[] }>('GET', `/v1/logs?from=${encodeURIComponent(from)}&limit=100`);
      return page.data.length >= answers.length ? page.data : undefined;
    }, 'the media requests in the logs');
    const byModel = (model: string) => logs.filter((log) => log.model === model);
    expect(byModel('dall-e-3')[0]).toMatchObject({ cost: 0.24, usage: { images: 2, image_size: '1024x1792', image_quality: 'hd', total_tokens: 0 } });
    expect(byModel('house-image-model-v9')[0]).toMatchObject({ cost: null, usage: { images: 3 } });
    expect(byModel('tts-1')[0].usage).toMatchObject({ characters: [...speechInput].length });
    expect(byModel('house-voice-v2')[0]).toMatchObject({ cost: null, usage: { characters: 4 } });
    // Deepgram's reported duration (25.93 s), as gw's translation bills it: whole seconds.
    expect(byModel('nova-3')[0].usage?.audio_seconds).toBe(26);
    expect(byModel('house-transcriber-v1').map((log) => log.usage?.audio_seconds)).toEqual([7, 7]);
    // GET /v1/logs/{id}: the same usage as the list.
    const single = await admin<Log>('GET', `/v1/logs/${byModel('dall-e-3')[0].id}`);
    expect(single.usage).toEqual(byModel('dall-e-3')[0].usage);

    // GET /v1/analytics: the units summed per group, as tokens are.
    const analytics = await admin<{ rows: Array<{ key: string | null; requests: number; images: number; characters: number; audio_seconds: number }> }>(
      'GET',
      `/v1/analytics?group_by=workspace&from=${encodeURIComponent(from)}&workspace_id=${workspaceId}`,
    );
    const totals = analytics.rows.find((row) => row.key === workspaceId)!;
    expect(totals).toMatchObject({ requests: answers.length, images: 5, characters: [...speechInput].length + 4, audio_seconds: 26 + 14 });

    // reconcile: analytics = logged sums = what the budget and the cost limit were charged.
    await returnAllQuotaLeases();
    const report: ReconcileReport = await reconcile({ workspaceId, from });
    expect(report.differences, formatReconcileReport(report)).toEqual([]);
    expect(report.logged).toMatchObject({ requests: answers.length, images: 5, characters: [...speechInput].length + 4, unpricedRequests: 4 });
    // The unpriced ones at the default media rates: 3 images at $0.25, 4 characters at $300/M, 2 × 7 s at $0.05/min,
    // each request rounded to 1e-10 USD as settlement charged it (7 s is $0.0058333333…, so not 2 × 7 s priced once).
    expect(report.logged.unpricedMediaCharge).toBe(0.75 + 0.0012 + 2 * 0.0058333333);
    expect('charged' in report.budget && report.budget.charged).toBeGreaterThan(0.99);
    const limit = report.limits.compared.filter((comparison) => comparison.limit.includes(policy.id));
    expect(limit.length).toBe(1);
    expect(limit[0].logged).toBeGreaterThan(0.99);
    expect(formatReconcileReport(report)).toContain('5 images');
  });
});
