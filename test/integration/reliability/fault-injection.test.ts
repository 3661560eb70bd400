import { beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { faultInjectingHandler } from '../../support/fault-mock.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { readSseEvents } from '../../support/sse-client.js';
import { connectHangs, startUnansweredListener } from '../../support/unanswered-listener.js';
import { adminKeyId, createPolicy, rateCounter, requestLog } from '../enforcement/enforcement-support.js';

// Each fault kind of the mock provider (test/support/fault-mock.ts) against the real local gw: a 2xx whose
// body is not a whole answer is an upstream failure (502 with a code) that retries and falls back like a 5xx,
// shows in x-gw-attempts and the log record, and gives back what admission reserved.

let gateway: TestGateway;
let upstream: MockUpstream;
let keyId: string;
let tokensPolicy: Awaited<ReturnType<typeof createPolicy>>;
useGatewayWithUpstream(faultInjectingHandler(), (started) => ({ gateway, upstream } = started), { GW_POLICY_CACHE_TTL_MS: '0' });
beforeAll(async () => {
  keyId = await adminKeyId(gateway);
  // A tokens policy that reserves each request's estimate: after a failure its counter must be back where it was.
  tokensPolicy = await createPolicy(gateway, 'rate-limits', { name: 'fault tokens', conditions: [{ key: 'workspace_id', value: '*' }], group_by: [{ key: 'api_key' }], type: 'tokens', unit: 'rpd', value: 10_000_000 });
}, 60_000);

const messages = [{ role: 'user', content: 'Hi' }];
const target = (model: string) => ({ provider: 'openai', api_key: 'sk-t', custom_host: upstream.url, override_params: { model } });

interface Sent {
  status: number;
  headers: Headers;
  text: string;
}

async function send(config: unknown, body: Record<string, unknown> = { messages }, headers: Record<string, string> = {}): Promise<Sent> {
  const response = await gateway.post('/v1/chat/completions', body, { 'x-gw-config': JSON.stringify(config), ...headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const errorCode = (sent: Sent) => (JSON.parse(sent.text) as { error: { code: string } }).error.code;

/** The tokens counter once the request's after-path ran (reservations given back or replaced). */
async function tokensNow(): Promise<number> {
  await drainAllBackgroundWork();
  return rateCounter(tokensPolicy, { api_key: keyId });
}

const BODY_FAULTS: Array<[model: string, code: string]> = [
  ['body-invalid-json', 'invalid_provider_response'],
  ['body-empty', 'empty_provider_response'],
  ['body-truncated', 'invalid_provider_response'],
  ['body-no-choices', 'invalid_provider_response'],
  ['body-cut', 'upstream_body_incomplete'],
  ['gzip-unlabelled', 'invalid_provider_response'],
  ['gzip-mislabelled', 'upstream_bad_encoding'],
  ['encoding-unknown', 'upstream_bad_encoding'],
];

describe('non-streamed 2xx bodies that are not an answer', () => {
  it.each(BODY_FAULTS)('%s → 502 %s, retried, logged, reservation given back', async (model, code) => {
    const before = await tokensNow();
    const sent = await send({ retry: { attempts: 1 }, ...target(model) }, { messages }, { 'x-gw-trace-id': `fault-${model}` });
    expect(sent.status, sent.text).toBe(502);
    expect(JSON.parse(sent.text)).toMatchObject({ error: { code, type: 'upstream_error' }, status: 'failure' });
    // Retried once like any upstream failure; both tries listed; the SDK is told not to retry again.
    expect(sent.headers.get('x-gw-retry-attempt-count')).toBe('1');
    expect(sent.headers.get('x-gw-attempts')).toBe(`config=502/${code}, config=502/${code}`);
    expect(sent.headers.get('x-should-retry')).toBe('false');
    expect(upstream.requests.filter((request) => (request.json as { model?: string }).model === model).length).toBeGreaterThanOrEqual(2);
    const log = await requestLog(`fault-${model}`);
    expect(log).toMatchObject({ status: 502, error_code: code });
    expect((log.attempts as unknown[]).length).toBe(2);
    expect(await tokensNow()).toBe(before);
  });

  it.each(BODY_FAULTS)('%s with a fallback → 200 from the next target; the attempts say why', async (model, code) => {
    const sent = await send({ strategy: { mode: 'fallback' }, targets: [target(model), target('healthy')] });
    expect(sent.status, sent.text).toBe(200);
    expect(JSON.parse(sent.text)).toMatchObject({ object: 'chat.completion', choices: [expect.objectContaining({ index: 0 })] });
    expect(sent.headers.get('x-gw-last-used-option-index')).toBe('config.targets[1]');
    expect(sent.headers.get('x-gw-attempts')).toBe(`config.targets[0]=502/${code}, config.targets[1]=200`);
    expect(sent.headers.get('x-gw-retry-attempt-count')).toBe('0');
  });

  it('a correctly gzipped answer is decoded and passed on without its content-encoding', async () => {
    const sent = await send(target('gzip-ok'));
    expect(sent.status, sent.text).toBe(200);
    expect(sent.headers.get('content-encoding')).toBeNull();
    expect(JSON.parse(sent.text)).toMatchObject({ object: 'chat.completion' });
  });

  it('a connection reset before any byte and a 503: retried and counted across the whole path', async () => {
    const sent = await send({ strategy: { mode: 'fallback' }, targets: [{ ...target('reset'), retry: { attempts: 1 } }, { ...target('status-503'), retry: { attempts: 1 } }, target('healthy')] });
    expect(sent.status).toBe(200);
    // Two retries on the answer's path (one per failed target), not just the answering target's zero.
    expect(sent.headers.get('x-gw-retry-attempt-count')).toBe('2');
    expect(sent.headers.get('x-gw-attempts')).toBe(
      'config.targets[0]=502/upstream_unreachable, config.targets[0]=502/upstream_unreachable, config.targets[1]=503/injected_503, config.targets[1]=503/injected_503, config.targets[2]=200',
    );
  });
});

describe('timeouts', () => {
  it('x-gw-request-timeout covers the first byte: a slow provider gives 408 and falls back', async () => {
    const alone = await send(target('slow-first-byte'), { messages }, { 'x-gw-request-timeout': '300' });
    expect(alone.status).toBe(408);
    expect(errorCode(alone)).toBe('request_timeout');
    const fallback = await send({ strategy: { mode: 'fallback' }, targets: [target('slow-first-byte'), target('healthy')] }, { messages }, { 'x-gw-request-timeout': '300' });
    expect(fallback.status).toBe(200);
    expect(fallback.headers.get('x-gw-attempts')).toBe('config.targets[0]=408/request_timeout, config.targets[1]=200');
  });

  it('x-gw-request-timeout covers the TCP connect: a connect that never completes gives 408, and falls back', async () => {
    const listener = await startUnansweredListener();
    try {
      expect(await connectHangs(listener.port, 300)).toBe(true);
      const hanging = { provider: 'openai', api_key: 'sk-t', custom_host: `http://127.0.0.1:${listener.port}` };
      const alone = await send(hanging, { model: 'gpt-4o-mini', messages }, { 'x-gw-request-timeout': '300' });
      expect(alone.status).toBe(408);
      expect(errorCode(alone)).toBe('request_timeout');
      const fallback = await send({ strategy: { mode: 'fallback' }, targets: [hanging, target('healthy')] }, { model: 'gpt-4o-mini', messages }, { 'x-gw-request-timeout': '300' });
      expect(fallback.status).toBe(200);
      expect(fallback.headers.get('x-gw-attempts')).toBe('config.targets[0]=408/request_timeout, config.targets[1]=200');
    } finally {
      await listener.close();
    }
  });
});

describe('streams', () => {
  it('an error event before any content falls back; one after content ends the stream with an error event', async () => {
    const before = await tokensNow();
    const fallback = await send({ strategy: { mode: 'fallback' }, targets: [target('stream-error-first'), target('healthy')] }, { messages, stream: true });
    expect(fallback.status).toBe(200);
    expect(fallback.headers.get('x-gw-attempts')).toMatch(/^config\.targets\[0\]=\d{3}\/overloaded, config\.targets\[1\]=200$/);
    const cut = await gateway.post('/v1/chat/completions', { messages, stream: true }, { 'x-gw-config': JSON.stringify(target('stream-mid-fail')), 'x-gw-trace-id': 'fault-stream-cut' });
    expect(cut.status).toBe(200);
    const events = await readSseEvents(cut);
    expect(JSON.stringify(events.at(-1))).toContain('error');
    const log = await requestLog('fault-stream-cut');
    expect(log).toMatchObject({ status: 200, outcome: 'error' });
    // The healthy stream charged its real tokens, the cut one gave its reservation back.
    expect(await tokensNow()).toBeGreaterThanOrEqual(before);
  });
});

describe('request bodies gw refuses', () => {
  it('JSON nested deeper than 64 levels → 400 json_too_deep, even 10,000 deep (no stack overflow)', async () => {
    for (const depth of [65, 10_000]) {
      const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const response = await gateway.post('/v1/chat/completions', `{"model":"m","messages":[{"role":"user","content":"x"}],"deep":${nested}}`);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('json_too_deep');
    }
  });

  it('a body that is not valid UTF-8 → 400 invalid_utf8 (never silently replaced)', async () => {
    const bytes = Buffer.concat([Buffer.from('{"model":"m","messages":[{"role":"user","content":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}]}')]);
    const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey }, body: bytes });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'invalid_utf8', type: 'invalid_request_error' }, status: 'failure' });
  });
});
