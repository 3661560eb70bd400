import { describe, expect, it } from 'vitest';
import {
  CONTENT_LENGTH_AT_LEAST_4_500_000,
  CONTENT_LENGTH_AT_LEAST_6_000_000,
  LAMBDA_BODY_LIMIT_BYTES,
  LAMBDA_MULTIPART_LIMIT_BYTES,
} from '../../infra/cdk/constructs/web-acl.js';
import { synthGwStack } from './support/synth.js';
import { resources } from './support/template-queries.js';

/**
 * Issue #44: a body past Lambda's 6 MB invocation payload limit (4.5 MB for multipart, which API Gateway
 * base64-encodes) never reaches the gateway on AWS, so the client got a bare 5XX where the local server answers. The
 * production firewall now refuses it first with 413 in gw's error shape, naming the limit.
 */
describe('the Lambda payload limit at the firewall', () => {
  it('matches exactly the content lengths at or above each limit (the class: a limit off by one digit)', () => {
    const cases: Array<[string, number]> = [
      [CONTENT_LENGTH_AT_LEAST_6_000_000, LAMBDA_BODY_LIMIT_BYTES],
      [CONTENT_LENGTH_AT_LEAST_4_500_000, LAMBDA_MULTIPART_LIMIT_BYTES],
    ];
    for (const [pattern, limit] of cases) {
      const regex = new RegExp(pattern);
      for (const value of [0, 1, 999_999, limit - 1, 5_999_999, 4_499_999].filter((candidate) => candidate < limit)) expect(regex.test(String(value)), `${value} < ${limit}`).toBe(false);
      for (const value of [limit, limit + 1, 6_291_456, 9_999_999, 10_000_000, 123_456_789]) expect(regex.test(String(value)), `${value} ≥ ${limit}`).toBe(true);
      expect(regex.test(`00${limit}`)).toBe(true);
      expect(regex.test('')).toBe(false);
    }
  });

  it('answers 413 with the limit named, for any body and for multipart uploads', () => {
    const { template } = synthGwStack();
    const [acl] = Object.values(resources(template, 'AWS::WAFv2::WebACL'));
    const rules = acl.Properties!.Rules as Array<{ Name: string; Action: { Block: { CustomResponse: { ResponseCode: number; CustomResponseBodyKey: string } } }; Statement: unknown }>;
    const byName = new Map(rules.map((rule) => [rule.Name, rule]));
    for (const name of ['lambda-payload-limit', 'lambda-payload-limit-multipart']) {
      expect(byName.get(name)?.Action.Block.CustomResponse, name).toEqual({ ResponseCode: 413, CustomResponseBodyKey: 'payloadTooLarge' });
    }
    expect(JSON.stringify(byName.get('lambda-payload-limit-multipart')!.Statement)).toContain('multipart/form-data');
    const body = JSON.parse((acl.Properties!.CustomResponseBodies as Record<string, { Content: string }>).payloadTooLarge.Content) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'payload_too_large', param: null });
    expect(String(body.error.message)).toContain('6 MB invocation payload limit');
    expect(String(body.error.message), 'points files at the presigned upload').toContain('POST /v1/files');
  });

  it("answers a body past API Gateway's own 10 MB with the same 413 in gw's shape (the class: AWS's default error shape leaking)", () => {
    const { template } = synthGwStack({ context: { waf: false } });
    const [response] = Object.values(resources(template, 'AWS::ApiGateway::GatewayResponse')).filter((resource) => resource.Properties!.ResponseType === 'REQUEST_TOO_LARGE');
    expect(response.Properties!.StatusCode).toBe('413');
    const body = JSON.parse((response.Properties!.ResponseTemplates as Record<string, string>)['application/json']) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'payload_too_large', param: null });
    expect(String(body.error.message)).toContain('POST /v1/files');
  });
});
