import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { returnAllQuotaLeases } from '../../../shared/gateway/enforcement/quota-leases.js';
import { WorkspaceRepository } from '../../../shared/store/workspace-repository.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';
import { createKey } from '../control-plane/policies-support.js';
import { eventually, requestLog } from '../enforcement/enforcement-support.js';

// Media endpoints are billed per image, per character and per minute of audio, not per token: gw meters those units,
// prices them from the catalogue's media rows (shared/observability/pricing/media-prices.ts), logs the cost and
// charges the workspace budget, after reserving an estimate of them before the call.
const deepgramAnswer = JSON.parse(readFileSync(fileURLToPath(new URL('../../fixtures/deepgram/listen.json', import.meta.url)), 'utf8')) as unknown;

let gateway: TestGateway;
let release!: () => void;
const held = new Promise<void>((resolve) => (release = resolve));
let upstream: MockUpstream;

function answer(request: RecordedRequest): ScriptedResponse {
  if (request.path === '/v1/images/generations') {
    const body = request.json as { n?: number; prompt?: string };
    const json = { created: 1_700_000_000, data: Array.from({ length: Number(body.n ?? 1) }, () => ({ b64_json: 'iVBORw0KGgo=' })) };
    // 'hold': the answer waits for the test, so its reservation stays in flight meanwhile.
    if (body.prompt === 'hold') return { headers: { 'content-type': 'application/json' }, chunks: [JSON.stringify(json)], holdAfter: { count: 0, until: held } };
    return { json };
  }
  if (request.path === '/v1/audio/speech') return { headers: { 'content-type': 'audio/mpeg' }, chunks: [new Uint8Array([1, 2, 3])] };
  if (request.path === '/v1/listen') return { json: deepgramAnswer };
  return { status: 404, json: { error: { message: 'no route' } } };
}

useGatewayWithUpstream(answer, (started) => ({ gateway, upstream } = started));

/** A workspace of its own with a budget, and a key that may call the gateway. */
async function tenant(name: string, creditLimit: number): Promise<{ workspaceId: string; key: string }> {
  const created = await fetch(`${gateway.url}/v1/workspaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey },
    body: JSON.stringify({ name, budget: { credit_limit: creditLimit } }),
  });
  expect(created.status).toBe(201);
  const workspaceId = ((await created.json()) as { id: string }).id;
  const key = await createKey({ organisationId: gateway.bootstrap.organisationId, workspaceId, scopes: ['completions:write'] });
  return { workspaceId, key: key.raw };
}

const headers = (key: string, provider: string, host: string) => ({ 'x-gw-api-key': key, 'x-gw-provider': provider, 'x-gw-custom-host': host, authorization: 'Bearer sk-test' });
const postJson = (key: string, path: string, body: unknown) =>
  fetch(`${gateway.url}${path}`, { method: 'POST', headers: { ...headers(key, 'openai', `${upstream.url}/v1`), 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function budgetUsage(workspaceId: string, expected: number): Promise<number> {
  // A live lease share counts as spent until it goes back (docs/enforcement.md): give them back, then read.
  await returnAllQuotaLeases();
  return eventually(async () => {
    const usage = (await new WorkspaceRepository().getWorkspace(workspaceId))?.budget_current_usage ?? 0;
    return Math.abs(usage - expected) < 1e-9 ? usage : undefined;
  }, `budget usage ${expected}`);
}

describe('media prices', () => {
  it('image per-image price by quality and size: two hd 1024x1792 DALL·E 3 images log $0.24 and charge the budget', async () => {
    const who = await tenant('media images', 5);
    const response = await postJson(who.key, '/v1/images/generations', { model: 'dall-e-3', prompt: 'a lighthouse', n: 2, size: '1024x1792', quality: 'hd' });
    expect(response.status).toBe(200);
    const log = await requestLog(response.headers.get('x-gw-trace-id')!);
    expect(log.cost).toBe(0.24);
    expect(await budgetUsage(who.workspaceId, 0.24)).toBeCloseTo(0.24, 10);
  });

  it('speech per-character price: tts-1 at $15 per million characters of input', async () => {
    const who = await tenant('media speech', 5);
    const input = 'Hello there, lighthouse keeper.';
    const response = await postJson(who.key, '/v1/audio/speech', { model: 'tts-1', input, voice: 'alloy' });
    expect(response.status).toBe(200);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
    const expected = (input.length * 15) / 1_000_000;
    const log = await requestLog(response.headers.get('x-gw-trace-id')!);
    expect(log.cost).toBeCloseTo(expected, 10);
    await budgetUsage(who.workspaceId, expected);
  });

  it("transcription per-minute price: Deepgram's reported duration (26 s) at nova-3's $0.0043 a minute", async () => {
    const who = await tenant('media transcription', 5);
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(4_000)], { type: 'audio/mpeg' }), 'speech.mp3');
    form.set('model', 'nova-3');
    const response = await fetch(`${gateway.url}/v1/audio/transcriptions`, { method: 'POST', headers: headers(who.key, 'deepgram', upstream.url), body: form });
    expect(response.status).toBe(200);
    const expected = Math.round(((26 * 0.0043) / 60) * 1e10) / 1e10;
    const log = await requestLog(response.headers.get('x-gw-trace-id')!);
    expect(log.cost).toBe(expected);
    await budgetUsage(who.workspaceId, expected);
  });

  it('the model catalog shows a media model\'s per-unit prices, not only its (zero) token rates', async () => {
    const response = await fetch(`${gateway.url}/v1/model-catalog/openai/dall-e-3`, { headers: { 'x-gw-api-key': gateway.apiKey } });
    expect(response.status).toBe(200);
    const entry = (await response.json()) as { pricing: { media?: { per_image?: Record<string, number> } } };
    expect(entry.pricing.media?.per_image?.['hd 1024x1792']).toBe(0.12);
    const speech = (await (await fetch(`${gateway.url}/v1/model-catalog/elevenlabs/eleven_flash_v2_5`, { headers: { 'x-gw-api-key': gateway.apiKey } })).json()) as { pricing: { media?: unknown } };
    expect(speech.pricing.media).toEqual({ per_million_characters: 50 });
  });

  it('unpriced media model never free to a cost limit: images of a model without a price log cost null and charge the budget at the default $0.25 an image', async () => {
    const who = await tenant('media unpriced', 5);
    const response = await postJson(who.key, '/v1/images/generations', { model: 'house-image-model-v9', prompt: 'a lighthouse', n: 3 });
    expect(response.status).toBe(200);
    const log = await requestLog(response.headers.get('x-gw-trace-id')!);
    expect(log.cost).toBeNull();
    await budgetUsage(who.workspaceId, 0.75);
  });

  it('media estimate before the call: images in flight hold their per-image price, so the next request finds the budget reserved', async () => {
    const who = await tenant('media estimate', 0.2);
    const images = { model: 'dall-e-3', n: 2, size: '1792x1024', quality: 'hd' };
    const first = postJson(who.key, '/v1/images/generations', { ...images, prompt: 'hold' });
    // The first request reserved 2 × $0.12 (it has no tokens to estimate): the $0.20 budget is spoken for.
    await eventually(async () => (upstream.requests.some((request) => (request.json as { prompt?: string } | undefined)?.prompt === 'hold') ? true : undefined), 'the held request upstream');
    const before = upstream.requests.length;
    const second = await postJson(who.key, '/v1/images/generations', { ...images, prompt: 'a lighthouse' });
    expect(second.status).toBe(412);
    expect(upstream.requests.length).toBe(before);
    release();
    expect((await first).status).toBe(200);
    await budgetUsage(who.workspaceId, 0.24);
  });
});
