import { describe, expect, it } from 'vitest';
import { matchesQuery, queryProblem } from '../../../../shared/gateway/routing/conditions.js';

const input = { metadata: { _user: 'alice', tier: 'gold', age: '42' }, params: { model: 'gpt-4o', temperature: 0.2, max_tokens: 500 } };

describe('conditional routing queries', () => {
  it.each([
    [{ 'metadata._user': 'alice' }, true],
    [{ 'metadata._user': { $eq: 'bob' } }, false],
    [{ 'metadata._user': { $ne: 'bob' } }, true],
    [{ 'metadata.tier': { $in: ['gold', 'platinum'] } }, true],
    [{ 'metadata.tier': { $nin: ['gold'] } }, false],
    [{ 'metadata.age': { $gt: 40 } }, true],
    [{ 'metadata.age': { $gte: 42, $lt: 43 } }, true],
    [{ 'params.max_tokens': { $lte: 499 } }, false],
    [{ 'params.model': { $regex: '^gpt-4' } }, true],
    [{ $and: [{ 'metadata._user': 'alice' }, { 'params.temperature': { $lt: 0.5 } }] }, true],
    [{ $or: [{ 'metadata._user': 'bob' }, { 'metadata.tier': 'gold' }] }, true],
    [{ $or: [{ 'metadata._user': 'bob' }, { 'metadata.missing': { $eq: 'x' } }] }, false],
    [{ 'metadata.missing': { $gt: 1 } }, false],
  ])('%j → %s', (query, expected) => {
    expect(queryProblem(query)).toBeUndefined();
    expect(matchesQuery(query, input)).toBe(expected);
  });

  it.each([
    [{ $xor: [] }, /unknown operator \$xor/],
    [{ $and: [] }, /non-empty array/],
    [{ 'metadata.a': { $in: 'x' } }, /\$in takes an array/],
    [{ 'metadata.a': { $regex: 5 } }, /\$regex takes a string/],
    [{ model: 'x' }, /metadata.<key> or params.<key>/],
  ])('refuses %j', (query, message) => {
    expect(queryProblem(query)).toMatch(message);
  });
});
