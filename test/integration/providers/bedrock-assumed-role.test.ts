import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { VirtualKeyView } from '../../../shared/control-plane/virtual-keys/schemas.js';
import { recordedOperationCounts } from '../../../shared/store/recording/aws-operation-recorder.js';
import { verifySigV4 } from '../../fixtures/bedrock/sigv4-verifier.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { assumeRoleCallOf, stsHandler, type AssumeRoleAnswer, type AssumeRoleCall } from '../../support/mock-sts.js';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from '../../support/mock-upstream.js';
import { api, expectError } from '../control-plane/identities-support.js';

/**
 * A virtual key naming a role for Bedrock (aws.role_arn): the gateway assumes it with STS AssumeRole, signed with its
 * own identity (the default chain; here the environment stands in for the function role), and signs the Bedrock call
 * with the temporary credentials STS returns. STS and Bedrock are loopback stand-ins that check both signatures.
 */
const FUNCTION_ROLE = { accessKeyId: 'ASIAFUNCTIONROLE0002', secretAccessKey: 'functionRoleSecretAccessKey/EXAMPLE0002', sessionToken: 'IQoJfunctionRoleToken2' };
process.env.AWS_ACCESS_KEY_ID = FUNCTION_ROLE.accessKeyId;
process.env.AWS_SECRET_ACCESS_KEY = FUNCTION_ROLE.secretAccessKey;
process.env.AWS_SESSION_TOKEN = FUNCTION_ROLE.sessionToken;
process.env.AWS_REGION = 'eu-central-1';

const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const ROLE = 'arn:aws:iam::123456789012:role/gw-bedrock-team-a';
const SHORT_LIVED_ROLE = 'arn:aws:iam::123456789012:role/gw-bedrock-short-lived';
const REFUSED_ROLE = 'arn:aws:iam::123456789012:role/gw-bedrock-untrusting';
const converse = JSON.parse(readFileSync(new URL('../../fixtures/bedrock/converse-response-reasoning.json', import.meta.url), 'utf8')) as unknown;

/** Each role's temporary credentials are numbered by how many times it was assumed, so a refresh shows. */
const issued = new Map<string, number>();
const credentialsFor = (call: AssumeRoleCall, count: number) => ({
  accessKeyId: `ASIAASSUMED${count}`,
  secretAccessKey: `assumedSecret/${call.roleArn?.split('/').pop()}/${count}`,
  sessionToken: `IQoJassumedToken${count}`,
});
function answer(call: AssumeRoleCall): AssumeRoleAnswer {
  if (call.roleArn === REFUSED_ROLE) {
    return { refuse: { status: 403, code: 'AccessDenied', message: `User: arn:aws:sts::123456789012:assumed-role/gw-gateway/fn is not authorized to perform: sts:AssumeRole on resource: ${REFUSED_ROLE}` } };
  }
  const count = (issued.get(call.roleArn!) ?? 0) + 1;
  issued.set(call.roleArn!, count);
  // The short-lived role's credentials expire in a minute: inside the refresh margin, so every request assumes anew.
  const lifetimeMs = call.roleArn === SHORT_LIVED_ROLE ? 60_000 : 3_600_000;
  return { credentials: credentialsFor(call, count), expiresAt: new Date(Date.now() + lifetimeMs) };
}

let gateway: TestGateway;
let sts: MockUpstream;
let bedrock: MockUpstream;
beforeAll(async () => {
  sts = await startMockUpstream(stsHandler(answer));
  bedrock = await startMockUpstream(() => ({ json: converse }));
  gateway = await startTestGateway({ GW_BEDROCK_FUNCTION_ROLE: 'ON', GW_STS_ENDPOINT: sts.url, GW_VIRTUAL_KEY_CACHE_TTL_MS: '0' });
});
afterAll(async () => {
  await gateway?.close();
  await sts?.close();
  await bedrock?.close();
});
beforeEach(() => {
  sts.requests.length = 0;
  bedrock.requests.length = 0;
});

async function roleKey(aws: Record<string, unknown>): Promise<VirtualKeyView> {
  const reply = await api<VirtualKeyView>(gateway, 'POST', '/v1/virtual-keys', { body: { provider: 'bedrock', aws, custom_host: bedrock.url } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}
const chatWith = (key: VirtualKeyView) => gateway.post('/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'Hi' }] }, { 'x-gw-virtual-key': key.id });
const signed = (request: RecordedRequest, secret: string) =>
  verifySigV4({ method: request.method, rawPath: request.path, query: request.query, headers: request.headers, body: request.body }, secret);

describe('Bedrock with a role a virtual key names', () => {
  it('shows the role on read (not a secret) and stores no credential', async () => {
    const key = await roleKey({ role_arn: ROLE, external_id: 'team-a-external', session_name: 'gw-team-a', region: 'us-west-2' });
    expect(key.aws).toEqual({ role_arn: ROLE, external_id: 'team-a-external', session_name: 'gw-team-a', region: 'us-west-2' });
    expect(key.stored_secrets).toEqual([]);
    const read = await api<VirtualKeyView>(gateway, 'GET', `/v1/virtual-keys/${key.id}`);
    expect(read.body.aws).toEqual(key.aws);
  });

  it('assumes the role with the function\'s own credentials and signs the Bedrock call with the temporary ones, once per role', async () => {
    const key = await roleKey({ role_arn: ROLE, external_id: 'team-a-external', region: 'us-west-2' });
    const first = await chatWith(key);
    expect(first.status, await first.clone().text()).toBe(200);
    expect(((await first.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content).toBe('The capital of France is Paris.');

    expect(sts.requests).toHaveLength(1);
    expect(sts.requests[0].headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(assumeRoleCallOf(sts.requests[0])).toEqual({ action: 'AssumeRole', roleArn: ROLE, roleSessionName: 'gw-gateway', externalId: 'team-a-external', durationSeconds: '3600' });
    const stsSignature = signed(sts.requests[0], FUNCTION_ROLE.secretAccessKey);
    expect(stsSignature).toMatchObject({ valid: true, accessKeyId: FUNCTION_ROLE.accessKeyId });
    expect(stsSignature.scope).toMatch(/\/eu-central-1\/sts\/aws4_request$/);

    const assumed = credentialsFor({ roleArn: ROLE } as AssumeRoleCall, 1);
    const bedrockSignature = signed(bedrock.requests[0], assumed.secretAccessKey);
    expect(bedrockSignature).toMatchObject({ valid: true, accessKeyId: assumed.accessKeyId });
    expect(bedrockSignature.scope).toMatch(/\/us-west-2\/bedrock\/aws4_request$/);
    expect(bedrock.requests[0].headers['x-amz-security-token']).toBe(assumed.sessionToken);
    expect(signed(bedrock.requests[0], FUNCTION_ROLE.secretAccessKey).valid, 'not signed with the function role itself').toBe(false);

    // The credentials are kept: another request (even through another key naming the same role) assumes nothing.
    const again = await chatWith(await roleKey({ role_arn: ROLE, external_id: 'team-a-external' }));
    expect(again.status).toBe(200);
    expect(sts.requests).toHaveLength(1);
    expect(signed(bedrock.requests[1], assumed.secretAccessKey).valid).toBe(true);
  });

  it('assumes the role again when its credentials are about to expire', async () => {
    const key = await roleKey({ role_arn: SHORT_LIVED_ROLE });
    for (const expected of [1, 2, 3]) {
      expect((await chatWith(key)).status).toBe(200);
      expect(sts.requests).toHaveLength(expected);
      expect(signed(bedrock.requests.at(-1)!, credentialsFor({ roleArn: SHORT_LIVED_ROLE } as AssumeRoleCall, expected).secretAccessKey).valid).toBe(true);
    }
  });

  it('answers 403 aws_assume_role_denied naming the role when STS refuses, without calling Bedrock or relaying STS\'s message', async () => {
    const key = await roleKey({ role_arn: REFUSED_ROLE });
    const response = await chatWith(key);
    const body = (await response.json()) as { error: { message: string; code: string; param: string | null }; status: string };
    expectError({ status: response.status, body, headers: response.headers }, 403, 'aws_assume_role_denied', { param: 'x-gw-virtual-key' });
    expect(body.error.message).toContain(REFUSED_ROLE);
    expect(body.error.message).not.toContain('assumed-role/gw-gateway');
    expect(bedrock.requests).toHaveLength(0);
  });

  it('is recorded for the grant check as sts:AssumeRole by the gateway', () => {
    const assumeRoles = recordedOperationCounts().filter((operation) => operation.service === 'sts');
    expect(assumeRoles.map(({ fn, action }) => ({ fn, action }))).toContainEqual({ fn: 'gateway', action: 'AssumeRole' });
  });
});

describe('aws.role_arn on the virtual-key API', () => {
  const create = (aws: Record<string, unknown>, extra: Record<string, unknown> = {}) => api(gateway, 'POST', '/v1/virtual-keys', { body: { provider: 'bedrock', aws, ...extra } });

  it('refuses what is not an IAM role ARN', async () => {
    for (const roleArn of ['arn:aws:iam::123456789012:user/someone', 'arn:aws:s3:::bucket', 'gw-bedrock-team-a', 'arn:aws:iam::12345:role/x']) {
      expectError(await create({ role_arn: roleArn }), 400, 'invalid_request', { param: 'aws.role_arn' });
    }
    expect((await create({ role_arn: 'arn:aws-us-gov:iam::123456789012:role/team/gw-bedrock-x' })).status).toBe(201);
  });

  it('refuses a role with stored credentials, and external_id or session_name without a role', async () => {
    expectError(await create({ role_arn: ROLE, access_key_id: 'AKIAEXAMPLE00000001', secret_access_key: 'secret' }), 400, 'conflicting_aws_credentials', { param: 'aws.role_arn' });
    expectError(await create({ role_arn: ROLE }, { credential: 'bedrock-api-key' }), 400, 'conflicting_aws_credentials', { param: 'aws.role_arn' });
    expectError(await create({ external_id: 'team-a-external' }, { credential: 'bedrock-api-key' }), 400, 'incomplete_aws_role', { param: 'aws.role_arn' });
  });

  it('replaces stored access keys when an update names a role', async () => {
    const made = await api<VirtualKeyView>(gateway, 'POST', '/v1/virtual-keys', {
      body: { provider: 'bedrock', aws: { access_key_id: 'AKIAEXAMPLE00000002', secret_access_key: 'secret', region: 'us-east-1' } },
    });
    expect(made.body.stored_secrets).toEqual(['aws.access_key_id', 'aws.secret_access_key']);
    const updated = await api<VirtualKeyView>(gateway, 'PATCH', `/v1/virtual-keys/${made.body.id}`, { body: { aws: { role_arn: ROLE, region: 'us-east-1' } } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ aws: { role_arn: ROLE, region: 'us-east-1' }, stored_secrets: [] });
  });
});
