import type { ApiKeyAuthenticator } from '../../auth/authenticate.js';
import { hasScope, type Principal } from '../../auth/principal.js';
import { noteGatewayAuthenticationFailure } from '../../audit/gateway-authentication-failures.js';
import { badRequest, GatewayError } from '../../http/errors.js';
import type { NeutralRequest } from '../../http/types.js';
import { findProvider } from '../../providers/registry.js';
import type { ProviderAdapter } from '../../providers/types.js';
import type { IntegrationRecord } from '../../store/integration-repository.js';
import type { LeafSettings } from '../config/target-tree.js';
import type { WorkspaceProviderRef } from '../context.js';
import { applyWorkspaceProvider } from '../provider-target.js';
import { readRequestOptions, type RequestOptions } from '../request-options.js';
import { leafFromHeaders, resolveLeafTarget } from '../resolve-target.js';
import { batchDriverFor } from './providers/index.js';
import type { BatchDriver } from './providers/types.js';

/**
 * The caller of a files or batches route: an API key with `completions:write` (a batch is inference, and its
 * files are its input: one scope for both, docs/batches.md).
 */
export async function batchCaller(request: NeutralRequest, authenticator: ApiKeyAuthenticator): Promise<Principal> {
  const traceId = request.headers['x-gw-trace-id'] ?? '';
  const principal = await authenticator.authenticate(request.headers['x-gw-api-key']).catch((thrown: unknown) => {
    noteGatewayAuthenticationFailure(request, thrown, traceId);
    throw thrown;
  });
  if (!hasScope(principal, 'completions:write')) throw new GatewayError(403, 'missing_scope', 'This API key lacks the completions:write scope (files and batches need it)');
  return principal;
}

/** A provider's batch service, resolved for one request: how gw drives it, its credential, and how gw got there. */
export interface BatchTarget {
  provider: string;
  adapter: ProviderAdapter;
  driver: BatchDriver;
  virtualKeyId?: string;
  options: RequestOptions;
  /** The target as one leaf of a route tree: what admission estimates and matches policies against. */
  leaf: LeafSettings;
  /** `x-gw-provider: @slug`: its limits apply to the batch as to any request. */
  workspaceProvider?: WorkspaceProviderRef;
}

/**
 * The provider a batch request names with gw's usual headers (`x-gw-provider` + `Authorization`, a virtual key,
 * `x-gw-provider: @workspace-provider`, the x-gw-azure-* coordinates, a custom host), resolved through the same
 * checks as chat: a stored credential only goes to its own host. A config or deployment is refused: a batch runs
 * on one provider, chosen when it is created. Without any provider header, `stored` (the batch's own virtual
 * key) is used; undefined when there is neither.
 */
export async function resolveBatchTarget(request: NeutralRequest, principal: Principal, stored?: { virtualKeyId?: string }): Promise<BatchTarget | undefined> {
  const options = readRequestOptions(request.headers);
  if (options.config !== undefined || options.deployment !== undefined) {
    throw badRequest('batch_config_unsupported', 'A batch runs on one provider: name it with x-gw-provider or x-gw-virtual-key, not a config or deployment', options.config !== undefined ? 'x-gw-config' : 'x-gw-deployment');
  }
  if (options.provider === undefined && options.virtualKey === undefined) {
    if (stored?.virtualKeyId === undefined) return undefined;
    options.virtualKey = stored.virtualKeyId;
  }
  const workspaceProvider = await applyWorkspaceProvider(options, principal);
  if (options.virtualKey !== undefined || workspaceProvider !== undefined) refuseStorageHeadersBesideStoredCredential(request.headers);
  if (workspaceProvider !== undefined) useIntegrationBatchStorage(options, workspaceProvider.integration);
  const leaf = leafFromHeaders(options);
  const { adapter, target } = await resolveLeafTarget(leaf, options, undefined, request, principal.workspaceId);
  const provider = findProvider(adapter.slug)?.slug ?? adapter.slug;
  const storedIn = options.virtualKey !== undefined ? 'virtual key' : workspaceProvider !== undefined ? 'integration' : undefined;
  return { provider, adapter, driver: batchDriverFor(provider, adapter, target, storedIn), virtualKeyId: options.virtualKey, options, leaf, workspaceProvider };
}

/**
 * `@workspace-provider`: the batch storage its integration stores (the headers were refused above), as a virtual
 * key's reaches the target through its settings. An integration of another provider stores none.
 */
function useIntegrationBatchStorage(options: RequestOptions, integration: IntegrationRecord): void {
  if (integration.aws !== undefined) {
    options.aws = Object.assign(options.aws ?? {}, definedOnly({ batchBucket: integration.aws.batch_bucket, batchPrefix: integration.aws.batch_prefix, batchRoleArn: integration.aws.batch_role_arn }));
  }
  if (integration.vertex !== undefined) {
    options.vertex = Object.assign(options.vertex ?? {}, definedOnly({ batchBucket: integration.vertex.batch_bucket, batchPrefix: integration.vertex.batch_prefix }));
  }
}

function definedOnly(value: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** Where a translated batch keeps its files and which role runs it: the buckets, prefixes and role a stored credential may write to and pass. */
const BATCH_STORAGE_HEADERS = ['x-gw-aws-batch-bucket', 'x-gw-aws-batch-prefix', 'x-gw-aws-batch-role-arn', 'x-gw-vertex-batch-bucket', 'x-gw-vertex-batch-prefix'];

/**
 * With a stored credential (a virtual key, `@workspace-provider`) the batch's bucket, prefix and role come from
 * where the credential is stored, never from the caller: otherwise a caller who may only use the credential could
 * have gw write into any bucket and pass any role the credential reaches (a confused deputy; the same rule as a
 * stored credential's custom host, docs/security.md).
 */
function refuseStorageHeadersBesideStoredCredential(headers: Record<string, string>): void {
  const named = BATCH_STORAGE_HEADERS.find((name) => headers[name] !== undefined && headers[name] !== '');
  if (named === undefined) return;
  throw badRequest('batch_setting_with_stored_credential', `${named} cannot be set beside a stored credential (a virtual key or @workspace-provider): its batch bucket, prefix and role are the ones stored with it`, named);
}
