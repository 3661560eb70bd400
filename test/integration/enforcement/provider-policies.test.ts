import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { CHAT, chat, createPolicy, expectedError, viaMock } from './enforcement-support.js';
import { createWorkspaceProvider, viaProvider, type WorkspaceProvider } from './provider-support.js';

// Policies can name workspace providers (`provider: @slug`) and integrations, as conditions and as group_by
// keys (issue #30: the spec validates limits "on API keys, providers, integrations and workspaces").
let gateway: TestGateway;
let upstream: MockUpstream;
let teamA: WorkspaceProvider;
let teamB: WorkspaceProvider;

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway();
  teamA = await createWorkspaceProvider(gateway, upstream.url, 'team-a');
  teamB = await createWorkspaceProvider(gateway, upstream.url, 'team-b');
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const statusesOf = async (count: number, headers: Record<string, string>) => {
  const statuses: number[] = [];
  for (let index = 0; index < count; index++) statuses.push((await chat(gateway, headers, CHAT)).status);
  return statuses;
};

describe('a policy naming a workspace provider', () => {
  it('provider: @slug limits the requests through that provider only', async () => {
    const policy = await createPolicy(gateway, 'rate-limits', {
      name: 'team-a calls',
      conditions: [{ key: 'provider', value: '@team-a' }, { key: 'metadata.case', value: 'by-slug' }],
      group_by: [{ key: 'provider' }],
      type: 'requests',
      unit: 'rpd',
      value: 2,
    });
    const metadata = { 'x-gw-metadata': JSON.stringify({ case: 'by-slug' }) };
    expect(await statusesOf(3, viaProvider(teamA.slug, metadata))).toEqual([200, 200, 429]);
    const refused = await chat(gateway, viaProvider(teamA.slug, metadata), CHAT);
    expect(refused.body).toMatchObject(expectedError('rate_limit_exceeded', 'rate_limit_error', policy.id));
    // Another provider of the same kind, and the kind named directly, are not that provider.
    expect(await statusesOf(3, viaProvider(teamB.slug, metadata))).toEqual([200, 200, 200]);
    expect(await statusesOf(3, viaMock(upstream, { case: 'by-slug' }))).toEqual([200, 200, 200]);
  });

  it('provider: <kind> still covers the workspace providers of that kind', async () => {
    await createPolicy(gateway, 'rate-limits', {
      conditions: [{ key: 'provider', value: 'openai' }, { key: 'metadata.case', value: 'by-kind' }],
      group_by: [{ key: 'metadata.case' }],
      type: 'requests',
      unit: 'rpd',
      value: 2,
    });
    const metadata = { 'x-gw-metadata': JSON.stringify({ case: 'by-kind' }) };
    expect(await statusesOf(1, viaProvider(teamA.slug, metadata))).toEqual([200]);
    expect(await statusesOf(1, viaProvider(teamB.slug, metadata))).toEqual([200]);
    expect(await statusesOf(1, viaMock(upstream, { case: 'by-kind' }))).toEqual([429]);
  });

  it('group_by provider: one counter per workspace provider', async () => {
    await createPolicy(gateway, 'rate-limits', {
      conditions: [{ key: 'metadata.case', value: 'group-provider' }],
      group_by: [{ key: 'provider' }],
      type: 'requests',
      unit: 'rpd',
      value: 1,
    });
    const metadata = { 'x-gw-metadata': JSON.stringify({ case: 'group-provider' }) };
    expect(await statusesOf(2, viaProvider(teamA.slug, metadata))).toEqual([200, 429]);
    expect(await statusesOf(2, viaProvider(teamB.slug, metadata))).toEqual([200, 429]);
  });
});

describe('a policy naming an integration', () => {
  it('integration: <slug or id> as a condition, and group_by integration', async () => {
    const byId = await createPolicy(gateway, 'rate-limits', {
      conditions: [{ key: 'integration', value: teamA.integrationId }, { key: 'metadata.case', value: 'integration' }],
      group_by: [{ key: 'integration' }],
      type: 'requests',
      unit: 'rpd',
      value: 1,
    });
    // Stored as the slug: what a request through one of its providers carries.
    expect(byId.conditions).toContainEqual({ key: 'integration', value: teamA.integrationSlug });
    const metadata = { 'x-gw-metadata': JSON.stringify({ case: 'integration' }) };
    expect(await statusesOf(2, viaProvider(teamA.slug, metadata))).toEqual([200, 429]);
    expect(await statusesOf(2, viaProvider(teamB.slug, metadata))).toEqual([200, 200]);
  });

  it('a usage limit grouped by integration charges each integration its own tokens', async () => {
    await createPolicy(gateway, 'usage-limits', {
      conditions: [{ key: 'integration', value: '*' }, { key: 'metadata.case', value: 'integration-usage' }],
      group_by: [{ key: 'integration' }],
      type: 'requests',
      unit: 'rpd',
      value: 1000,
      credit_limit: { type: 'tokens', value: 21 },
      enforcement: 'soft',
    });
    const metadata = { 'x-gw-metadata': JSON.stringify({ case: 'integration-usage' }) };
    expect(await statusesOf(1, viaProvider(teamA.slug, metadata))).toEqual([200]);
    // Charged after the response: the next request of team A sees it once it landed.
    let status = 200;
    for (let attempt = 0; attempt < 40 && status === 200; attempt++) status = (await chat(gateway, viaProvider(teamA.slug, metadata), CHAT)).status;
    expect(status).toBe(412);
    expect(await statusesOf(1, viaProvider(teamB.slug, metadata))).toEqual([200]);
  });
});

describe('validation', () => {
  const refusedPolicy = async (condition: { key: string; value: string }) => {
    const response = await fetch(`${gateway.url}/v1/policies/rate-limits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey },
      body: JSON.stringify({ conditions: [condition], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 1 }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('refuses an unknown workspace provider or integration with 400 naming the value', async () => {
    expect(await refusedPolicy({ key: 'provider', value: '@no-such-provider' })).toEqual({
      status: 400,
      body: expectedError('invalid_condition_value', 'invalid_request_error', "no provider '@no-such-provider'", 'conditions[0].value'),
    });
    expect(await refusedPolicy({ key: 'integration', value: 'no-such-integration' })).toEqual({
      status: 400,
      body: expectedError('invalid_condition_value', 'invalid_request_error', "no integration 'no-such-integration'", 'conditions[0].value'),
    });
  });
});
