import type { Template } from 'aws-cdk-lib/assertions';
import { functionLogicalId, render, resources } from './template-queries.js';

/**
 * How the synthesised REST API routes a request: its resource tree, each resource's method and integration, and
 * API Gateway's matching of a path to a resource. Used by the API tests and the AWS-shaped suite (test/aws-shaped/).
 */

/** Full path of every API Gateway resource, by logical id. */
export function resourcePaths(template: Template): Record<string, string> {
  const all = resources(template, 'AWS::ApiGateway::Resource');
  const restApi = Object.keys(resources(template, 'AWS::ApiGateway::RestApi'))[0];
  const pathOf = (id: string): string => {
    const { ParentId, PathPart } = all[id].Properties as { ParentId: { 'Fn::GetAtt'?: [string, string]; Ref?: string }; PathPart: string };
    const parent = ParentId['Fn::GetAtt']?.[0] ?? ParentId.Ref;
    return parent === restApi ? `/${PathPart}` : `${pathOf(parent!)}/${PathPart}`;
  };
  return Object.fromEntries(Object.keys(all).map((id) => [id, pathOf(id)]));
}

export interface RouteView {
  method: string;
  target: 'gateway' | 'control-plane';
  mode: string;
  timeoutMs: number;
  uriTail: string;
}

/** path → how API Gateway serves it. */
export function routes(template: Template): Record<string, RouteView> {
  const paths = resourcePaths(template);
  const gateway = functionLogicalId(template, 'gateway');
  const controlPlane = functionLogicalId(template, 'control-plane');
  const aliases = { [gateway]: 'GATEWAY', [controlPlane]: 'CONTROL_PLANE' };
  const view: Record<string, RouteView> = {};
  for (const method of Object.values(resources(template, 'AWS::ApiGateway::Method'))) {
    const { ResourceId, HttpMethod, Integration } = method.Properties as {
      ResourceId: { Ref?: string };
      HttpMethod: string;
      Integration: { Type: string; Uri: unknown; ResponseTransferMode?: string; TimeoutInMillis: number };
    };
    if (Integration.Type !== 'AWS_PROXY') throw new Error(`${HttpMethod} ${ResourceId.Ref ?? '/'}: integration ${Integration.Type}, not AWS_PROXY`);
    const uri = render(Integration.Uri, aliases);
    const path = ResourceId.Ref ? paths[ResourceId.Ref] : '/';
    view[path] = {
      method: HttpMethod,
      target: uri.includes('GATEWAY') ? 'gateway' : 'control-plane',
      mode: Integration.ResponseTransferMode ?? 'BUFFERED',
      timeoutMs: Integration.TimeoutInMillis,
      uriTail: uri.slice(uri.lastIndexOf('/')),
    };
  }
  return view;
}

/** API Gateway's matching: per segment an exact child first, then a {variable} child, then {proxy+} for the rest. */
export function matchResource(resourceTree: string[], path: string): string | undefined {
  let current = '';
  const segments = path.split('/').filter(Boolean);
  for (let i = 0; i < segments.length; i++) {
    const children = resourceTree.filter((candidate) => candidate.startsWith(`${current}/`) && !candidate.slice(current.length + 1).includes('/'));
    const exact = children.find((child) => child === `${current}/${segments[i]}`);
    const variable = children.find((child) => /\/\{[^+}]+\}$/.test(child));
    const greedy = children.find((child) => child.endsWith('/{proxy+}'));
    if (exact ?? variable) current = (exact ?? variable)!;
    else return greedy;
  }
  return current || '/';
}
