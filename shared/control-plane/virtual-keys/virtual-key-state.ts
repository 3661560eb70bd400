import type { VirtualKeyRecord, VirtualKeySecret } from '../../store/virtual-key-repository.js';
import type { VirtualKeyCreate, VirtualKeyUpdate } from './schemas.js';
import { assertValidState, canonicalProvider, checkedCustomHost, serviceAccountText, storedSecretFields, type VirtualKeyState } from './virtual-key-rules.js';

type VertexBlock = NonNullable<VirtualKeyCreate['vertex']>;
type AwsBlock = NonNullable<VirtualKeyCreate['aws']>;

/** Splits a create body into what DynamoDB may hold and what only the SecretStore may hold. */
export function stateFromCreate(body: VirtualKeyCreate): VirtualKeyState {
  const state: VirtualKeyState = { provider: canonicalProvider(body.provider), settings: {}, secret: {} };
  if (body.credential !== undefined) state.secret.api_key = body.credential;
  if (body.azure) state.settings.azure = { ...body.azure };
  if (body.vertex) applyVertex(state, body.vertex);
  if (body.aws) applyAws(state, body.aws);
  if (body.custom_host !== undefined) state.settings.custom_host = checkedCustomHost(body.custom_host);
  if (body.allowed_custom_hosts?.length) state.settings.allowed_custom_hosts = body.allowed_custom_hosts;
  assertValidState(state, storedSecretFields(state.secret));
  return state;
}

/** Whether applying `body` needs the stored secret (it changes or removes a secret part). */
export function updateTouchesSecret(body: VirtualKeyUpdate): boolean {
  return body.credential !== undefined || body.vertex !== undefined || body.aws !== undefined;
}

/**
 * Applies an update: a settings block replaces the stored block's non-secret fields and the secret fields it
 * names (the ones it omits are kept); `null` removes the block together with its secrets. `currentSecret` is
 * undefined when the update touches no secret (see updateTouchesSecret): the stored secret is then kept as is.
 */
export function stateAfterUpdate(current: VirtualKeyRecord, currentSecret: VirtualKeySecret | undefined, body: VirtualKeyUpdate): VirtualKeyState {
  const state: VirtualKeyState = {
    provider: current.provider,
    settings: { azure: current.azure, vertex: current.vertex, aws: current.aws, custom_host: current.custom_host, allowed_custom_hosts: current.allowed_custom_hosts },
    secret: { ...currentSecret },
  };
  if (body.credential === null) delete state.secret.api_key;
  else if (body.credential !== undefined) state.secret.api_key = body.credential;
  if (body.azure === null) delete state.settings.azure;
  else if (body.azure !== undefined) state.settings.azure = { ...body.azure };
  if (body.vertex === null) {
    delete state.settings.vertex;
    delete state.secret.vertex_service_account_json;
  } else if (body.vertex !== undefined) {
    applyVertex(state, body.vertex);
  }
  if (body.aws === null) {
    delete state.settings.aws;
    delete state.secret.aws_access_key_id;
    delete state.secret.aws_secret_access_key;
    delete state.secret.aws_session_token;
  } else if (body.aws !== undefined) {
    applyAws(state, body.aws);
  }
  if (body.custom_host === null) delete state.settings.custom_host;
  else if (body.custom_host !== undefined) state.settings.custom_host = checkedCustomHost(body.custom_host);
  if (body.allowed_custom_hosts?.length === 0) delete state.settings.allowed_custom_hosts;
  else if (body.allowed_custom_hosts !== undefined) state.settings.allowed_custom_hosts = body.allowed_custom_hosts;
  assertValidState(state, currentSecret ? storedSecretFields(state.secret) : current.secret_fields);
  return state;
}

function applyVertex(state: VirtualKeyState, block: VertexBlock): void {
  const { service_account_json: serviceAccount, ...plain } = block;
  state.settings.vertex = plain;
  if (serviceAccount !== undefined) state.secret.vertex_service_account_json = serviceAccountText(serviceAccount);
}

function applyAws(state: VirtualKeyState, block: AwsBlock): void {
  const { access_key_id: accessKeyId, secret_access_key: secretAccessKey, session_token: sessionToken, ...plain } = block;
  state.settings.aws = plain;
  // A block naming a role replaces the stored block, access keys included (a key has one credential).
  if (plain.role_arn !== undefined && accessKeyId === undefined && secretAccessKey === undefined) {
    delete state.secret.aws_access_key_id;
    delete state.secret.aws_secret_access_key;
    delete state.secret.aws_session_token;
  }
  if (accessKeyId !== undefined) {
    state.secret.aws_access_key_id = accessKeyId;
    // A session token belongs to one key pair: a new pair without a token drops the old one.
    if (sessionToken === undefined) delete state.secret.aws_session_token;
  }
  if (secretAccessKey !== undefined) state.secret.aws_secret_access_key = secretAccessKey;
  if (sessionToken !== undefined) state.secret.aws_session_token = sessionToken;
}

/** Whether two secrets differ, so an update that changes no secret part skips the store write. */
export function secretChanged(before: VirtualKeySecret, after: VirtualKeySecret): boolean {
  const fields = new Set([...Object.keys(before), ...Object.keys(after)]) as Set<keyof VirtualKeySecret>;
  return [...fields].some((field) => before[field] !== after[field]);
}
