import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { verifySigV4 } from '../../fixtures/bedrock/sigv4-verifier.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream } from '../../support/mock-upstream.js';

/**
 * Bedrock with the gateway's own identity (GW_BEDROCK_FUNCTION_ROLE, on in the stack): a call that carries no AWS
 * credentials is signed with the process's default credential chain, which on Lambda is the function role's
 * credentials in the environment the runtime sets. Here the environment holds a stand-in for them, and the loopback
 * Bedrock mock checks the SigV4 signature they make.
 */
const ROLE = { accessKeyId: 'ASIAFUNCTIONROLE0001', secretAccessKey: 'functionRoleSecretAccessKey/EXAMPLE0001', sessionToken: 'IQoJfunctionRoleSessionToken' };
process.env.AWS_ACCESS_KEY_ID = ROLE.accessKeyId;
process.env.AWS_SECRET_ACCESS_KEY = ROLE.secretAccessKey;
process.env.AWS_SESSION_TOKEN = ROLE.sessionToken;
process.env.AWS_REGION = 'eu-central-1';

const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const converse = JSON.parse(readFileSync(new URL('../../fixtures/bedrock/converse-response-reasoning.json', import.meta.url), 'utf8')) as unknown;
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(() => ({ json: converse }), (started) => ({ gateway, upstream } = started), { GW_BEDROCK_FUNCTION_ROLE: 'ON' });
beforeEach(() => {
  upstream.requests.length = 0;
});

const chat = { model: MODEL, messages: [{ role: 'user', content: 'Hi' }] };
const signatureOf = (secret: string) => {
  const seen = upstream.requests[0];
  return verifySigV4({ method: seen.method, rawPath: seen.path, query: seen.query, headers: seen.headers, body: seen.body }, secret);
};

describe('Bedrock signed with the function role', () => {
  it('signs a call without credentials with the environment\'s credentials, in the function\'s region', async () => {
    const response = await gateway.post('/v1/chat/completions', chat, { 'x-gw-provider': 'bedrock', 'x-gw-custom-host': upstream.url });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content).toBe('The capital of France is Paris.');
    const signature = signatureOf(ROLE.secretAccessKey);
    expect(signature).toMatchObject({ valid: true, accessKeyId: ROLE.accessKeyId });
    expect(signature.scope).toMatch(/^\d{8}\/eu-central-1\/bedrock\/aws4_request$/);
    expect(upstream.requests[0].headers['x-amz-security-token']).toBe(ROLE.sessionToken);
  });

  it('signs in the region the request names', async () => {
    const response = await gateway.post('/v1/chat/completions', chat, { 'x-gw-provider': 'bedrock', 'x-gw-custom-host': upstream.url, 'x-gw-aws-region': 'us-west-2' });
    expect(response.status).toBe(200);
    expect(signatureOf(ROLE.secretAccessKey).scope).toMatch(/\/us-west-2\/bedrock\/aws4_request$/);
  });

  it('uses the credentials a request carries over the function role', async () => {
    const secret = 'requestSecretAccessKey/EXAMPLE';
    const response = await gateway.post('/v1/chat/completions', chat, {
      'x-gw-provider': 'bedrock',
      'x-gw-custom-host': upstream.url,
      'x-gw-aws-access-key-id': 'AKIDFROMREQUEST',
      'x-gw-aws-secret-access-key': secret,
      'x-gw-aws-region': 'us-east-1',
    });
    expect(response.status).toBe(200);
    expect(signatureOf(secret)).toMatchObject({ valid: true, accessKeyId: 'AKIDFROMREQUEST' });
    expect(upstream.requests[0].headers['x-amz-security-token']).toBeUndefined();
  });
});
