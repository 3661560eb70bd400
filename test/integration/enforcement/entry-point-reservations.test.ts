import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { WorkspaceRepository } from '../../../shared/store/workspace-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { openAIDialectsMockHandler } from '../../support/mock-openai-dialects.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { createKey } from '../control-plane/policies-support.js';
import { startMediaMock, type MediaMock } from '../passthrough/media-mock.js';
import { concurrently, type Answer, adminCall } from './enforcement-support.js';

// Issue #41, "every entry point": under a cost limit, each entry point that uses tokens reserves its estimate before
// its call, streamed or not. The class: an entry point admitted unmetered, so concurrent requests all pass a nearly
// spent budget (each reads only what was settled before it). Each case sends 30 requests at once against a budget
// of $10 at $1 per token: reserving, at most one answer ends over the limit; unmetered, all 30 would pass.
// count_tokens is metered by requests only (a count costs nothing): an exhausted budget neither refuses nor charges it.
const MODEL = 'entry-model';
const LIMIT = 10;
const pricingDir = mkdtempSync(join(tmpdir(), 'gw-entry-points-'));
writeFileSync(join(pricingDir, 'openai.json'), JSON.stringify({ models: { [MODEL]: { input_per_mtok: 1_000_000, output_per_mtok: 1_000_000 } } }));

let gateway: TestGateway;
let upstream: MockUpstream;
let media: MediaMock;
beforeAll(async () => {
  const dialects = openAIDialectsMockHandler();
  const legacy = openAIMockHandler();
  // /embeddings and the legacy /completions from the plain mock, the rest from the dialects mock; held a moment so
  // the concurrent requests overlap at admission.
  upstream = await startMockUpstream(async (request) => {
    const plain = request.path.endsWith('/embeddings') || (request.path.endsWith('/completions') && !request.path.endsWith('/chat/completions'));
    return { ...(await (plain ? legacy(request) : dialects(request))), delayMs: 20 };
  });
  media = await startMediaMock();
  gateway = await startTestGateway({ GW_POLICY_CACHE_TTL_MS: '100', MODEL_CONFIGS_PRICING_LOCAL_PATH: pricingDir });
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await media?.close();
  rmSync(pricingDir, { recursive: true, force: true });
});

const admin = <T>(method: string, path: string, body: unknown): Promise<T> => adminCall<T>(gateway, method, path, body);

/** A workspace with a $10 budget, a key, a virtual key to `host` and a prompt of the priced model. */
async function budgeted(name: string, host: string): Promise<{ workspaceId: string; headers: Record<string, string>; promptId: string }> {
  const workspace = await admin<{ id: string }>('POST', '/v1/workspaces', { name, budget: { credit_limit: LIMIT } });
  const key = await createKey({ organisationId: gateway.bootstrap.organisationId, workspaceId: workspace.id, scopes: ['completions:write', 'prompts:render'] });
  const virtualKey = await admin<{ id: string }>('POST', `/v1/virtual-keys?workspace_id=${workspace.id}`, { name: `${name} key`, provider: 'openai', credential: 'sk-entry', custom_host: host });
  const prompt = await admin<{ id: string }>('POST', `/v1/prompts?workspace_id=${workspace.id}`, { name: `${name} prompt`, messages: [{ role: 'user', content: 'Hi {{name}}' }], model: MODEL, hyperparameters: { max_tokens: 20 } });
  return { workspaceId: workspace.id, headers: { 'x-gw-api-key': key.raw, 'x-gw-virtual-key': virtualKey.id }, promptId: prompt.id };
}

async function post(path: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
  const response = await gateway.post(path, body, headers);
  await response.text();
  return { status: response.status, headers: response.headers, body: {} };
}

async function budgetUsage(workspaceId: string): Promise<number> {
  await drainAllBackgroundWork();
  return (await new WorkspaceRepository().getWorkspace(workspaceId))?.budget_current_usage ?? 0;
}

const chat = { model: MODEL, max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] };
const ENTRY_POINTS: Array<{ name: string; media?: true; send: (headers: Record<string, string>, promptId: string) => Promise<Answer> }> = [
  { name: 'chat', send: (headers) => post('/v1/chat/completions', chat, headers) },
  { name: 'chat, streamed', send: (headers) => post('/v1/chat/completions', { ...chat, stream: true }, headers) },
  { name: 'completions', send: (headers) => post('/v1/completions', { model: MODEL, max_tokens: 20, prompt: 'Hi' }, headers) },
  // The mock reports 3 tokens for any input: an input the tokenizer counts at more, so the estimate is an upper bound
  // as a real provider's count of the same text is (an estimate below the real usage lets each request over by the gap).
  { name: 'embeddings', send: (headers) => post('/v1/embeddings', { model: MODEL, input: 'Hello there, how are you today?' }, headers) },
  { name: 'Responses', send: (headers) => post('/v1/responses', { model: MODEL, max_output_tokens: 20, input: 'Hi' }, headers) },
  { name: 'Responses, streamed', send: (headers) => post('/v1/responses', { model: MODEL, max_output_tokens: 20, input: 'Hi', stream: true }, headers) },
  { name: 'Messages', send: (headers) => post('/v1/messages', chat, headers) },
  { name: 'Messages, streamed', send: (headers) => post('/v1/messages', { ...chat, stream: true }, headers) },
  { name: 'prompt completions', send: (headers, promptId) => post(`/v1/prompts/${promptId}/completions`, { variables: { name: 'Ada' } }, headers) },
  { name: 'prompt completions, streamed', send: (headers, promptId) => post(`/v1/prompts/${promptId}/completions`, { variables: { name: 'Ada' }, stream: true }, headers) },
  { name: 'pass-through (images)', media: true, send: (headers) => post('/v1/images/generations', { model: MODEL, prompt: 'fox' }, headers) },
];

describe('every entry point reserves under a cost limit (an entry point admitted unmetered)', { timeout: 240_000 }, () => {
  for (const entry of ENTRY_POINTS) {
    it(`${entry.name}: 30 concurrent requests end at most one answer over a $${LIMIT} budget`, async () => {
      const who = await budgeted(`entry ${entry.name}`, entry.media ? media.url : upstream.url);
      const answers = await concurrently(30, () => entry.send(who.headers, who.promptId));
      for (const answer of answers) expect([200, 412]).toContain(answer.status);
      const admitted = answers.filter((answer) => answer.status === 200).length;
      expect(admitted).toBeGreaterThan(0);
      const usage = await budgetUsage(who.workspaceId);
      // Every answer of an entry point costs the same (the mock's fixed usage): what one costs, from what all cost.
      const perAnswer = usage / admitted;
      expect(perAnswer).toBeGreaterThan(0);
      expect(admitted).toBeLessThanOrEqual(Math.floor(LIMIT / perAnswer) + 1);
      expect(admitted).toBeLessThan(30);
    });
  }

  it('count_tokens is metered by requests: an exhausted budget neither refuses nor charges it', async () => {
    const who = await budgeted('entry count_tokens', upstream.url);
    expect((await post('/v1/chat/completions', chat, who.headers)).status).toBe(200);
    const spent = await budgetUsage(who.workspaceId);
    expect(spent).toBeGreaterThanOrEqual(LIMIT);
    expect((await post('/v1/chat/completions', chat, who.headers)).status).toBe(412);
    const counts = await concurrently(5, () => post('/v1/messages/count_tokens', { model: MODEL, messages: [{ role: 'user', content: 'Hi' }] }, who.headers));
    expect(counts.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await budgetUsage(who.workspaceId)).toBe(spent);
  });
});
