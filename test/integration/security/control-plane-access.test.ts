import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import type { AuditLog } from '../../../shared/control-plane/audit-logs/schemas.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { allPages, api, expectError, newKey } from '../control-plane/identities-support.js';

/**
 * Who may reach the control plane (issue #20): API_ACCESS_ENABLED=OFF shuts out workspace API keys (admin keys,
 * JWTs and the gateway stay open); a JWT without `exp` is refused; a JWT whose signature fails is never filed
 * under the organisation its unverified claims name.
 */
const JWT_SECRET = 'control-plane-access-test-secret-0123456789';
const STRANGER_SECRET = 'somebody-else-entirely-secret-0123456789ab';
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started), { API_ACCESS_ENABLED: 'OFF', GW_JWT_SECRET: JWT_SECRET });

function claims(): Record<string, unknown> {
  return { sub: 'reader', organisation_id: gateway.bootstrap.organisationId, workspace_id: gateway.bootstrap.workspaceId, scope: 'read list' };
}

async function sign(payload: Record<string, unknown>, options: { secret?: string; expires?: boolean } = {}): Promise<string> {
  const jwt = new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
  if (options.expires !== false) jwt.setExpirationTime('5m');
  return jwt.sign(new TextEncoder().encode(options.secret ?? JWT_SECRET));
}

describe('API_ACCESS_ENABLED=OFF', () => {
  it('refuses control-plane calls made with workspace API keys, whatever their scopes', async () => {
    const key = await newKey(gateway, { scopes: ['configs:read', 'api_keys:read', 'api_keys:write', 'completions:write'] });
    for (const [method, path] of [['GET', '/v1/configs'], ['GET', '/v1/api-keys'], ['POST', '/v1/api-keys']] as const) {
      expectError(await api(gateway, method, path, { key: key.key, body: method === 'POST' ? { name: 'x', scopes: ['configs:read'] } : undefined }), 403, 'api_access_disabled');
    }
    // A wrong key is still a 401: the flag does not tell strangers anything.
    expectError(await api(gateway, 'GET', '/v1/configs', { key: 'gwk_never_issued_0000000000000000000' }), 401, 'api_key_invalid');
  });

  it('keeps the organisation admin key, JWTs and the gateway working', async () => {
    expect((await api(gateway, 'GET', '/v1/configs')).status).toBe(200);
    expect((await api(gateway, 'GET', '/v1/configs', { bearer: await sign(claims()) })).status).toBe(200);
    const key = await newKey(gateway, { scopes: ['completions:write'] });
    const chat = await gateway.post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, {
      'x-gw-api-key': key.key,
      'x-gw-provider': 'openai',
      'x-gw-custom-host': upstream.url,
      authorization: 'Bearer sk-provider',
    });
    expect(chat.status).toBe(200);
  });
});

describe('JWT hardening', () => {
  it('refuses a token without exp (GW_JWT_ALLOW_NO_EXP is off by default)', async () => {
    expectError(await api(gateway, 'GET', '/v1/configs', { bearer: await sign(claims(), { expires: false }) }), 401, 'jwt_exp_required');
  });

  it('does not file a bad-signature failure under the organisation the forged token names', async () => {
    const traceId = `forged-${Date.now()}`;
    const forged = await sign(claims(), { secret: STRANGER_SECRET });
    expectError(await api(gateway, 'GET', '/v1/configs', { bearer: forged, headers: { 'x-gw-trace-id': traceId } }), 401, 'jwt_invalid');
    const own = (await allPages<AuditLog>(gateway, '/v1/audit-logs?action=authentication.failed', {}, 100)).items;
    expect(own.filter((event) => event.trace_id === traceId)).toEqual([]);
    expect(JSON.stringify(own)).not.toContain(forged);
  });
});

describe('address rules through HTTP', () => {
  const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

  it.each([
    'http://metadata.google.internal./computeMetadata/v1',
    'http://METADATA.GOOGLE.INTERNAL/',
    'http://[64:ff9b::a9fe:a9fe]/latest',
    'http://[::ffff:0:a9fe:a9fe]/',
    'http://224.0.0.251/',
    'http://255.255.255.255/',
    'http://198.18.0.1/',
  ])('refuses %s as x-gw-custom-host, in a saved config and in a virtual key, before any upstream call', async (host) => {
    const before = upstream.requests.length;
    const viaHeader = await gateway.post('/v1/chat/completions', body, { 'x-gw-provider': 'openai', 'x-gw-custom-host': host, authorization: 'Bearer sk-x' });
    expect(viaHeader.status).toBe(400);
    expect(((await viaHeader.json()) as { error: { code: string } }).error.code).toBe('custom_host_not_allowed');
    const config = await api(gateway, 'POST', '/v1/configs', { body: { name: 'bad host', config: { provider: 'openai', custom_host: host } } });
    expect(config.status).toBe(400);
    const virtualKey = await api(gateway, 'POST', '/v1/virtual-keys', { body: { provider: 'openai', credential: 'sk-x', custom_host: host } });
    expect(virtualKey.status).toBe(400);
    expect(upstream.requests.length).toBe(before);
  });
});
