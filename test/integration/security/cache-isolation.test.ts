import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startMockUpstream, type MockUpstream, type RecordedRequest, type ScriptedResponse } from '../../support/mock-upstream.js';

/**
 * Cache probes across credentials and targets (issue #20): an answer cached for one credential, provider host
 * or model is never served to a request that would have gone elsewhere, with or without a namespace.
 */
let gateway: TestGateway;
let first: MockUpstream;
let second: MockUpstream;

/** Each mock answers with who it is and which credential it saw, so a cross hit would show in the body. */
const answering = (name: string) => (request: RecordedRequest): ScriptedResponse => {
  const body = request.json as { model?: string };
  return {
    json: {
      id: `chatcmpl-${name}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: `${name} saw ${String(request.headers.authorization)}` }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  };
};

beforeAll(async () => {
  first = await startMockUpstream(answering('first'));
  second = await startMockUpstream(answering('second'));
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
  await first?.close();
  await second?.close();
});

let counter = 0;
const question = () => `probe ${++counter} ${Date.now()}`;

interface Probe {
  host: MockUpstream;
  credential: string;
  model?: string;
  namespace?: string;
  /** Put the credential in the config instead of the Authorization header. */
  inConfig?: boolean;
}

async function ask(content: string, probe: Probe): Promise<{ status: string | null; content: string }> {
  // A config that names a provider drops the header credential (it belongs to the header's provider), so the
  // header probes name the provider in x-gw-provider and let the config add only host and cache.
  const config = { custom_host: probe.host.url, cache: { mode: 'simple' }, ...(probe.inConfig ? { provider: 'openai', api_key: probe.credential } : {}) };
  const headers: Record<string, string> = { 'x-gw-config': JSON.stringify(config) };
  if (!probe.inConfig) Object.assign(headers, { 'x-gw-provider': 'openai', authorization: `Bearer ${probe.credential}` });
  if (probe.namespace) headers['x-gw-cache-namespace'] = probe.namespace;
  const response = await gateway.post('/v1/chat/completions', { model: probe.model ?? 'gpt-4o-mini', messages: [{ role: 'user', content }] }, headers);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
  await drainAllBackgroundWork();
  return { status: response.headers.get('x-gw-cache-status'), content: body.choices[0].message.content };
}

describe.each([
  ['without a namespace', undefined],
  ['with the same namespace', 'shared-faq'],
])('response cache %s', (_label, namespace) => {
  it('does not serve one credential the answer cached for another', async () => {
    const content = question();
    expect(await ask(content, { host: first, credential: 'sk-alice-0001', namespace })).toEqual({ status: 'MISS', content: 'first saw Bearer sk-alice-0001' });
    const bob = await ask(content, { host: first, credential: 'sk-bob-0002', namespace });
    expect(bob).toEqual({ status: 'MISS', content: 'first saw Bearer sk-bob-0002' });
    // The same credential again is a hit, so the cache is on and the misses above are isolation.
    expect(await ask(content, { host: first, credential: 'sk-alice-0001', namespace })).toEqual({ status: 'HIT', content: 'first saw Bearer sk-alice-0001' });
  });

  it('does not serve one target (base URL) the answer cached for another', async () => {
    const content = question();
    await ask(content, { host: first, credential: 'sk-same', namespace });
    expect(await ask(content, { host: second, credential: 'sk-same', namespace })).toEqual({ status: 'MISS', content: 'second saw Bearer sk-same' });
    expect((await ask(content, { host: second, credential: 'sk-same', namespace })).status).toBe('HIT');
  });

  it('keeps credentials given in a config apart as well', async () => {
    const content = question();
    await ask(content, { host: first, credential: 'sk-config-one', inConfig: true, namespace });
    expect(await ask(content, { host: first, credential: 'sk-config-two', inConfig: true, namespace })).toEqual({ status: 'MISS', content: 'first saw Bearer sk-config-two' });
  });
});

it('a request with no credential does not read what a credentialed one cached', async () => {
  const content = question();
  await ask(content, { host: first, credential: 'sk-paid', namespace: 'open' });
  const config = { custom_host: first.url, cache: { mode: 'simple' } };
  const response = await gateway.post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }, {
    'x-gw-config': JSON.stringify(config),
    'x-gw-provider': 'openai',
    'x-gw-cache-namespace': 'open',
  });
  expect(response.headers.get('x-gw-cache-status')).toBe('MISS');
});
