import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/**
 * Lambda's synchronous invocation payload limit (6 MB, the whole event) is below the 10 MB body API Gateway accepts and
 * gw documents, and API Gateway base64-encodes multipart uploads (the stack's binary media type), a third larger. A
 * body past these never reaches the gateway: the invocation fails and the client gets a bare 5XX. The firewall refuses
 * it first, with 413 naming the limit. Bounds leave room for the rest of the event (headers, request context).
 */
export const LAMBDA_BODY_LIMIT_BYTES = 6_000_000;
export const LAMBDA_MULTIPART_LIMIT_BYTES = 4_500_000;
/**
 * What a client is told when its body is past what reaches the gateway on AWS (the WAF's 413 and API Gateway's own
 * REQUEST_TOO_LARGE): the limit, why, and the way round it for files (docs/batches.md, "Large files on AWS").
 */
export const PAYLOAD_TOO_LARGE_MESSAGE =
  `Request body too large for AWS Lambda: gw on AWS accepts at most ${LAMBDA_BODY_LIMIT_BYTES.toLocaleString('en-US')} bytes ` +
  `(${LAMBDA_MULTIPART_LIMIT_BYTES.toLocaleString('en-US')} for multipart uploads, which API Gateway base64-encodes) under Lambda's 6 MB invocation payload limit. ` +
  'Send a larger file as a presigned upload: POST /v1/files with a JSON body {filename, purpose, bytes}, then PUT the bytes to the upload_url it answers.';
/** `content-length` values at or above each limit (WAF regular expressions; checked against numbers in the tests). */
export const CONTENT_LENGTH_AT_LEAST_6_000_000 = '^0*([6-9][0-9]{6}|[1-9][0-9]{7,})$';
export const CONTENT_LENGTH_AT_LEAST_4_500_000 = '^0*(4[5-9][0-9]{5}|[5-9][0-9]{6}|[1-9][0-9]{7,})$';

export interface GwWebAclProps {
  /** Requests one client address may send per 5-minute window before it is answered 429. */
  ratePerFiveMinutes: number;
}

/**
 * An optional AWS WAF web ACL in front of the API (context `waf: true`): a rate-based rule per client IP that
 * answers in gw's error shape with 429, so a flood from one address (unauthenticated ones included) is stopped
 * before it reaches a Lambda or writes an audit item. Everything else is allowed: request bodies of LLM calls are
 * large, so WAF's managed body-size rules would block legitimate traffic.
 */
export class GwWebAcl extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: GwWebAclProps) {
    super(scope, id);
    const visibility = (metricName: string) => ({ cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: true });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('gw-web-acl'),
      customResponseBodies: {
        payloadTooLarge: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            error: {
              message: PAYLOAD_TOO_LARGE_MESSAGE,
              type: 'invalid_request_error',
              code: 'payload_too_large',
              param: null,
            },
            status: 'failure',
          }),
        },
        rateLimited: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            error: { message: 'Too many requests from this address', type: 'rate_limit_error', code: 'rate_limited', param: null },
            status: 'failure',
          }),
        },
      },
      rules: [
        {
          name: 'rate-per-client-ip',
          priority: 0,
          statement: { rateBasedStatement: { limit: props.ratePerFiveMinutes, aggregateKeyType: 'IP', evaluationWindowSec: 300 } },
          action: { block: { customResponse: { responseCode: 429, customResponseBodyKey: 'rateLimited' } } },
          visibilityConfig: visibility('gw-rate-per-client-ip'),
        },
        payloadRule('lambda-payload-limit', 1, { regexMatchStatement: contentLengthAtLeast(CONTENT_LENGTH_AT_LEAST_6_000_000) }),
        payloadRule('lambda-payload-limit-multipart', 2, {
          andStatement: {
            statements: [
              { regexMatchStatement: contentLengthAtLeast(CONTENT_LENGTH_AT_LEAST_4_500_000) },
              {
                byteMatchStatement: {
                  fieldToMatch: { singleHeader: { Name: 'content-type' } },
                  positionalConstraint: 'STARTS_WITH',
                  searchString: 'multipart/form-data',
                  textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
                },
              },
            ],
          },
        }),
      ],
    });
  }
}

function contentLengthAtLeast(regexString: string) {
  return { regexString, fieldToMatch: { singleHeader: { Name: 'content-length' } }, textTransformations: [{ priority: 0, type: 'NONE' }] };
}

function payloadRule(name: string, priority: number, statement: CfnWebACL.StatementProperty): CfnWebACL.RuleProperty {
  return {
    name,
    priority,
    statement,
    action: { block: { customResponse: { responseCode: 413, customResponseBodyKey: 'payloadTooLarge' } } },
    visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: `gw-${name}`, sampledRequestsEnabled: true },
  };
}
