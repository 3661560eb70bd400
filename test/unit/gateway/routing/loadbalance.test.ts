import { describe, expect, it } from 'vitest';
import { pickWeighted } from '../../../../shared/gateway/routing/route.js';

/** mulberry32: a tiny seeded generator, so the distribution test is the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('weighted load balancing', () => {
  it('follows the weights (chi-square within tolerance over 20 000 draws)', () => {
    const targets = [{ name: 'a', weight: 5 }, { name: 'b', weight: 3 }, { name: 'c', weight: 2 }, { name: 'never', weight: 0 }];
    const random = seeded(42);
    const counts = new Map<string, number>();
    const draws = 20_000;
    for (let i = 0; i < draws; i++) {
      const chosen = pickWeighted(targets, random).name;
      counts.set(chosen, (counts.get(chosen) ?? 0) + 1);
    }
    expect(counts.get('never')).toBeUndefined();
    const chiSquare = [['a', 0.5], ['b', 0.3], ['c', 0.2]].reduce((sum, [name, share]) => {
      const expected = draws * (share as number);
      return sum + ((counts.get(name as string) ?? 0) - expected) ** 2 / expected;
    }, 0);
    // 2 degrees of freedom: the 99.9th percentile is 13.8.
    expect(chiSquare).toBeLessThan(13.8);
  });

  it('never picks a zero-weight target, even at the edges of the random range', () => {
    const targets = [{ weight: 0 }, { weight: 1 }, { weight: 0 }];
    expect(pickWeighted(targets, () => 0)).toBe(targets[1]);
    expect(pickWeighted(targets, () => 0.999999)).toBe(targets[1]);
  });
});
