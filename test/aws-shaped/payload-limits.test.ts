import { describe, expect, it } from 'vitest';
import { LAMBDA_BODY_LIMIT_BYTES, LAMBDA_MULTIPART_LIMIT_BYTES } from '../../infra/cdk/constructs/web-acl.js';
import type { MockUpstream } from '../support/mock-upstream.js';
import type { Template } from '../support/iam-policy.js';
import { synthGwStack } from '../infra/support/synth.js';
import type { ApiResponse, DeployedStack } from './support/deployed-stack.js';
import { useDeployedStack } from './support/stack-lifecycle.js';
import { API_GATEWAY_PAYLOAD_LIMIT_BYTES, LAMBDA_REQUEST_PAYLOAD_LIMIT_BYTES, templateFrontDoor } from './support/front-door.js';

/**
 * Issue #44: Lambda's synchronous invocation payload limit (6 MB for the whole event, a body counted as it sits in
 * the event: JSON-escaped, or base64-encoded for the stack's binary media type multipart/form-data) is below the
 * 10 MB gw documents, so a 4.5 MB upload worked locally and failed on AWS with a bare 5XX. The harness now applies
 * those limits the way AWS does (support/front-door.ts), and a body past them gets 413 in gw's error shape, naming
 * the limit and the presigned upload, from the stack's WAF before any function runs.
 */
const ADMIN_KEY = 'gwk_payloadlimit_admin_key_0123456789abcdef';
let stack: DeployedStack;
let upstream: MockUpstream;
useDeployedStack({ tempPrefix: 'gw-payload-limits-', adminKey: ADMIN_KEY }, (started) => ({ stack, upstream } = started));

const viaMock = () => ({ 'x-gw-api-key': ADMIN_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-payload-limits' });

/** A chat body of exactly `bytes` bytes (plain letters: nothing JSON escapes twice). */
function chatOfSize(bytes: number): string {
  const empty = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: '' }] });
  return JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a'.repeat(bytes - empty.length) }] });
}

/** A multipart upload of a batch file whose whole body is exactly `bytes` bytes. */
function uploadOfSize(bytes: number): { body: Buffer; contentType: string; fileBytes: number } {
  const boundary = 'gw-payload-limit-boundary';
  const head = `--${boundary}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.jsonl"\r\ncontent-type: application/jsonl\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  // Lines of one length (ids of fixed width), each custom_id its own, the rest padded with spaces.
  const line = (index: number) => `${JSON.stringify({ custom_id: `r${String(index).padStart(7, '0')}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] } })}\n`;
  const room = bytes - head.length - tail.length;
  const count = Math.floor(room / line(0).length);
  const file = Array.from({ length: count }, (_, index) => line(index)).join('') + ' '.repeat(room - count * line(0).length);
  return { body: Buffer.from(head + file + tail), contentType: `multipart/form-data; boundary=${boundary}`, fileBytes: file.length };
}

function expectGwPayloadTooLarge(response: ApiResponse): void {
  expect(response.status, response.body).toBe(413);
  const body = JSON.parse(response.body) as { error: { message: string; type: string; code: string; param: unknown } };
  expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'payload_too_large', param: null });
  expect(body.error.message).toContain("Lambda's 6 MB invocation payload limit");
  expect(body.error.message).toContain('POST /v1/files');
}

describe("Lambda's request payload limit through the AWS-shaped stack", () => {
  it('passes a JSON body just under the limit to the gateway, which answers it', async () => {
    const response = await stack.request('POST', '/prod/v1/chat/completions', { headers: viaMock(), body: chatOfSize(LAMBDA_BODY_LIMIT_BYTES - 1) });
    expect(response.answeredBy).toBeUndefined();
    expect(response.status, response.body.slice(0, 500)).toBe(200);
    expect(response.route?.target).toBe('gateway');
  });

  it('answers a JSON body just over the limit with 413 in gw\'s error shape (the class: a limit only the local server knew)', async () => {
    const response = await stack.request('POST', '/prod/v1/chat/completions', { headers: viaMock(), body: chatOfSize(LAMBDA_BODY_LIMIT_BYTES) });
    expect(response.answeredBy).toBe('waf:lambda-payload-limit');
    expectGwPayloadTooLarge(response);
  });

  it('passes a multipart upload just under its limit base64-encoded, byte for byte', async () => {
    const upload = uploadOfSize(LAMBDA_MULTIPART_LIMIT_BYTES - 1);
    const response = await stack.request('POST', '/prod/v1/files', { headers: { 'x-gw-api-key': ADMIN_KEY, 'content-type': upload.contentType }, body: upload.body });
    expect(response.answeredBy).toBeUndefined();
    expect(response.status, response.body.slice(0, 500)).toBe(200);
    const file = JSON.parse(response.body) as { id: string; bytes: number; filename: string };
    expect(file.filename).toBe('big.jsonl');
    // The file is what was sent: the base64 of the event decoded by the edge, not the text of it.
    expect(file.bytes).toBe(upload.fileBytes);
  });

  it('answers a multipart upload just over its limit (base64 takes it past 6 MB) with the same 413', async () => {
    const upload = uploadOfSize(LAMBDA_MULTIPART_LIMIT_BYTES);
    const response = await stack.request('POST', '/prod/v1/files', { headers: { 'x-gw-api-key': ADMIN_KEY, 'content-type': upload.contentType }, body: upload.body });
    expect(response.answeredBy).toBe('waf:lambda-payload-limit-multipart');
    expectGwPayloadTooLarge(response);
  });

  it('counts the body as it sits in the event: a JSON body under the WAF bound that escaping takes past 6 MB fails before the gateway runs', async () => {
    // Every quote is escaped once more in the event: ~5.5 MB of body becomes > 6 MiB of event. AWS answers this,
    // not gw (what the client sees: a 5XX, documented in docs/deploy.md "Quotas that matter").
    const quoted = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: '"'.repeat(2_750_000) }] });
    expect(quoted.length).toBeLessThan(LAMBDA_BODY_LIMIT_BYTES);
    const response = await stack.request('POST', '/prod/v1/chat/completions', { headers: viaMock(), body: quoted });
    expect(response.answeredBy).toBe('apigateway:DEFAULT_5XX');
    expect(response.status).toBe(500);
    expect(response.route).toBeUndefined();
    expect(JSON.parse(response.body)).toMatchObject({ error: { type: 'api_error' } });
    expect(Buffer.byteLength(JSON.stringify({ body: JSON.stringify(quoted) }))).toBeGreaterThan(LAMBDA_REQUEST_PAYLOAD_LIMIT_BYTES);
  });
});

describe('without the WAF (waf=false)', () => {
  const frontDoor = templateFrontDoor(synthGwStack({ context: { waf: false } }).template.toJSON() as Template);

  it('lets every body through to API Gateway, which refuses one past its own 10 MB with gw\'s 413', () => {
    expect(frontDoor.firewall({ 'content-length': String(API_GATEWAY_PAYLOAD_LIMIT_BYTES + 1) })).toBeUndefined();
    const answer = frontDoor.gatewayResponse('REQUEST_TOO_LARGE', 413, 'Request Too Large');
    expectGwPayloadTooLarge({ ...answer, bodyWrites: [] });
  });
});
