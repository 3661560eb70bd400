import { badRequest, GatewayError } from '../../http/errors.js';
import { validateCustomHost } from '../../gateway/custom-host.js';
import { findProvider, PROVIDER_SLUGS } from '../../providers/registry.js';
import { settings } from '../../settings.js';
import { assertJsonNesting } from '../../http/json-nesting.js';
import type { VirtualKeyRecord, VirtualKeySecret, VirtualKeySecretField } from '../../store/virtual-key-repository.js';
import type { StoredSecretName } from './schemas.js';

/** The provider a settings block belongs to: an Azure block on an OpenAI key is a mistake worth a 400. */
const SETTINGS_OWNER = { azure: 'azure-openai', vertex: 'vertex-ai', aws: 'bedrock' } as const;

/** A virtual key's state apart from its identity: what create builds and update edits. */
export interface VirtualKeyState {
  provider: string;
  settings: Pick<VirtualKeyRecord, 'azure' | 'vertex' | 'aws' | 'custom_host' | 'allowed_custom_hosts'>;
  secret: VirtualKeySecret;
}

export const SECRET_FIELD_NAMES: Record<VirtualKeySecretField, StoredSecretName> = {
  api_key: 'credential',
  vertex_service_account_json: 'vertex.service_account_json',
  aws_access_key_id: 'aws.access_key_id',
  aws_secret_access_key: 'aws.secret_access_key',
  aws_session_token: 'aws.session_token',
};

/** The canonical slug of a registered provider; aliases (clouda, mistral, …) are accepted. */
export function canonicalProvider(slug: string): string {
  const adapter = findProvider(slug);
  if (!adapter) throw badRequest('unknown_provider', `provider: unknown provider '${slug}'; valid providers: ${PROVIDER_SLUGS.join(', ')}`, 'provider');
  return adapter.slug;
}

/** A service-account key as the text stored; checked for the fields a token exchange needs, never quoted. */
export function serviceAccountText(value: string | Record<string, unknown>): string {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    assertJsonNesting(value, 'vertex.service_account_json', 'vertex.service_account_json');
    try {
      parsed = JSON.parse(value);
    } catch {
      throw badRequest('invalid_service_account', 'vertex.service_account_json: is not valid JSON', 'vertex.service_account_json');
    }
  }
  const account = parsed as Record<string, unknown>;
  const usable =
    typeof account === 'object' &&
    account !== null &&
    account.type === 'service_account' &&
    typeof account.client_email === 'string' &&
    typeof account.private_key === 'string';
  if (!usable) {
    throw badRequest(
      'invalid_service_account',
      'vertex.service_account_json: must be a service-account key file with type "service_account", client_email and private_key',
      'vertex.service_account_json',
    );
  }
  return JSON.stringify(account);
}

/** Checks a custom host like the gateway does for x-gw-custom-host, reporting it as the body field. */
export function checkedCustomHost(value: string): string {
  const { GW_ALLOW_LOOPBACK_HOSTS, GW_ALLOW_PRIVATE_HOSTS } = settings();
  try {
    return validateCustomHost(value, { allowLoopback: GW_ALLOW_LOOPBACK_HOSTS, allowPrivate: GW_ALLOW_PRIVATE_HOSTS });
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    throw badRequest(error.code, `custom_host: ${error.message.replace(/^x-gw-custom-host(:| is| must)?\s*/, '')}`, 'custom_host');
  }
}

/**
 * The rules a whole key must satisfy, after create or after an update merged into it. Only the presence of
 * secret fields matters here, so an update that leaves the secret alone is checked without reading it.
 */
export function assertValidState(state: Omit<VirtualKeyState, 'secret'>, secretFields: readonly VirtualKeySecretField[]): void {
  for (const block of ['azure', 'vertex', 'aws'] as const) {
    const owner = SETTINGS_OWNER[block];
    // A block's secret fields travel with it (a block removed takes its secrets along), so the block decides.
    if (state.settings[block] !== undefined && state.provider !== owner) {
      throw badRequest('settings_provider_mismatch', `${block}: these settings apply to provider '${owner}' only, not '${state.provider}'`, block);
    }
  }
  const has = (field: VirtualKeySecretField) => secretFields.includes(field);
  if (has('aws_access_key_id') !== has('aws_secret_access_key')) {
    throw badRequest('incomplete_aws_credentials', 'aws: access_key_id and secret_access_key go together', 'aws.secret_access_key');
  }
  if (has('aws_session_token') && !has('aws_access_key_id')) {
    throw badRequest('incomplete_aws_credentials', 'aws: session_token needs access_key_id and secret_access_key', 'aws.access_key_id');
  }
  const aws = state.settings.aws;
  if (aws?.role_arn === undefined && (aws?.external_id !== undefined || aws?.session_name !== undefined)) {
    throw badRequest('incomplete_aws_role', 'aws: external_id and session_name need role_arn', 'aws.role_arn');
  }
  // One credential per key: a role to assume replaces stored access keys or a Bedrock API key, never combines with them.
  if (aws?.role_arn !== undefined && (has('aws_access_key_id') || has('api_key'))) {
    throw badRequest(
      'conflicting_aws_credentials',
      'aws.role_arn: a key either names a role to assume or stores a credential (aws.access_key_id, or credential: send credential null to remove it)',
      'aws.role_arn',
    );
  }
  if (!has('api_key') && !has('vertex_service_account_json') && !has('aws_access_key_id') && aws?.role_arn === undefined) {
    throw badRequest(
      'missing_credential',
      'credential: a virtual key stores a credential; send credential (or vertex.service_account_json, or aws.access_key_id with aws.secret_access_key, or aws.role_arn)',
      'credential',
    );
  }
}

/** Names (as written in bodies) of the secret fields present, in a stable order. */
export function storedSecretFields(secret: VirtualKeySecret): VirtualKeySecretField[] {
  return (Object.keys(SECRET_FIELD_NAMES) as VirtualKeySecretField[]).filter((field) => secret[field] !== undefined);
}
