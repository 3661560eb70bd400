import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IamTokenSource, isIamAccessToken } from '../../../../shared/providers/watsonx/iam-token.js';
import { startMockUpstream, type MockUpstream } from '../../../support/mock-upstream.js';

// IBM Cloud IAM as a real HTTP server: each exchange answers a new token valid for an hour from the test's clock.
let iam: MockUpstream;
let clock = 1_800_000_000_000;
let issued = 0;

beforeAll(async () => {
  iam = await startMockUpstream(() => {
    issued += 1;
    return { json: { access_token: `eyJh.eyJ${issued}.sig`, token_type: 'Bearer', expires_in: 3600, expiration: Math.floor(clock / 1000) + 3600 } };
  });
});
afterAll(async () => iam?.close());

describe('watsonx IAM token cache', () => {
  it('token expiry: reuses a token until the refresh margin before its expiration, then exchanges again', async () => {
    const source = new IamTokenSource({ url: `${iam.url}/identity/token`, now: () => clock, refreshMarginMs: 300_000 });
    const first = await source.accessToken('key-a');
    clock += 3_000_000; // 50 minutes: still more than 5 minutes left
    expect(await source.accessToken('key-a')).toBe(first);
    clock += 400_000; // inside the margin
    const second = await source.accessToken('key-a');
    expect(second).not.toBe(first);
    expect(iam.requests).toHaveLength(2);
  });

  it('concurrent requests with one key share one exchange; another key gets its own token', async () => {
    const source = new IamTokenSource({ url: `${iam.url}/identity/token`, now: () => clock });
    const before = iam.requests.length;
    const tokens = await Promise.all([source.accessToken('key-b'), source.accessToken('key-b'), source.accessToken('key-b')]);
    expect(new Set(tokens).size).toBe(1);
    expect(await source.accessToken('key-c')).not.toBe(tokens[0]);
    expect(iam.requests.length - before).toBe(2);
  });

  it('tells an IAM access token (a JWT) from an API key', () => {
    expect(isIamAccessToken('eyJraWQiOiIy.eyJpYW1faWQi.c2ln')).toBe(true);
    expect(isIamAccessToken('0123456789abcdefABCDEF_-0123456789abcdefABCD')).toBe(false);
  });
});
