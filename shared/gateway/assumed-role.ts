import { AssumeRoleCommand, STSClient, STSServiceException } from '@aws-sdk/client-sts';
import { LRUCache } from 'lru-cache';
import { GatewayError } from '../http/errors.js';
import { logger } from '../observability/logger.js';
import type { AwsCredentialsValue, AwsRoleToAssume } from '../providers/types.js';
import { settings } from '../settings.js';
import { recordedClient } from '../store/recording/sdk-recording-middleware.js';

/**
 * The role a virtual key names for Bedrock (`aws.role_arn`), assumed with STS AssumeRole by the gateway's own
 * identity (the SDK's default credential chain: on Lambda, the function's role). This module is imported on first
 * use (function-role.ts), so the STS client and lru-cache stay out of the gateway's cold start.
 *
 * The temporary credentials are kept per role, external id and session name until REFRESH_BEFORE_EXPIRY_MS before
 * they expire, in a bounded LRU: one AssumeRole per role per hour or so, not one per request. Concurrent requests
 * for the same role share one call.
 */
const MAX_CACHED_ROLES = 1_000;
/** A request must not start with credentials that expire while a long stream is still being signed for. */
export const REFRESH_BEFORE_EXPIRY_MS = 5 * 60_000;
const SESSION_DURATION_SECONDS = 3_600;
const DEFAULT_SESSION_NAME = 'gw-gateway';

interface Assumed {
  credentials: AwsCredentialsValue;
  expiresAt: number;
}

const cache = new LRUCache<string, Promise<Assumed>>({ max: MAX_CACHED_ROLES });
let client: STSClient | undefined;

function stsClient(): STSClient {
  const { GW_STS_ENDPOINT, AWS_REGION } = settings();
  client ??= recordedClient(new STSClient({ region: AWS_REGION, ...(GW_STS_ENDPOINT ? { endpoint: GW_STS_ENDPOINT } : {}) }), 'sts');
  return client;
}

/** The credentials of `role`, from the cache while they have more than REFRESH_BEFORE_EXPIRY_MS left. */
export async function assumedRoleCredentials(role: AwsRoleToAssume, now: () => number = Date.now): Promise<AwsCredentialsValue> {
  const key = [role.roleArn, role.externalId ?? '', role.sessionName ?? ''].join('\u0000');
  const cached = cache.get(key);
  if (cached) {
    const assumed = await cached.catch(() => undefined);
    if (assumed && assumed.expiresAt - now() > REFRESH_BEFORE_EXPIRY_MS) return assumed.credentials;
    // A failed or expiring entry is replaced, unless a concurrent request already replaced it.
    if (cache.get(key) !== cached) return assumedRoleCredentials(role, now);
  }
  const pending = assume(role);
  cache.set(key, pending);
  pending.catch(() => {
    if (cache.get(key) === pending) cache.delete(key);
  });
  return (await pending).credentials;
}

async function assume(role: AwsRoleToAssume): Promise<Assumed> {
  let answer;
  try {
    answer = await stsClient().send(
      new AssumeRoleCommand({
        RoleArn: role.roleArn,
        RoleSessionName: role.sessionName ?? DEFAULT_SESSION_NAME,
        DurationSeconds: SESSION_DURATION_SECONDS,
        ...(role.externalId === undefined ? {} : { ExternalId: role.externalId }),
      }),
    );
  } catch (error) {
    throw assumeRoleError(role.roleArn, error);
  }
  const credentials = answer.Credentials;
  if (!credentials?.AccessKeyId || !credentials.SecretAccessKey || !credentials.Expiration) {
    throw new GatewayError(502, 'aws_assume_role_failed', `STS returned no credentials for role ${role.roleArn}`, { param: 'x-gw-virtual-key' });
  }
  return {
    credentials: { accessKeyId: credentials.AccessKeyId, secretAccessKey: credentials.SecretAccessKey, sessionToken: credentials.SessionToken },
    expiresAt: credentials.Expiration.getTime(),
  };
}

/**
 * STS refusing (the role does not trust the gateway's role, the external id is wrong, the stack does not grant
 * sts:AssumeRole on it) is the virtual key's configuration, answered 403 naming the role; anything else (STS
 * unreachable, throttled) is a 502. STS's own message names the gateway's role and account, so it is logged, not
 * returned.
 */
function assumeRoleError(roleArn: string, error: unknown): GatewayError {
  const code = error instanceof STSServiceException ? error.name : (error as Error | undefined)?.name ?? 'Error';
  logger.warn('could not assume the role of a virtual key', { role_arn: roleArn, error_name: code, reason: (error as Error | undefined)?.message });
  if (code === 'AccessDenied' || code === 'AccessDeniedException') {
    return new GatewayError(
      403,
      'aws_assume_role_denied',
      `The gateway may not assume role ${roleArn} (STS: ${code}): the role must trust the gateway's role (and require the virtual key's external_id, if any), and the stack must allow it (bedrockAssumableRoleArns)`,
      { param: 'x-gw-virtual-key' },
    );
  }
  return new GatewayError(502, 'aws_assume_role_failed', `The gateway could not assume role ${roleArn} (STS: ${code}); try again later`, { param: 'x-gw-virtual-key' });
}
