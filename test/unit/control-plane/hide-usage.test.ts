import { describe, expect, it } from 'vitest';
import { hideUsageForMembers } from '../../../shared/control-plane/logs/hide-usage.js';

const log = {
  object: 'request_log',
  id: 'log-1',
  model: 'gpt-4o-mini',
  usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8, cached_tokens: 0, reasoning_tokens: 0 },
  cost: 0.0001,
  attempts: [{ target_path: 'headers', status: 200, provider: 'openai', usage: { total_tokens: 8 }, cost: 0.0001 }],
  spans: [{ span_id: 's', name: 'attempt', attributes: { 'gen_ai.provider.name': 'openai', 'gen_ai.usage.input_tokens': 3, 'gw.cost_usd': 0.1, 'http.response.status_code': 200 } }],
  response_body: { id: 'chatcmpl', choices: [{ message: { content: 'hi' } }], usage: { total_tokens: 8, prompt_tokens_details: { cached_tokens: 0 } } },
};

describe('hideUsageForMembers', () => {
  it('returns the very row to a viewer who sees usage', () => {
    expect(hideUsageForMembers(log, { seesUsage: true })).toBe(log);
  });

  it('empties usage and cost of a log, its attempts, span attributes and response body; leaves the rest', () => {
    const hidden = hideUsageForMembers(log, { seesUsage: false });
    expect(hidden).toMatchObject({ id: 'log-1', model: 'gpt-4o-mini', usage: null, cost: null });
    expect(hidden.attempts).toEqual([{ target_path: 'headers', status: 200, provider: 'openai' }]);
    expect(hidden.spans[0].attributes).toEqual({ 'gen_ai.provider.name': 'openai', 'http.response.status_code': 200 });
    expect(hidden.response_body).toEqual({ id: 'chatcmpl', choices: [{ message: { content: 'hi' } }] });
    expect(log.usage.total_tokens).toBe(8);
  });

  it('nulls every usage object in a streamed body kept as text', () => {
    const stream = 'data: {"choices":[]}\n\ndata: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8,"prompt_tokens_details":{"cached_tokens":0}}}\n\ndata: [DONE]\n\n';
    const hidden = hideUsageForMembers({ ...log, response_body: stream }, { seesUsage: false });
    expect(hidden.response_body).toBe('data: {"choices":[]}\n\ndata: {"choices":[],"usage":null}\n\ndata: [DONE]\n\n');
  });

  it('empties a trace summary’s totals and a trace’s requests and spans', () => {
    expect(hideUsageForMembers({ object: 'trace', trace_id: 't', requests: 2, cost: 1.5, total_tokens: 40 }, { seesUsage: false })).toEqual({ object: 'trace', trace_id: 't', requests: 2, cost: null, total_tokens: null });
    const trace = hideUsageForMembers({ object: 'trace', trace_id: 't', requests: [log], spans: log.spans }, { seesUsage: false });
    expect(trace.requests[0]).toMatchObject({ usage: null, cost: null });
    expect(trace.spans[0].attributes).not.toHaveProperty('gen_ai.usage.input_tokens');
  });
});
