import type { Template } from 'aws-cdk-lib/assertions';

/** Small read-only queries over a synthesized template, for assertions that Match cannot express well. */

type Json = unknown;
interface Resource {
  Type: string;
  Properties?: Record<string, Json>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

export function resources(template: Template, type?: string): Record<string, Resource> {
  const all = (template.toJSON() as { Resources: Record<string, Resource> }).Resources;
  return Object.fromEntries(Object.entries(all).filter(([, resource]) => !type || resource.Type === type));
}

/** The logical id of the gw function whose POWERTOOLS_SERVICE_NAME is `gw-<name>`. */
export function functionLogicalId(template: Template, name: string): string {
  const match = Object.entries(resources(template, 'AWS::Lambda::Function')).find(
    ([, fn]) => (fn.Properties?.Environment as { Variables?: Record<string, Json> } | undefined)?.Variables?.POWERTOOLS_SERVICE_NAME === `gw-${name}`,
  );
  if (!match) throw new Error(`No gw-${name} function in the template`);
  return match[0];
}

export function functionProperties(template: Template, name: string): Record<string, Json> {
  return resources(template)[functionLogicalId(template, name)].Properties ?? {};
}

/**
 * Renders an intrinsic as readable text: `Fn::GetAtt [X, Arn]` → the alias of X (or X), `Ref AWS::Region` →
 * `${Region}`, `Fn::Join` → the joined parts.
 */
export function render(value: Json, aliases: Record<string, string>): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const object = value as Record<string, Json>;
    if ('Fn::GetAtt' in object) {
      const [id, attribute] = object['Fn::GetAtt'] as [string, string];
      return `${aliases[id] ?? id}${attribute === 'Arn' ? '' : `.${attribute}`}`;
    }
    if ('Ref' in object) {
      const ref = object.Ref as string;
      return ref.startsWith('AWS::') ? `\${${ref.slice(5)}}` : (aliases[ref] ?? ref);
    }
    if ('Fn::Join' in object) {
      const [separator, parts] = object['Fn::Join'] as [string, Json[]];
      return parts.map((part) => render(part, aliases)).join(separator);
    }
  }
  return JSON.stringify(value);
}

/**
 * Every (action, resource) pair a function's role is allowed, as `action resource` strings, sorted. Statement
 * layout (how CDK merged statements) does not matter; conditions are appended as `if {json}`.
 */
export function grantsOf(template: Template, name: string, aliases: Record<string, string>): string[] {
  const role = (functionProperties(template, name).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const pairs: string[] = [];
  for (const policy of Object.values(resources(template, 'AWS::IAM::Policy'))) {
    const roles = (policy.Properties?.Roles as Array<{ Ref: string }>).map((ref) => ref.Ref);
    if (!roles.includes(role)) continue;
    const statements = (policy.Properties?.PolicyDocument as { Statement: Array<Record<string, Json>> }).Statement;
    for (const statement of statements) {
      if (statement.Effect !== 'Allow') continue;
      const condition = statement.Condition ? ` if ${JSON.stringify(statement.Condition)}` : '';
      for (const action of [statement.Action].flat() as string[]) {
        for (const resource of [statement.Resource].flat()) pairs.push(`${action} ${render(resource, aliases)}${condition}`);
      }
    }
  }
  return pairs.sort();
}

/** Every policy document attached to a role, as one list of statements. */
export function managedPolicyArnsOf(template: Template, name: string): Json[] {
  const role = (functionProperties(template, name).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return (resources(template)[role].Properties?.ManagedPolicyArns as Json[] | undefined) ?? [];
}
