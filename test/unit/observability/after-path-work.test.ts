import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { FinishedRequest } from '../../../shared/observability/request-record.js';

/**
 * The after-path does the work its outputs need and no more (issue #34): no record, body walk or settings read
 * when nothing reads the record, and each stored body serialised once.
 */
let record: typeof import('../../../shared/observability/request-record.js');
let bodies: typeof import('../../../shared/observability/log-bodies.js');
let serialised: typeof import('../../../shared/observability/serialised-body.js');
let redaction: typeof import('../../../shared/observability/redact.js');

beforeAll(async () => {
  // Read on first use of the settings, which this file's imports do not make.
  process.env.GW_REQUEST_LOGS = 'OFF';
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  [record, bodies, serialised, redaction] = await Promise.all([
    import('../../../shared/observability/request-record.js'),
    import('../../../shared/observability/log-bodies.js'),
    import('../../../shared/observability/serialised-body.js'),
    import('../../../shared/observability/redact.js'),
  ]);
});

function finished(requestBody: unknown, responseBody?: string): FinishedRequest {
  return {
    id: 'log-1',
    request_id: 'log-1',
    trace_id: 'trace-1',
    span_id: '0123456789abcdef',
    created_at: new Date().toISOString(),
    organisation_id: 'org-1',
    workspace_id: 'ws-never-stored',
    api_key_id: 'key-1',
    virtual_key_id: null,
    endpoint: 'chat',
    provider: 'openai',
    model: 'gpt-4o-mini',
    status: 200,
    latency_ms: 1.5,
    ttft_ms: null,
    usage: null,
    cost: null,
    cache_status: null,
    retry_count: 0,
    last_used_option: null,
    metadata: {},
    error: null,
    stream: false,
    outcome: 'success',
    attempts: [],
    spans: [],
    requestBody,
    responseBody,
  };
}

describe('the after-path of a request nobody logs', () => {
  it('builds no record and never reads the bodies when request logs and OTLP export are off', async () => {
    const reads: string[] = [];
    const body = new Proxy({ model: 'gpt-4o-mini', messages: [] }, {
      get: (target, key, receiver) => (reads.push(String(key)), Reflect.get(target, key, receiver)),
      ownKeys: (target) => (reads.push('ownKeys'), Reflect.ownKeys(target)),
    });
    await expect(record.recordFinishedRequest(finished(body, '{"id":"chatcmpl-1"}'))).resolves.toBeUndefined();
    expect(reads).toEqual([]);
  });
});

describe('stored bodies', () => {
  it('are redacted and serialised once: the log row text is the JSON of the redacted body', async () => {
    const known = new redaction.KnownCredentials();
    known.add('sk-provider-key-0123456789abcdef');
    const request = { model: 'gpt-4o-mini', api_key: 'plain-secret', messages: [{ role: 'user', content: 'key sk-provider-key-0123456789abcdef and Bearer abcdefgh12345678' }] };
    const stored = await bodies.storeBodies('ws-1', 'log-1', request, '{"id":"chatcmpl-1","echo":"sk-provider-key-0123456789abcdef"}', false, known);
    expect(stored.request_body).toEqual({ model: 'gpt-4o-mini', api_key: redaction.REDACTED, messages: [{ role: 'user', content: `key ${redaction.REDACTED} and ${redaction.REDACTED}` }] });
    expect(stored.response_body).toEqual({ id: 'chatcmpl-1', echo: redaction.REDACTED });
    expect(serialised.serialisedBody(stored.request_body)).toBe(JSON.stringify(stored.request_body));
    expect(serialised.serialisedBody(stored.response_body)).toBe(JSON.stringify(stored.response_body));
    expect(serialised.serialisedBody('text body')).toBe('"text body"');
    expect(serialised.serialisedBody(null)).toBeNull();
    // The input is never changed.
    expect(request.api_key).toBe('plain-secret');
  });

  it('of a provider answer are redacted from the value the attempt parsed, not parsed again; other bytes are parsed', async () => {
    const known = new redaction.KnownCredentials();
    known.add('sk-provider-key-0123456789abcdef');
    const answer = Buffer.from('{"id":"chatcmpl-1","echo":"sk-provider-key-0123456789abcdef"}');
    const parsed = JSON.parse(answer.toString('utf8')) as Record<string, unknown>;
    serialised.rememberParsedAnswer(answer, parsed);
    const parse = vi.spyOn(JSON, 'parse');
    const stored = await bodies.storeBodies('ws-1', 'log-2', undefined, answer, false, known);
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
    expect(stored.response_body).toEqual({ id: 'chatcmpl-1', echo: redaction.REDACTED });
    // The attempt's value is never changed by the redaction.
    expect(parsed.echo).toBe('sk-provider-key-0123456789abcdef');
    // Bytes the attempt did not parse (a dialect's answer, made afresh) are parsed here.
    const other = await bodies.storeBodies('ws-1', 'log-3', undefined, Buffer.from('{"id":"msg-1","echo":"sk-provider-key-0123456789abcdef"}'), false, known);
    expect(other.response_body).toEqual({ id: 'msg-1', echo: redaction.REDACTED });
  });

  it('masks credential-shaped text whatever the case of its marker, and secret-named keys met again and again', () => {
    expect(redaction.redactText('BEARER abcdefgh12345678 and bearer ijklmnop87654321')).toBe(`${redaction.REDACTED} and ${redaction.REDACTED}`);
    for (let round = 0; round < 3; round++) {
      expect(redaction.redact({ password: 'p', Password: 'q', prompt_tokens: 3, content: 'plain' })).toEqual({ password: redaction.REDACTED, Password: redaction.REDACTED, prompt_tokens: 3, content: 'plain' });
    }
    // Past the bound of remembered key names, verdicts are still right.
    const many = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`field_${i}`, 'v']));
    expect(Object.values(redaction.redact({ ...many, api_key: 'k' })).filter((value) => value === redaction.REDACTED)).toHaveLength(1);
  });
});

describe('log row times', () => {
  it('are the same text whether gw made the time (cut) or it came in another ISO form (parsed)', async () => {
    const { sqlTimestamp, dayOf } = await import('../../../shared/observability/engine/columns.js');
    expect(sqlTimestamp('2026-11-27T23:59:15.123Z')).toBe('2026-11-27 23:59:15.123');
    expect(dayOf('2026-11-27T23:59:15.123Z')).toBe('2026-11-27');
    expect(sqlTimestamp('2026-11-27T23:59:15Z')).toBe('2026-11-27 23:59:15.000');
    expect(sqlTimestamp('2026-11-28T00:59:15.123+01:00')).toBe('2026-11-27 23:59:15.123');
    expect(dayOf('2026-11-28T00:59:15.123+01:00')).toBe('2026-11-27');
  });
});
