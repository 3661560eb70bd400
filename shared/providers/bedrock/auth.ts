import { badRequest } from '../../http/errors.js';
import { signAwsRequest, type AwsCredentials } from '../common/aws-sigv4.js';
import type { TargetSettings } from '../types.js';

/** How a Bedrock call is authorised: SigV4 with AWS credentials, or a Bedrock API key as a bearer token. */
export type BedrockAuth =
  | { kind: 'sigv4'; region: string; credentials: AwsCredentials | (() => Promise<AwsCredentials>) }
  | { kind: 'bearer'; region: string; token: string };

// us-east-1, eu-central-2, us-gov-west-1, ap-southeast-7 …; the region becomes part of a hostname, so nothing else passes.
const REGION_PATTERN = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

/**
 * Reads the credentials of the target: `x-gw-aws-*` headers (or the spec's `x-gw-cloudc-*` names), already
 * parsed into `target.aws`. Without an access key id, an `Authorization: Bearer` token is taken as a Bedrock
 * API key; without either, a role the virtual key names (aws.role_arn) is assumed with the gateway's own identity,
 * or else that identity signs itself when it offers one (`awsFunctionRole`,
 * GW_BEDROCK_FUNCTION_ROLE), in its region unless x-gw-aws-region names another. Each missing piece is a 400 naming
 * the header to send.
 */
export function readBedrockAuth(target: TargetSettings): BedrockAuth {
  const aws = target.aws ?? {};
  const functionRole = target.awsFunctionRole;
  if (!aws.accessKeyId && !target.apiKey && aws.role) {
    if (!functionRole) {
      throw badRequest(
        'aws_role_unavailable',
        `The virtual key names a role to assume (${aws.role.roleArn}), but this gateway has no AWS identity to assume it with; the deployment must set GW_BEDROCK_FUNCTION_ROLE=ON (the stack does)`,
        'x-gw-virtual-key',
      );
    }
    const region = aws.region ?? functionRole.region;
    if (!REGION_PATTERN.test(region)) throw badRequest('invalid_aws_region', 'x-gw-aws-region must be an AWS region name such as us-east-1', 'x-gw-aws-region');
    const role = aws.role;
    return { kind: 'sigv4', region, credentials: () => functionRole.assumeRole(role) };
  }
  if (!aws.accessKeyId && !target.apiKey && functionRole) {
    const region = aws.region ?? functionRole.region;
    if (!REGION_PATTERN.test(region)) throw badRequest('invalid_aws_region', 'x-gw-aws-region must be an AWS region name such as us-east-1', 'x-gw-aws-region');
    return { kind: 'sigv4', region, credentials: functionRole.credentials };
  }
  if (!aws.accessKeyId && !target.apiKey) {
    throw badRequest(
      'missing_aws_credentials',
      'Bedrock needs AWS credentials: send x-gw-aws-access-key-id, x-gw-aws-secret-access-key and x-gw-aws-region (x-gw-aws-session-token for temporary credentials), or a Bedrock API key as Authorization: Bearer <key>',
      'x-gw-aws-access-key-id',
    );
  }
  if (aws.accessKeyId && !aws.secretAccessKey) {
    throw badRequest('missing_aws_credentials', 'x-gw-aws-secret-access-key is required with x-gw-aws-access-key-id', 'x-gw-aws-secret-access-key');
  }
  const region = aws.region;
  if (!region) throw badRequest('missing_aws_region', 'Bedrock needs the AWS region of the model: send x-gw-aws-region (e.g. us-east-1)', 'x-gw-aws-region');
  if (!REGION_PATTERN.test(region)) {
    throw badRequest('invalid_aws_region', 'x-gw-aws-region must be an AWS region name such as us-east-1', 'x-gw-aws-region');
  }
  if (aws.accessKeyId && aws.secretAccessKey) {
    const credentials: AwsCredentials = { accessKeyId: aws.accessKeyId, secretAccessKey: aws.secretAccessKey };
    if (aws.sessionToken) credentials.sessionToken = aws.sessionToken;
    return { kind: 'sigv4', region, credentials };
  }
  return { kind: 'bearer', region, token: target.apiKey as string };
}

/** The headers of one call with its authorisation added (SigV4 signs the exact URL, headers and body). */
export async function authoriseCall(
  auth: BedrockAuth,
  call: { url: string; headers: Record<string, string>; body: string },
  signingDate?: Date,
): Promise<Record<string, string>> {
  if (auth.kind === 'bearer') return { ...call.headers, authorization: `Bearer ${auth.token}` };
  return signAwsRequest({
    method: 'POST',
    url: call.url,
    headers: call.headers,
    body: call.body,
    service: 'bedrock',
    region: auth.region,
    credentials: typeof auth.credentials === 'function' ? await auth.credentials() : auth.credentials,
    signingDate,
    sendPayloadHash: true,
  });
}

/** `https://bedrock-runtime.{region}.amazonaws.com`, or the custom host that replaces it (tests, VPC endpoints, proxies). */
export function bedrockRuntimeBase(target: TargetSettings, region: string): string {
  if (target.customHost) return target.customHost.replace(/\/+$/, '');
  const domain = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://bedrock-runtime.${region}.${domain}`;
}
