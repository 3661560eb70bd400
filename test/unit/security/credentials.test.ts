import { describe, expect, it } from 'vitest';
import { assertPrintableConfigCredentials, credentialFieldsOf } from '../../../shared/gateway/config/credential-fields.js';
import { readRequestOptions } from '../../../shared/gateway/request-options.js';
import { sealConfig } from '../../../shared/control-plane/configs/sealing.js';
import { unsealConfig } from '../../../shared/store/config-secrets.js';
import { GatewayError } from '../../../shared/http/errors.js';

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a refusal');
}

describe('credentials sent with control characters are a 400, never an upstream failure', () => {
  it.each([
    ['authorization', 'Bearer sk-abc\u0001def'],
    ['authorization', 'Bearer sk-abc\u0000'],
    ['x-gw-aws-secret-access-key', 'abc\rdef'],
    ['x-gw-aws-session-token', 'tok\nen'],
    ['x-gw-aws-access-key-id', 'AKIA\u007fX'],
    ['x-gw-cloudc-secret-access-key', 'abc\u001bdef'],
  ])('%s carrying %j', (header, value) => {
    const error = refusal(() => readRequestOptions({ [header]: value }));
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_credential');
  });

  it('accepts ordinary credentials', () => {
    expect(readRequestOptions({ authorization: 'Bearer sk-proj_ABC-123.xyz', 'x-gw-aws-secret-access-key': 'a/b+c=' }).providerToken).toBe('sk-proj_ABC-123.xyz');
  });

  it('names the config path of a bad credential, at any depth', () => {
    const config = { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai' }, { cache: { mode: 'simple', embeddings: { api_key: 'x\r\ny' } } }] };
    expect(refusal(() => assertPrintableConfigCredentials(config)).param).toBe('config.targets[1].cache.embeddings.api_key');
    // A service-account file may hold line breaks: it never goes into a header.
    expect(() => assertPrintableConfigCredentials({ provider: 'vertex-ai', vertex_service_account_json: '{\n "type": "service_account"\n}' })).not.toThrow();
  });
});

describe('sealing a config', () => {
  const config = {
    provider: 'openai',
    api_key: 'sk-root-0123456789abcdef',
    override_params: { api_key: 'a body parameter, not a credential' },
    targets: [{ provider: 'bedrock', aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: 'secret-0123456789abcdef', aws_session_token: 'short' }],
  };

  it('finds every credential field but leaves override_params alone', () => {
    expect(credentialFieldsOf(config).map((field) => field.path.join('.'))).toEqual(['api_key', 'targets.0.aws_access_key_id', 'targets.0.aws_secret_access_key', 'targets.0.aws_session_token']);
  });

  it('masks every credential and unseals to the original', () => {
    const sealed = sealConfig(config);
    const text = JSON.stringify(sealed.config);
    for (const value of sealed.values) expect(text).not.toContain(value);
    expect(sealed.config).toMatchObject({ api_key: '********cdef', override_params: config.override_params, targets: [{ aws_session_token: '********' }] });
    expect(unsealConfig(sealed.config, { name: 'n', fields: sealed.fields }, sealed.values)).toEqual(config);
  });

  it('keeps the previous credential for a field sent back masked, and only at the same path', () => {
    const first = sealConfig(config);
    const ref = { name: 'n', fields: first.fields };
    const again = sealConfig({ ...(first.config as object), api_key: '********cdef' }, { ref, values: first.values });
    expect(again.values[0]).toBe(config.api_key);
    const moved = sealConfig({ provider: 'openai', targets: [{ api_key: '********cdef' }] }, { ref, values: first.values });
    expect(moved.values).toEqual(['********cdef']);
  });
});
