/**
 * Compares what each function's synthesised role allows with the AWS operations the tests recorded it issuing
 * (shared/store/recording/). Pure: the template and the records come in, a list of problems goes out, each saying
 * exactly which grant to add or remove. Used by scripts/check-grants.ts (after `vitest run`) and its tests.
 */

export interface RecordedOperationLine {
  fn?: string;
  service: string;
  action: string;
  resource: string;
}

/** A grant no test exercises, kept on purpose. */
export interface GrantAllowance {
  fn: string;
  /** `dynamodb:GetItem` */
  action: string;
  /** As rendered by `grantPairs`: `table/logs`, `table/main/index/gsi1`, `secret/<stack>/*`, `bucket/blobs/*`. */
  resource: string;
  reason: string;
}

export interface GrantPair {
  action: string;
  resource: string;
}

type Json = unknown;
interface TemplateResource {
  Type: string;
  Properties?: Record<string, Json>;
  Metadata?: Record<string, Json>;
}
export interface TemplateJson {
  Resources: Record<string, TemplateResource>;
}

/**
 * Services whose grants come from behaviour, checked action and resource; logs:, xray: and kms: are fixed plumbing
 * of every function.
 */
const CHECKED_SERVICES = ['dynamodb', 'secretsmanager', 's3', 'firehose', 'athena', 'glue'];
/**
 * Services checked by action only: every client goes through `recordedClient` (shared/store/recording/), so an
 * operation on them that no statement of the function allows fails the check; their resources (roles to assume,
 * model ARNs) are not rendered in the recordings' terms, and the local runtime does not call them, so an unused
 * grant on them is not reported.
 */
const ACTION_CHECKED_SERVICES = ['sts', 'bedrock'];

/** The function behind `POWERTOOLS_SERVICE_NAME = gw-<name>`, by role logical id. */
function rolesByFunction(template: TemplateJson): Map<string, string> {
  const roles = new Map<string, string>();
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const service = (resource.Properties?.Environment as { Variables?: Record<string, Json> } | undefined)?.Variables?.POWERTOOLS_SERVICE_NAME;
    const role = (resource.Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
    if (typeof service === 'string' && service.startsWith('gw-') && role) roles.set(service.slice(3), role);
  }
  return roles;
}

/**
 * Logical ids of the resources grants point at → the names recordings use: each table (by its `GW_TABLE_*`
 * variable) → `table/<id>`, the blob bucket (by `GW_BLOB_BUCKET`) → `bucket/blobs`.
 */
function resourceAliases(template: TemplateJson): Map<string, string> {
  const aliases = new Map<string, string>();
  const tableIds: Record<string, string> = { GW_TABLE_MAIN: 'main', GW_TABLE_CACHE: 'cache', GW_TABLE_LOGS: 'logs' };
  // A resource may name itself for the check (`gw:grantAlias` metadata, e.g. the request-log buckets).
  for (const [id, resource] of Object.entries(template.Resources)) {
    const alias = resource.Metadata?.['gw:grantAlias'];
    if (typeof alias === 'string') aliases.set(id, alias);
  }
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const variables = (resource.Properties?.Environment as { Variables?: Record<string, Json> } | undefined)?.Variables ?? {};
    for (const [name, value] of Object.entries(variables)) {
      const ref = (value as { Ref?: string } | null)?.Ref;
      if (!ref) continue;
      if (tableIds[name]) aliases.set(ref, `table/${tableIds[name]}`);
      if (name === 'GW_BLOB_BUCKET') aliases.set(ref, 'bucket/blobs');
    }
  }
  return aliases;
}

/** An IAM resource as a recording-style pattern: `table/main/index/gsi1`, `secret/gw/*`, `bucket/blobs/*`. */
function renderResource(value: Json, aliases: Map<string, string>): string {
  if (typeof value === 'string') {
    const secret = /^arn:[^:]*:secretsmanager:[^:]*:[^:]*:secret:(.*)$/.exec(value);
    if (secret) return `secret/${secret[1]}`;
    // `deliverystream/<name>`, `workgroup/<name>`, `catalog`, `database/<db>`, `table/<db>/<table>`: named in the ARN.
    const named = /^arn:[^:]*:(?:firehose|athena|glue):[^:]*:[^:]*:(.*)$/.exec(value);
    return named ? named[1] : value;
  }
  if (value && typeof value === 'object') {
    const object = value as Record<string, Json>;
    if ('Fn::GetAtt' in object) {
      const [id] = object['Fn::GetAtt'] as [string, string];
      return aliases.get(id) ?? id;
    }
    if ('Ref' in object) {
      const ref = object.Ref as string;
      return ref.startsWith('AWS::') ? `\${${ref.slice(5)}}` : (aliases.get(ref) ?? ref);
    }
    if ('Fn::Join' in object) {
      const [separator, parts] = object['Fn::Join'] as [string, Json[]];
      return renderResource(parts.map((part) => renderResource(part, aliases)).join(separator), aliases);
    }
  }
  return JSON.stringify(value);
}

/** Every (action, resource) a function's role allows on the checked services. */
export function grantPairs(template: TemplateJson): Map<string, GrantPair[]> {
  const roles = rolesByFunction(template);
  const aliases = resourceAliases(template);
  const byFunction = new Map<string, GrantPair[]>();
  for (const [fn, role] of roles) {
    const pairs: GrantPair[] = [];
    for (const resource of Object.values(template.Resources)) {
      if (resource.Type !== 'AWS::IAM::Policy') continue;
      const attached = ((resource.Properties?.Roles as Array<{ Ref?: string }> | undefined) ?? []).some((entry) => entry.Ref === role);
      if (!attached) continue;
      for (const statement of (resource.Properties?.PolicyDocument as { Statement: Array<Record<string, Json>> }).Statement) {
        if (statement.Effect !== 'Allow') continue;
        for (const action of [statement.Action].flat() as string[]) {
          const service = action.split(':')[0];
          if (!CHECKED_SERVICES.includes(service) && !ACTION_CHECKED_SERVICES.includes(service)) continue;
          for (const target of [statement.Resource].flat()) pairs.push({ action, resource: renderResource(target, aliases) });
        }
      }
    }
    byFunction.set(fn, pairs);
  }
  return byFunction;
}

function wildcard(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

function allows(pair: GrantPair, action: string, resource: string): boolean {
  return wildcard(pair.action).test(action) && wildcard(pair.resource).test(resource);
}

/** How to fix a missing grant, in the words of the file that declares it. */
function missingGrantHint(operation: RecordedOperationLine): string {
  if (['firehose', 'athena', 'glue'].includes(operation.service) || operation.resource.startsWith('bucket/log-')) return requestLogsHint(operation);
  const table = /^table\/([^/]+)(\/index\/(.+))?$/.exec(operation.resource);
  if (table && table[3]) return `add '${table[3]}' to queryIndexes of the ${table[1]} row of '${operation.fn}' in infra/cdk/function-table.ts`;
  if (table) return `add '${operation.action}' to the actions of the ${table[1]} row of '${operation.fn}' in infra/cdk/function-table.ts`;
  if (operation.service === 'secretsmanager') return `give '${operation.fn}' secrets: 'manage' (or add ${operation.action} to SECRET_ACTIONS in infra/cdk/constructs/access-grants.ts)`;
  if (operation.service === 's3') return `give '${operation.fn}' blobs: 'read-write' (or add s3:${operation.action} to BLOB_ACTIONS in infra/cdk/constructs/access-grants.ts)`;
  if (ACTION_CHECKED_SERVICES.includes(operation.service)) return `grant ${operation.service}:${operation.action} to '${operation.fn}' in the construct that creates what it calls`;
  return 'grant it in infra/cdk/constructs/access-grants.ts';
}

/**
 * The request-log access level that grants a missed Firehose, Athena, Glue or log-bucket operation, as
 * infra/cdk/constructs/request-logs.ts grants them: PutRecordBatch is `write`; writing or deleting under the data
 * bucket is the compaction's (`compact`); reading (Athena queries, Glue tables, reading either bucket, exports under
 * the results bucket) is `query`. An action no level grants (firehose:DescribeDeliveryStream) is named as such.
 */
const REQUEST_LOG_ACTIONS: Record<'write' | 'query' | 'compact', readonly string[]> = {
  write: ['firehose:PutRecordBatch'],
  query: [
    'athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetQueryResults', 'athena:GetQueryRuntimeStatistics', 'athena:StopQueryExecution',
    'glue:GetDatabase', 'glue:GetTable', 'glue:GetPartitions',
    's3:GetObject', 's3:PutObject', 's3:ListBucket', 's3:GetBucketLocation', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts',
  ],
  compact: ['s3:PutObject', 's3:DeleteObject', 's3:GetObject', 's3:ListBucket'],
};

function requestLogsHint(operation: RecordedOperationLine): string {
  const action = `${operation.service}:${operation.action}`;
  const writesData = operation.resource.startsWith('bucket/log-data') && ['PutObject', 'DeleteObject', 'AbortMultipartUpload'].includes(operation.action);
  const level = writesData ? 'compact' : (['write', 'query', 'compact'] as const).find((candidate) => REQUEST_LOG_ACTIONS[candidate].includes(action));
  if (!level) return `no requestLogs level grants ${action}: add it to the grant that needs it in infra/cdk/constructs/request-logs.ts (grantWrite, grantQuery or grantCompact), or stop issuing it`;
  return `give '${operation.fn}' requestLogs: '${level}' in infra/cdk/function-table.ts (or grant it in infra/cdk/constructs/request-logs.ts)`;
}

export interface GrantCheckResult {
  /** Operations a function issued that its role does not allow: AWS would deny them. */
  missing: string[];
  /** Grants no recorded operation used and no allowance explains (only when `checkUnused`). */
  unused: string[];
  /** Allowances that no longer match a grant (stale entries). */
  staleAllowances: string[];
  /** Operations recorded outside any function (bootstrap, unit tests); reported, not checked. */
  unattributed: number;
}

/**
 * Checks the recordings against the grants. The stack must be synthesised with the stack name whose prefix the
 * recordings used (GW_SECRET_NAME_PREFIX, `gw` by default), so secret names compare as they are on AWS.
 */
export function checkGrants(
  template: TemplateJson,
  operations: readonly RecordedOperationLine[],
  allowances: readonly GrantAllowance[],
  options: { checkUnused: boolean },
): GrantCheckResult {
  const grants = grantPairs(template);
  const missing = new Set<string>();
  const used = new Set<string>();
  let unattributed = 0;
  for (const operation of operations) {
    if (!operation.fn) {
      unattributed++;
      continue;
    }
    const action = `${operation.service}:${operation.action}`;
    const pairs = grants.get(operation.fn);
    if (!pairs) {
      missing.add(`'${operation.fn}' issued ${action} on ${operation.resource}, but the stack has no '${operation.fn}' function`);
      continue;
    }
    const actionOnly = ACTION_CHECKED_SERVICES.includes(operation.service);
    const granting = pairs.filter((pair) => (actionOnly ? wildcard(pair.action).test(action) : allows(pair, action, operation.resource)));
    if (granting.length === 0) missing.add(`'${operation.fn}' issues ${action} on ${operation.resource}, which its role does not allow: ${missingGrantHint(operation)}`);
    for (const pair of granting) used.add(`${operation.fn} ${pair.action} ${pair.resource}`);
  }

  const unused: string[] = [];
  const matchedAllowances = new Set<GrantAllowance>();
  for (const [fn, pairs] of grants) {
    for (const pair of pairs) {
      const allowance = allowances.find((entry) => entry.fn === fn && entry.action === pair.action && entry.resource === pair.resource);
      if (allowance) matchedAllowances.add(allowance);
      const actionOnly = ACTION_CHECKED_SERVICES.includes(pair.action.split(':')[0]);
      if (!options.checkUnused || actionOnly || used.has(`${fn} ${pair.action} ${pair.resource}`) || allowance) continue;
      unused.push(
        `'${fn}' is granted ${pair.action} on ${pair.resource}, but no test issued it: remove it from infra/cdk/function-table.ts, or list it with a reason in infra/cdk/grant-allowances.ts`,
      );
    }
  }
  const staleAllowances = allowances
    .filter((entry) => !matchedAllowances.has(entry))
    .map((entry) => `the allowance for '${entry.fn}' ${entry.action} on ${entry.resource} matches no grant: remove it from infra/cdk/grant-allowances.ts`);
  return { missing: [...missing].sort(), unused: unused.sort(), staleAllowances, unattributed };
}
