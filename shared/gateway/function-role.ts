import type { AwsCredentialsValue, AwsRoleToAssume, TargetSettings } from '../providers/types.js';
import { settings } from '../settings.js';

/**
 * The gateway's own AWS identity for provider calls that carry no credentials (GW_BEDROCK_FUNCTION_ROLE): the AWS
 * SDK's default credential chain, which on Lambda reads the function role's credentials from the environment the
 * runtime sets (and elsewhere tries profiles, SSO, container and instance metadata). The chain is imported on first
 * use, so a cold start that never calls Bedrock does not load it, and it caches the credentials and refreshes them
 * before they expire.
 */
let chain: Promise<() => Promise<AwsCredentialsValue>> | undefined;

async function functionRoleCredentials(): Promise<AwsCredentialsValue> {
  chain ??= import('@aws-sdk/credential-provider-node').then(({ defaultProvider }) => defaultProvider()).catch((error: unknown) => {
    chain = undefined;
    throw error;
  });
  const { accessKeyId, secretAccessKey, sessionToken } = await (await chain)();
  return { accessKeyId, secretAccessKey, sessionToken };
}

/** A role assumed with this identity (assumed-role.ts, imported on first use: STS and its cache stay out of a cold start). */
async function assumeRole(role: AwsRoleToAssume): Promise<AwsCredentialsValue> {
  const { assumedRoleCredentials } = await import('./assumed-role.js');
  return assumedRoleCredentials(role);
}

/** The gateway's identity for a target of `provider`, when the setting offers it (Bedrock only). */
export function functionRoleFor(provider: string): TargetSettings['awsFunctionRole'] {
  const current = settings();
  if (provider !== 'bedrock' || !current.GW_BEDROCK_FUNCTION_ROLE) return undefined;
  return { credentials: functionRoleCredentials, region: current.AWS_REGION, assumeRole };
}
