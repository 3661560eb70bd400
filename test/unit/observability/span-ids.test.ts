import { describe, expect, it } from 'vitest';
import { newSpanId } from '../../../shared/observability/spans.js';

describe('span ids', () => {
  it('are 16 lowercase hex digits, unique across many refills of the entropy block', () => {
    const ids = Array.from({ length: 5_000 }, () => newSpanId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain('0000000000000000');
  });
});
