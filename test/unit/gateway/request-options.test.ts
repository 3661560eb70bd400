import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../shared/http/errors.js';
import { readRequestOptions } from '../../../shared/gateway/request-options.js';

function errorOf(headers: Record<string, string>): GatewayError {
  try {
    readRequestOptions(headers);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('readRequestOptions', () => {
  it('reads every x-gw header once, cloud headers under both names', () => {
    const options = readRequestOptions({
      'x-gw-provider': 'OpenAI',
      authorization: 'Bearer sk-123',
      'x-gw-metadata': '{"_user":"alice","team":"a"}',
      'x-gw-request-timeout': '2500',
      'x-gw-cache-force-refresh': 'true',
      'x-gw-cache-namespace': 'ns',
      'x-gw-forward-headers': 'x-custom, x-other',
      'x-custom': 'one',
      'x-gw-azure-resource-name': 'real',
      'x-gw-clouda-resource-name': 'spec',
      'x-gw-clouda-deployment-id': 'dep',
      'x-gw-cloudc-region': 'eu-west-1',
      'x-cloudb-llm-request-type': 'anthropic',
    });
    expect(options.provider).toBe('openai');
    expect(options.providerToken).toBe('sk-123');
    expect(options.metadata).toEqual({ _user: 'alice', team: 'a' });
    expect(options.requestTimeoutMs).toBe(2500);
    expect(options.cacheForceRefresh).toBe(true);
    expect(options.cacheNamespace).toBe('ns');
    expect(options.forwardHeaders).toEqual({ 'x-custom': 'one' });
    expect(options.azure).toEqual({ resourceName: 'real', deploymentId: 'dep' });
    expect(options.aws).toEqual({ region: 'eu-west-1' });
    expect(options.vertex).toEqual({ requestType: 'anthropic' });
    expect(options.traceId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    [{ 'x-gw-metadata': 'not json' }, 'invalid_metadata', 'x-gw-metadata'],
    [{ 'x-gw-metadata': '["a"]' }, 'invalid_metadata', 'x-gw-metadata'],
    [{ 'x-gw-metadata': '{"n":1}' }, 'invalid_metadata', 'x-gw-metadata.n'],
    [{ 'x-gw-request-timeout': '1.5' }, 'invalid_request_timeout', 'x-gw-request-timeout'],
    [{ 'x-gw-request-timeout': 'soon' }, 'invalid_request_timeout', 'x-gw-request-timeout'],
    [{ 'x-gw-request-timeout': '0' }, 'invalid_request_timeout', 'x-gw-request-timeout'],
    [{ 'x-gw-cache-force-refresh': 'yes' }, 'invalid_header', 'x-gw-cache-force-refresh'],
    [{ 'x-gw-forward-headers': 'authorization' }, 'invalid_forward_headers', 'x-gw-forward-headers'],
    [{ 'x-gw-forward-headers': 'x-gw-api-key' }, 'invalid_forward_headers', 'x-gw-forward-headers'],
    [{ 'x-gw-forward-headers': '["connection"]' }, 'invalid_forward_headers', 'x-gw-forward-headers'],
    [{ 'x-gw-forward-headers': 'transfer-encoding' }, 'invalid_forward_headers', 'x-gw-forward-headers'],
    [{ 'x-gw-forward-headers': '[1]' }, 'invalid_forward_headers', 'x-gw-forward-headers'],
    [{ 'x-gw-forward-headers': 'bad header' }, 'invalid_forward_headers', 'x-gw-forward-headers'],
    [{ 'x-gw-trace-id': 'has space' }, 'invalid_trace_id', 'x-gw-trace-id'],
    [{ authorization: 'Basic abc' }, 'invalid_authorization', 'authorization'],
  ])('rejects %j with %s', (headers, code, param) => {
    const error = errorOf(headers);
    expect(error.status).toBe(400);
    expect(error.code).toBe(code);
    expect(error.param).toBe(param);
  });

  it('accepts forward headers as a JSON array and skips names the request does not carry', () => {
    const options = readRequestOptions({ 'x-gw-forward-headers': '["X-Trace-Parent","x-missing"]', 'x-trace-parent': '00-abc' });
    expect(options.forwardHeaders).toEqual({ 'x-trace-parent': '00-abc' });
  });
});
