import { describe, expect, it } from 'vitest';
import { startSpan, withSpan, type SpanHost } from '../../../shared/observability/spans.js';

describe('startSpan', () => {
  it('appends a timed span under the request’s root, and keeps the first end', () => {
    const host: SpanHost = { rootSpanId: 'aaaaaaaaaaaaaaaa' };
    const span = startSpan(host, 'guardrails', { 'gw.count': 2, skipped: undefined });
    span.end({ 'gw.verdict': 'pass' });
    span.end({ 'gw.verdict': 'changed' }, new Error('late'));
    expect(host.spans).toEqual([
      expect.objectContaining({ name: 'guardrails', kind: 'stage', parent_span_id: 'aaaaaaaaaaaaaaaa', status: 'ok', attributes: { 'gw.count': 2, 'gw.verdict': 'pass' } }),
    ]);
    expect(host.spans![0].span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(host.spans![0].duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(host.spans![0].end_time!)).toBeGreaterThanOrEqual(Date.parse(host.spans![0].start_time));
  });

  it('marks a failed span with the error’s type and code, and withSpan rethrows', async () => {
    const host: SpanHost = {};
    const failure = Object.assign(new Error('nope'), { code: 'tool_failed', type: 'api_error' });
    await expect(withSpan(host, 'tool call', async () => Promise.reject(failure), { tool: 'search' }, { kind: 'tool' })).rejects.toBe(failure);
    expect(host.spans).toEqual([expect.objectContaining({ name: 'tool call', kind: 'tool', status: 'error', error: { type: 'api_error', code: 'tool_failed', message: 'nope' } })]);
  });
});
