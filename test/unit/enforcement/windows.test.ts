import { describe, expect, it } from 'vitest';
import { nextBudgetReset } from '../../../shared/control-plane/workspaces/budget.js';
import { rateWindow, resetPeriod, secondsUntil } from '../../../shared/gateway/enforcement/windows.js';

const at = (iso: string) => Date.parse(iso);

describe('rate windows', () => {
  it.each([
    ['rpm', '2026-03-04T10:15:42.123Z', '2026-03-04T10:15:00.000Z', '2026-03-04T10:16:00.000Z'],
    ['rph', '2026-03-04T10:15:42.123Z', '2026-03-04T10:00:00.000Z', '2026-03-04T11:00:00.000Z'],
    ['rpd', '2026-03-04T10:15:42.123Z', '2026-03-04T00:00:00.000Z', '2026-03-05T00:00:00.000Z'],
    ['rpd', '2026-03-04T23:59:59.999Z', '2026-03-04T00:00:00.000Z', '2026-03-05T00:00:00.000Z'],
  ] as const)('%s at %s is the fixed UTC window [%s, %s)', (unit, now, start, end) => {
    const window = rateWindow(unit, at(now));
    expect(window.start).toBe(at(start));
    expect(window.end).toBe(at(end));
  });

  it('starts a new window (a new counter id) exactly at the boundary', () => {
    const before = rateWindow('rpm', at('2026-03-04T10:15:59.999Z'));
    const after = rateWindow('rpm', at('2026-03-04T10:16:00.000Z'));
    expect(before.id).not.toBe(after.id);
    expect(after.start).toBe(before.end);
    expect(rateWindow('rpm', at('2026-03-04T10:15:01Z')).id).toBe(before.id);
  });

  it('gives the seconds to the window end, rounded up and at least 1', () => {
    expect(secondsUntil(at('2026-03-04T10:16:00Z'), at('2026-03-04T10:15:42.100Z'))).toBe(18);
    expect(secondsUntil(at('2026-03-04T10:16:00Z'), at('2026-03-04T10:15:59.999Z'))).toBe(1);
  });
});

describe('usage-limit periods', () => {
  it('never ends without a periodic reset', () => {
    expect(resetPeriod('none', Date.now())).toEqual({ id: 'all', start: 0, end: Number.POSITIVE_INFINITY });
  });

  it.each([
    ['weekly', '2026-03-04T10:00:00Z', '2026-03-02T00:00:00.000Z', '2026-03-09T00:00:00.000Z'],
    ['weekly', '2026-03-02T00:00:00Z', '2026-03-02T00:00:00.000Z', '2026-03-09T00:00:00.000Z'],
    ['weekly', '2026-03-08T23:59:59Z', '2026-03-02T00:00:00.000Z', '2026-03-09T00:00:00.000Z'],
    ['monthly', '2026-02-28T23:00:00Z', '2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'],
    ['monthly', '2026-12-31T12:00:00Z', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
  ] as const)('%s at %s runs from %s to %s (Monday / 1st, 00:00 UTC)', (reset, now, start, end) => {
    const period = resetPeriod(reset, at(now));
    expect(new Date(period.start).toISOString()).toBe(start);
    expect(new Date(period.end).toISOString()).toBe(end);
  });

  it('ends where the workspace budget’s next reset is (the control plane’s rule), on every day of a year', () => {
    for (let day = 0; day < 366; day++) {
      const now = new Date(at('2026-01-01T07:30:00Z') + day * 86_400_000);
      for (const reset of ['weekly', 'monthly'] as const) {
        expect(new Date(resetPeriod(reset, now.getTime()).end).toISOString()).toBe(nextBudgetReset(reset, now));
      }
    }
  });
});
