import type { Template } from '../../support/iam-policy.js';

/**
 * What stands between a client and a function on AWS, applied the way AWS applies it (issue #44: a 4.5 MB upload
 * worked locally and failed on AWS because nothing here knew these limits):
 * - the stack's WAF web ACL, its payload rules evaluated on the client's headers (the rate rule needs many callers
 *   over 5 minutes and is left out);
 * - API Gateway's own payload limit (10 MB, its REQUEST_TOO_LARGE gateway response) and binary media types (such a
 *   body reaches the function base64-encoded);
 * - Lambda's synchronous invocation payload limits: the whole event as JSON at most 6,291,456 bytes (a body counts
 *   as JSON-escaped, or base64-encoded), a buffered result at most 6,291,556 bytes, a streamed one 200 MB.
 * Where AWS answers instead of the function, the answer is the template's gateway response for it.
 * Sources: Lambda quotas ("Invocation payload (request and response)"), API Gateway quotas ("Payload size"),
 * InvokeMode (RESPONSE_STREAM: 200 MB), and Lambda's own error text ("Request must be smaller than 6291456 bytes for
 * the InvokeFunction operation").
 */
export const API_GATEWAY_PAYLOAD_LIMIT_BYTES = 10 * 1024 * 1024;
export const LAMBDA_REQUEST_PAYLOAD_LIMIT_BYTES = 6 * 1024 * 1024;
export const LAMBDA_BUFFERED_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024 + 100;
export const LAMBDA_STREAMED_RESPONSE_LIMIT_BYTES = 200 * 1024 * 1024;

export interface FrontDoorAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Who answered: a WAF rule (by name) or an API Gateway gateway response (by type). */
  answeredBy: string;
}

type Statement = Record<string, unknown>;
interface WafRule {
  Name: string;
  Statement: Statement;
  Action?: { Block?: { CustomResponse?: { ResponseCode: number; CustomResponseBodyKey?: string } } };
}

export interface FrontDoor {
  /** The WAF's answer to a request with these headers, if one of its payload rules blocks it. */
  firewall(headers: Record<string, string>): FrontDoorAnswer | undefined;
  /** Whether API Gateway passes a body with this content type base64-encoded. */
  isBinary(contentType: string | undefined): boolean;
  /** API Gateway's answer of this gateway response type (the stack's template for it, or DEFAULT_4XX/5XX). */
  gatewayResponse(type: string, defaultStatus: number, message: string): FrontDoorAnswer;
}

export function templateFrontDoor(json: Template): FrontDoor {
  const resources = Object.values(json.Resources);
  const api = resources.find((resource) => resource.Type === 'AWS::ApiGateway::RestApi')!;
  const binaryMediaTypes = (api.Properties?.BinaryMediaTypes as string[] | undefined) ?? [];
  const associated = resources.some((resource) => resource.Type === 'AWS::WAFv2::WebACLAssociation');
  const acl = associated ? resources.find((resource) => resource.Type === 'AWS::WAFv2::WebACL') : undefined;
  const rules = ((acl?.Properties?.Rules as WafRule[] | undefined) ?? []).slice().sort((a, b) => Number((a as { Priority?: number }).Priority) - Number((b as { Priority?: number }).Priority));
  const bodies = (acl?.Properties?.CustomResponseBodies as Record<string, { Content: string; ContentType: string }> | undefined) ?? {};
  const responses = new Map(
    resources
      .filter((resource) => resource.Type === 'AWS::ApiGateway::GatewayResponse')
      .map((resource) => [resource.Properties!.ResponseType as string, resource.Properties as { StatusCode?: string; ResponseTemplates?: Record<string, string> }]),
  );

  return {
    firewall(headers) {
      const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
      for (const rule of rules) {
        if ('RateBasedStatement' in rule.Statement) continue;
        const block = rule.Action?.Block;
        if (!block || !matches(rule.Statement, lower)) continue;
        const custom = block.CustomResponse;
        const body = custom?.CustomResponseBodyKey ? bodies[custom.CustomResponseBodyKey] : undefined;
        return { status: custom?.ResponseCode ?? 403, headers: { 'content-type': body?.ContentType === 'APPLICATION_JSON' ? 'application/json' : 'text/plain' }, body: body?.Content ?? '', answeredBy: `waf:${rule.Name}` };
      }
      return undefined;
    },
    isBinary(contentType) {
      if (!contentType) return false;
      const type = contentType.split(';')[0].trim().toLowerCase();
      return binaryMediaTypes.some((pattern) => pattern === type || pattern === '*/*' || (pattern.endsWith('/*') && type.startsWith(pattern.slice(0, -1))));
    },
    gatewayResponse(type, defaultStatus, message) {
      const family = defaultStatus >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX';
      const response = responses.get(type) ?? responses.get(family);
      const template = response?.ResponseTemplates?.['application/json'];
      // The VTL the stack uses: $context.error.messageString is the quoted message, responseType the type.
      const body = template
        ? template.replaceAll('$context.error.messageString', JSON.stringify(message)).replaceAll('$context.error.responseType', type).replaceAll('$context.error.message', message)
        : JSON.stringify({ message });
      return { status: Number(response?.StatusCode ?? defaultStatus), headers: { 'content-type': 'application/json' }, body, answeredBy: `apigateway:${type}` };
    },
  };
}

/** WAF statements the stack uses: regex and byte matches on a single header, and their conjunction. */
function matches(statement: Statement, headers: Record<string, string>): boolean {
  if (statement.AndStatement) return ((statement.AndStatement as { Statements: Statement[] }).Statements).every((inner) => matches(inner, headers));
  if (statement.OrStatement) return ((statement.OrStatement as { Statements: Statement[] }).Statements).some((inner) => matches(inner, headers));
  if (statement.NotStatement) return !matches((statement.NotStatement as { Statement: Statement }).Statement, headers);
  const field = (match: { FieldToMatch: { SingleHeader?: { Name: string } }; TextTransformations?: Array<{ Type: string }> }) => {
    const name = match.FieldToMatch.SingleHeader?.Name;
    if (!name) throw new Error(`the harness's WAF reads single headers only: ${JSON.stringify(match.FieldToMatch)}`);
    const value = headers[name.toLowerCase()];
    if (value === undefined) return undefined;
    return (match.TextTransformations ?? []).reduce((text, transformation) => (transformation.Type === 'LOWERCASE' ? text.toLowerCase() : transformation.Type === 'NONE' ? text : unsupported(transformation.Type)), value);
  };
  if (statement.RegexMatchStatement) {
    const match = statement.RegexMatchStatement as { RegexString: string; FieldToMatch: { SingleHeader?: { Name: string } }; TextTransformations?: Array<{ Type: string }> };
    const value = field(match);
    return value !== undefined && new RegExp(match.RegexString).test(value);
  }
  if (statement.ByteMatchStatement) {
    const match = statement.ByteMatchStatement as { SearchString: string; PositionalConstraint: string; FieldToMatch: { SingleHeader?: { Name: string } }; TextTransformations?: Array<{ Type: string }> };
    const value = field(match);
    if (value === undefined) return false;
    if (match.PositionalConstraint === 'STARTS_WITH') return value.startsWith(match.SearchString);
    if (match.PositionalConstraint === 'EXACTLY') return value === match.SearchString;
    if (match.PositionalConstraint === 'CONTAINS') return value.includes(match.SearchString);
    return unsupported(match.PositionalConstraint);
  }
  return unsupported(Object.keys(statement).join(','));
}

function unsupported(what: string): never {
  throw new Error(`the harness's WAF does not evaluate ${what}: add it to test/aws-shaped/support/front-door.ts`);
}
