import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalTextToUnits, subtractUsd, sumUsd, unitsToUsd, usdToUnits } from '../../../shared/observability/pricing/usd.js';

describe('USD arithmetic in integer units of 1e-10 USD (cost sums without drift)', () => {
  it('adds and subtracts decimal amounts exactly where doubles drift', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumUsd([0.1, 0.2])).toBe(0.3);
    expect(subtractUsd(0.3, 0.1)).toBe(0.2);
    expect(sumUsd(Array.from({ length: 1_000_000 }, () => 0.0000001))).toBe(0.1);
  });

  it('reads exponent forms and rounds past 10 digits', () => {
    expect(usdToUnits(1e-7)).toBe(1000n);
    expect(usdToUnits(1.5e21)).toBe(15_000_000_000_000_000_000_000_000_000_000n);
    expect(usdToUnits(0.00000000005)).toBe(1n);
    expect(usdToUnits(-2.5)).toBe(-25_000_000_000n);
    expect(unitsToUsd(-25_000_000_000n)).toBe(-2.5);
  });

  it('reads the DECIMAL text of an engine exactly, beyond what a double holds', () => {
    expect(decimalTextToUnits('12345678901234567.1234567890')).toBe(123_456_789_012_345_671_234_567_890n);
    expect(decimalTextToUnits('-0.5000000000')).toBe(-5_000_000_000n);
    expect(decimalTextToUnits('3')).toBe(30_000_000_000n);
    expect(() => decimalTextToUnits('1e5')).toThrow(RangeError);
  });

  it('a sum of costs rounded to 1e-10 equals the integer sum of their units, in any order', () => {
    const cost = fc.integer({ min: 0, max: 10 ** 12 }).map((units) => units / 1e10);
    fc.assert(
      fc.property(fc.array(cost, { maxLength: 200 }), (costs) => {
        const exact = costs.reduce((total, value) => total + usdToUnits(value), 0n);
        expect(usdToUnits(sumUsd(costs))).toBe(exact);
        expect(sumUsd([...costs].reverse())).toBe(sumUsd(costs));
      }),
    );
  });

  it('whole amounts (request and token counts) take the short path and agree with the decimal one', () => {
    const whole = fc.integer({ min: -(2 ** 40), max: 2 ** 40 });
    fc.assert(
      fc.property(whole, whole, (a, b) => {
        expect(usdToUnits(a)).toBe(decimalTextToUnits(String(a)));
        expect(unitsToUsd(usdToUnits(a))).toBe(a === 0 ? 0 : a);
        expect(subtractUsd(a, b)).toBe(unitsToUsd(decimalTextToUnits(String(a)) - decimalTextToUnits(String(b))));
        expect(sumUsd([a, b, 0.25])).toBe(unitsToUsd(decimalTextToUnits(String(a)) + decimalTextToUnits(String(b)) + 2_500_000_000n));
      }),
    );
    expect(Object.is(subtractUsd(-0, 0), 0)).toBe(true);
    expect(unitsToUsd(BigInt(Number.MAX_SAFE_INTEGER) * 10n ** 10n + 10n ** 10n)).toBe(2 ** 53);
  });
});
