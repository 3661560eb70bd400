import { describe, expect, it } from 'vitest';
import { groupOf, policyMatches } from '../../../shared/gateway/enforcement/policy-match.js';
import type { PolicyRecord } from '../../../shared/store/policy-repository.js';

function policy(conditions: Array<[string, string]>, groupBy: string[] = ['api_key']): PolicyRecord {
  return {
    id: '0190f5a8-9c1e-7b2a-8c3d-4e5f60718293',
    kind: 'rate_limit',
    conditions: conditions.map(([key, value]) => ({ key, value })),
    group_by: groupBy.map((key) => ({ key })),
    type: 'requests',
    unit: 'rpm',
    value: 10,
    status: 'active',
    workspace_id: 'ws',
    organisation_id: 'org',
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    version: 1,
  };
}

const request: Record<string, string> = { api_key: 'key-1', workspace_id: 'ws', provider: 'openai', model: 'gpt-4o', 'metadata._user': 'alice' };
const values = (overrides: Record<string, string | undefined> = {}) => (key: string) => ({ ...request, ...overrides })[key];

describe('policy conditions', () => {
  it('match when every condition holds', () => {
    expect(policyMatches(policy([['provider', 'openai'], ['model', 'gpt-4o'], ['metadata._user', 'alice']]), values())).toBe(true);
  });

  it('provider: a workspace provider (@slug) matches by its slug, and by its kind', () => {
    const throughProvider = values({ provider: '@team-openai', 'provider#kind': 'openai', integration: 'openai-prod' });
    expect(policyMatches(policy([['provider', '@team-openai']]), throughProvider)).toBe(true);
    expect(policyMatches(policy([['provider', 'openai']]), throughProvider)).toBe(true);
    expect(policyMatches(policy([['provider', '@other']]), throughProvider)).toBe(false);
    expect(policyMatches(policy([['provider', '@team-openai']]), values())).toBe(false);
    expect(policyMatches(policy([['integration', 'openai-prod']]), throughProvider)).toBe(true);
    expect(policyMatches(policy([['integration', 'openai-prod']]), values())).toBe(false);
  });

  it('do not match when one condition fails', () => {
    expect(policyMatches(policy([['provider', 'openai'], ['model', 'gpt-4o-mini']]), values())).toBe(false);
    expect(policyMatches(policy([['metadata._user', 'bob']]), values())).toBe(false);
  });

  it('compare values exactly (case matters)', () => {
    expect(policyMatches(policy([['model', 'GPT-4o']]), values())).toBe(false);
  });

  it('* matches any value, and a request without the key', () => {
    expect(policyMatches(policy([['metadata._user', '*']]), values())).toBe(true);
    expect(policyMatches(policy([['metadata._user', '*']]), values({ 'metadata._user': undefined }))).toBe(true);
    expect(policyMatches(policy([['virtual_key', '*'], ['api_key', 'key-1']]), values())).toBe(true);
  });

  it('a concrete value never matches a request without the key', () => {
    expect(policyMatches(policy([['virtual_key', 'vk-1']]), values())).toBe(false);
  });
});

describe('groups', () => {
  it('are the values of the group_by keys: equal values share a group, different ones do not', () => {
    const byUser = policy([['workspace_id', '*']], ['metadata._user']);
    expect(groupOf(byUser, values()).hash).toBe(groupOf(byUser, values({ api_key: 'another key' })).hash);
    expect(groupOf(byUser, values()).hash).not.toBe(groupOf(byUser, values({ 'metadata._user': 'bob' })).hash);
  });

  it('hash to a fixed length, whatever the values hold, and label them for logs', () => {
    const byTwo = policy([['workspace_id', '*']], ['api_key', 'metadata._user']);
    const long = groupOf(byTwo, values({ 'metadata._user': 'x#'.repeat(3000) }));
    expect(long.hash).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(groupOf(byTwo, values({ 'metadata._user': undefined })).label).toBe('api_key=key-1, metadata._user=-');
  });

  it('tell an absent value from an empty-looking one', () => {
    const byUser = policy([['workspace_id', '*']], ['metadata._user']);
    expect(groupOf(byUser, values({ 'metadata._user': undefined })).hash).not.toBe(groupOf(byUser, values({ 'metadata._user': 'null' })).hash);
  });
});
