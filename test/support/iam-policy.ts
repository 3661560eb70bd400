import type { StandInAuthorizer } from '../../shared/store/recording/stand-ins/wire.js';

/**
 * The IAM side of the AWS-shaped tests: each function's Allow statements, read from the synthesised template with
 * its intrinsic functions resolved against the physical names the test gives the stack's resources, and an
 * evaluator that says whether a function may perform an action on a resource ARN, as IAM would (wildcards in
 * actions and resources; no Deny statements in gw's roles; conditions are only on KMS, which no stand-in serves).
 */
interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
}
export interface Template {
  Resources: Record<string, TemplateResource>;
}

export interface Statement {
  actions: string[];
  resources: string[];
}

export interface AwsPlace {
  region: string;
  account: string;
  /** logical id → physical name (tables, the bucket); other resources keep their logical id. */
  names: Record<string, string>;
}

/** `gw-<name>` Powertools service name → the function's name, for every Lambda function of the template. */
export function functionLogicalIds(template: Template): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const service = (resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.POWERTOOLS_SERVICE_NAME;
    if (typeof service === 'string' && service.startsWith('gw-')) ids.set(service.slice(3), id);
  }
  return ids;
}

/** A template value with Ref, Fn::GetAtt (Arn) and Fn::Join resolved. */
export function resolveValue(template: Template, value: unknown, place: AwsPlace): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((entry) => resolveValue(template, entry, place));
  const object = value as Record<string, unknown>;
  if ('Ref' in object) {
    const ref = object.Ref as string;
    const pseudo: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': place.region, 'AWS::AccountId': place.account, 'AWS::URLSuffix': 'amazonaws.com', 'AWS::StackName': 'gw' };
    return pseudo[ref] ?? place.names[ref] ?? ref;
  }
  if ('Fn::GetAtt' in object) {
    const [id, attribute] = object['Fn::GetAtt'] as [string, string];
    const name = place.names[id] ?? id;
    const type = template.Resources[id]?.Type;
    if (attribute !== 'Arn') return `${name}.${attribute}`;
    if (type === 'AWS::DynamoDB::Table') return `arn:aws:dynamodb:${place.region}:${place.account}:table/${name}`;
    if (type === 'AWS::S3::Bucket') return `arn:aws:s3:::${name}`;
    return `arn:aws:${type ?? 'unknown'}:${place.region}:${place.account}:${name}`;
  }
  if ('Fn::Join' in object) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => String(resolveValue(template, part, place))).join(separator);
  }
  return object;
}

/** Each function's Allow statements (by function name), resolved. */
export function functionStatements(template: Template, place: AwsPlace): Map<string, Statement[]> {
  const byFunction = new Map<string, Statement[]>();
  for (const [fn, id] of functionLogicalIds(template)) {
    const role = (template.Resources[id].Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
    const statements: Statement[] = [];
    for (const resource of Object.values(template.Resources)) {
      if (resource.Type !== 'AWS::IAM::Policy') continue;
      if (!((resource.Properties?.Roles as Array<{ Ref?: string }> | undefined) ?? []).some((entry) => entry.Ref === role)) continue;
      for (const statement of (resource.Properties?.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement) {
        if (statement.Effect !== 'Allow') continue;
        statements.push({
          actions: [statement.Action].flat() as string[],
          resources: [statement.Resource].flat().map((entry) => String(resolveValue(template, entry, place))),
        });
      }
    }
    byFunction.set(fn, statements);
  }
  return byFunction;
}

const pattern = (glob: string) => new RegExp(`^${glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i');

export function isAllowed(statements: readonly Statement[], action: string, resource: string): boolean {
  return statements.some((statement) => statement.actions.some((entry) => pattern(entry).test(action)) && statement.resources.some((entry) => pattern(entry).test(resource)));
}

/**
 * An authorizer for the stand-ins: the caller's access key id names its function (`functionOf`), and the call is
 * allowed when that function's statements allow it. Every decision is kept in `denied` / `checked` for assertions.
 */
export function templateAuthorizer(
  statements: Map<string, Statement[]>,
  functionOf: (accessKeyId: string | undefined) => string | undefined,
): StandInAuthorizer & { denied: string[]; checked: string[] } {
  const denied: string[] = [];
  const checked: string[] = [];
  const authorize = (accessKeyId: string | undefined, action: string, resource: string) => {
    const fn = functionOf(accessKeyId);
    const allowed = fn !== undefined && isAllowed(statements.get(fn) ?? [], action, resource);
    checked.push(`${fn ?? accessKeyId} ${action} ${resource}`);
    if (!allowed) denied.push(`${fn ?? accessKeyId} ${action} ${resource}`);
    return allowed;
  };
  return Object.assign(authorize, { denied, checked });
}
