import { describe, expect, it } from 'vitest';
import { isoTime } from '../../shared/iso-time.js';

describe('isoTime', () => {
  it('writes what toISOString writes, for times in the same second and across seconds, days and years', () => {
    const base = Date.UTC(2026, 11, 31, 23, 59, 58);
    for (let ms = base - 5; ms < base + 2_100; ms += 7) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    for (const ms of [0, 1, 9, 10, 99, 100, 999, 1000, Date.now(), 253_402_300_799_999]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('cuts fractional milliseconds as toISOString does, even after a reading of another second', () => {
    const ms = Date.UTC(2026, 10, 27, 12, 0, 0, 5) + 0.987;
    isoTime(ms + 5_000);
    expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    expect(isoTime(ms)).toBe('2026-11-27T12:00:00.005Z');
  });

  it('leaves times before 1970 and past year 9999 to toISOString', () => {
    for (const ms of [-1, -86_400_000.5, 253_402_300_800_000, 8.64e15]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });
});
