import { exportPKCS8, exportSPKI, generateKeyPair, jwtVerify, decodeProtectedHeader, importSPKI } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOUD_PLATFORM_SCOPE, ServiceAccountTokenSource } from '../../../../shared/providers/vertex-ai/service-account-token.js';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from '../../../support/mock-upstream.js';
import { asyncGatewayErrorOf } from '../google/helpers.js';

let tokenServer: MockUpstream;
let privateKeyPem: string;
let publicKeyPem: string;
let issued = 0;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  privateKeyPem = await exportPKCS8(privateKey);
  publicKeyPem = await exportSPKI(publicKey);
  tokenServer = await startMockUpstream(issueToken);
});
afterAll(async () => {
  await tokenServer?.close();
});

/** A Google-like token endpoint: answers each valid-looking JWT-bearer grant with a new one-hour token. */
function issueToken(request: RecordedRequest) {
  const form = new URLSearchParams(request.body);
  if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' || !form.get('assertion')) {
    return { status: 400, json: { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' } };
  }
  issued++;
  return { json: { access_token: `ya29.token-${issued}`, expires_in: 3599, token_type: 'Bearer' } };
}

function serviceAccount(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'service_account',
    project_id: 'my-project',
    private_key_id: 'key-id-1',
    private_key: privateKeyPem,
    client_email: 'gw-test@my-project.iam.gserviceaccount.com',
    client_id: '1234567890',
    token_uri: `${tokenServer.url}/token`,
    ...overrides,
  });
}

describe('service account → access token', () => {
  it('posts an RS256 assertion that verifies with the public key and carries the right claims', async () => {
    const now = 1_750_000_000_000;
    const source = new ServiceAccountTokenSource({ now: () => now });
    const token = await source.accessToken(serviceAccount(), tokenServer.url);
    expect(token).toMatch(/^ya29\.token-\d+$/);
    const seen = tokenServer.requests.at(-1)!;
    expect(seen.path).toBe('/token');
    expect(seen.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const assertion = new URLSearchParams(seen.body).get('assertion')!;
    expect(decodeProtectedHeader(assertion)).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'key-id-1' });
    const { payload } = await jwtVerify(assertion, await importSPKI(publicKeyPem, 'RS256'), {
      issuer: 'gw-test@my-project.iam.gserviceaccount.com',
      audience: `${tokenServer.url}/token`,
      currentDate: new Date(now),
    });
    expect(payload.scope).toBe(CLOUD_PLATFORM_SCOPE);
    expect(payload.iat).toBe(now / 1000);
    expect(payload.exp).toBe(now / 1000 + 3600);
  });

  it('reuses the cached token, shares one exchange between concurrent calls, and refreshes near expiry', async () => {
    let now = 1_750_000_000_000;
    const source = new ServiceAccountTokenSource({ now: () => now });
    const json = serviceAccount();
    const before = tokenServer.requests.length;
    const [first, concurrent] = await Promise.all([source.accessToken(json, tokenServer.url), source.accessToken(json, tokenServer.url)]);
    expect(concurrent).toBe(first);
    expect(tokenServer.requests.length - before).toBe(1);

    now += 50 * 60_000; // 50 minutes on: still more than 5 minutes left.
    expect(await source.accessToken(json, tokenServer.url)).toBe(first);
    expect(tokenServer.requests.length - before).toBe(1);

    now += 6 * 60_000; // 56 minutes on: under 5 minutes left, so a new token is fetched.
    const refreshed = await source.accessToken(json, tokenServer.url);
    expect(refreshed).not.toBe(first);
    expect(tokenServer.requests.length - before).toBe(2);
  });

  it('keeps separate tokens per service account', async () => {
    const source = new ServiceAccountTokenSource();
    const a = await source.accessToken(serviceAccount(), tokenServer.url);
    const b = await source.accessToken(serviceAccount({ client_email: 'other@my-project.iam.gserviceaccount.com', private_key_id: 'key-id-2' }), tokenServer.url);
    expect(a).not.toBe(b);
  });
});

describe('service account failures', () => {
  it('turns a refused grant into a 401 that names the reason and never the key', async () => {
    tokenServer.setHandler(() => ({ status: 400, json: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } }));
    try {
      const error = await asyncGatewayErrorOf(() => new ServiceAccountTokenSource().accessToken(serviceAccount(), tokenServer.url));
      expect(error.status).toBe(401);
      expect(error.code).toBe('vertex_token_exchange_failed');
      expect(error.message).toContain('invalid_grant: Invalid JWT Signature.');
      expect(error.message).not.toContain('PRIVATE KEY');
    } finally {
      tokenServer.setHandler(issueToken);
    }
  });

  it('turns a failing token endpoint into a 502 and does not cache the failure', async () => {
    tokenServer.setHandler(() => ({ status: 503, json: { error: 'backend_error' } }));
    const source = new ServiceAccountTokenSource();
    try {
      const error = await asyncGatewayErrorOf(() => source.accessToken(serviceAccount(), tokenServer.url));
      expect(error.status).toBe(502);
      expect(error.code).toBe('vertex_token_exchange_failed');
    } finally {
      tokenServer.setHandler(issueToken);
    }
    expect(await source.accessToken(serviceAccount(), tokenServer.url)).toMatch(/^ya29\./);
  });

  it('answers 502 when the token endpoint cannot be reached', async () => {
    const closed = await startMockUpstream(issueToken);
    await closed.close();
    const error = await asyncGatewayErrorOf(() => new ServiceAccountTokenSource().accessToken(serviceAccount({ token_uri: `${closed.url}/token` }), closed.url));
    expect(error.status).toBe(502);
    expect(error.code).toBe('vertex_token_exchange_failed');
  });

  it.each([
    ['not JSON', '{"type": "service_account",', 'not valid JSON'],
    ['no client_email', serviceAccountLater({ client_email: undefined }), 'client_email is missing'],
    ['a broken private key', serviceAccountLater({ private_key: '-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n' }), 'private_key is not'],
    ['another credential type', serviceAccountLater({ type: 'authorized_user' }), 'type must be "service_account"'],
    ['a token_uri on another host', serviceAccountLater({ token_uri: 'http://169.254.169.254/token' }), 'token_uri must be an https URL'],
  ])('refuses %s with a 401 naming the problem', async (_name, json, message) => {
    const error = await asyncGatewayErrorOf(() => new ServiceAccountTokenSource().accessToken(typeof json === 'function' ? json() : json, tokenServer.url));
    expect(error.status).toBe(401);
    expect(error.code).toBe('invalid_vertex_credentials');
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('BEGIN PRIVATE KEY');
  });

  it('only posts to Google hosts unless the token URI is on the target custom host', async () => {
    const error = await asyncGatewayErrorOf(() => new ServiceAccountTokenSource().accessToken(serviceAccount()));
    expect(error.code).toBe('invalid_vertex_credentials');
  });
});

/** The key pair exists only once beforeAll ran, so table rows build their JSON lazily. */
function serviceAccountLater(overrides: Record<string, unknown>): () => string {
  return () => serviceAccount(overrides);
}
