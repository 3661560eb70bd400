import { describe, expect, it } from 'vitest';
import { seededRandom as seeded } from '../../../../shared/gateway/cache/vector-index/seeded-random.js';
import { pickWeighted } from '../../../../shared/gateway/routing/route.js';

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
