import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerResourceRoutes } from '../../shared/control-plane/routes.js';
import { GATEWAY_PATHS, isGatewayPath } from '../../shared/gateway/edge-routes.js';
import { synthGwStack } from './support/synth.js';
import { matchResource, routes } from './support/api-routes.js';
import { functionLogicalId, render, resources } from './support/template-queries.js';

describe('the REST API', () => {
  let template: Template;
  beforeAll(() => {
    ({ template } = synthGwStack());
  });

  it('is a regional REST API named after the stack', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: 'gw', EndpointConfiguration: { Types: ['REGIONAL'] } });
    // Multipart uploads (images/edits, audio/transcriptions) reach the gateway base64-encoded, not mangled as text.
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['multipart/form-data'] });
  });

  it("declares API Gateway's execution log group so it gets the stack's retention", () => {
    const restApi = Object.keys(resources(template, 'AWS::ApiGateway::RestApi'))[0];
    template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: { 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: restApi }, '/prod']] },
      RetentionInDays: 30,
    });
    const [logGroup] = Object.entries(resources(template, 'AWS::Logs::LogGroup')).find(([, group]) => JSON.stringify(group.Properties?.LogGroupName ?? '').includes('Execution-Logs'))!;
    const stage = Object.values(resources(template, 'AWS::ApiGateway::Stage'))[0] as { DependsOn?: string[] };
    expect(stage.DependsOn).toContain(logGroup);
  });

  it('streams every gateway path from the gateway Lambda with a 15-minute integration timeout', () => {
    const view = routes(template);
    for (const path of GATEWAY_PATHS) {
      expect(view[path]).toEqual({ method: 'ANY', target: 'gateway', mode: 'STREAM', timeoutMs: 900_000, uriTail: '/response-streaming-invocations' });
    }
  });

  it('sends every other path under /v1 to the control plane, buffered, within 29 s', () => {
    const view = routes(template);
    const controlPlanePaths = Object.keys(view).filter((path) => !GATEWAY_PATHS.includes(path));
    // /v1, /v1/{proxy+}, and each parent and child the gateway paths create (e.g. /v1/chat, /v1/chat/{proxy+}).
    expect(controlPlanePaths).toEqual(expect.arrayContaining(['/v1', '/v1/{proxy+}', '/v1/chat', '/v1/chat/{proxy+}', '/v1/chat/completions/{proxy+}']));
    for (const path of controlPlanePaths) {
      expect(view[path]).toEqual({ method: 'ANY', target: 'control-plane', mode: 'BUFFERED', timeoutMs: 29_000, uriTail: '/invocations' });
    }
    // Outside /v1 only the root and everything below it (/health, …), through the control plane like locally.
    const outside = controlPlanePaths.filter((path) => !path.startsWith('/v1'));
    expect(outside).toEqual(expect.arrayContaining(['/', '/{proxy+}']));
    expect(outside.filter((path) => !['/', '/{proxy+}'].includes(path)).every((path) => GATEWAY_PATHS.some((gateway) => path.startsWith(`${gateway}/`)))).toBe(true);
  });

  it('routes any request path to the same function as the local runtime (isGatewayPath), /health and the root included', () => {
    const view = routes(template);
    const resourceTree = Object.keys(view);
    const match = (path: string) => matchResource(resourceTree, path);
    const concrete = GATEWAY_PATHS.map((path) => path.replace(/\{[^}]+\}/g, 'abc'));
    const samples = [
      ...concrete,
      ...concrete.map((path) => `${path}/extra`),
      ...concrete.map((path) => path.slice(0, path.lastIndexOf('/'))),
      '/v1',
      '/v1/models',
      '/v1/workspaces/ws_1/members/u_1',
      '/v1/prompts',
      '/v1/prompts/abc',
      '/v1/prompts/abc/versions/2',
      '/',
      '/health',
      '/console/index.html',
      '/v2/anything',
      // Wrong base URLs reach the control plane, which answers them with the path gw serves (shared/http/unknown-path.ts).
      '/chat/completions',
      '/messages',
      '/v1/v1/messages',
      '/v1/v1/chat/completions',
    ];
    for (const path of samples) {
      const resource = match(path);
      expect(resource, `${path} matches no resource`).toBeDefined();
      expect(view[resource!].target, path).toBe(isGatewayPath(path) ? 'gateway' : 'control-plane');
    }
  });

  it("sends every route the control-plane router registers to the control plane, as the local server does", () => {
    const view = routes(template);
    const registered: string[] = [];
    registerResourceRoutes((method, pattern) => registered.push(`${method} ${pattern}`));
    expect(registered.length).toBeGreaterThan(20);
    for (const route of registered) {
      const path = route.split(' ')[1].replace(/\{[^}]+\}/g, 'abc');
      expect(isGatewayPath(path), `${route} is served by the gateway locally`).toBe(false);
      const resource = matchResource(Object.keys(view), path);
      expect(resource, `${route} matches no API Gateway resource`).toBeDefined();
      expect(view[resource!], route).toMatchObject({ method: 'ANY', target: 'control-plane', mode: 'BUFFERED' });
    }
  });

  it('lets this API, and only it, invoke the gateway and the control plane', () => {
    const restApi = Object.keys(resources(template, 'AWS::ApiGateway::RestApi'))[0];
    const permissions = Object.values(resources(template, 'AWS::Lambda::Permission'))
      .map((permission) => permission.Properties ?? {})
      .filter((properties) => properties.Principal === 'apigateway.amazonaws.com');
    expect(permissions).toHaveLength(2);
    for (const name of ['gateway', 'control-plane']) {
      const permission = permissions.find((properties) => JSON.stringify(properties.FunctionName) === JSON.stringify({ 'Fn::GetAtt': [functionLogicalId(template, name), 'Arn'] }));
      expect(permission?.Action).toBe('lambda:InvokeFunction');
      expect(render(permission?.SourceArn, { [restApi]: 'THIS_API' })).toBe('arn:${Partition}:execute-api:${Region}:${AccountId}:THIS_API/*/*/*');
    }
  });

  it('deploys a stage with JSON access logs, throttling defaults, X-Ray and error-level execution logs without bodies', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('"status":"\\$context.status"') },
      MethodSettings: [
        Match.objectLike({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200, LoggingLevel: 'ERROR', DataTraceEnabled: false }),
      ],
    });
    const format = (Object.values(resources(template, 'AWS::ApiGateway::Stage'))[0].Properties?.AccessLogSetting as { Format: string }).Format;
    // The lean default (apiAccessLog; the full set is test/infra/cost-options.test.ts's).
    expect(Object.keys(JSON.parse(format) as object)).toEqual(expect.arrayContaining(['requestId', 'ip', 'method', 'path', 'status', 'latency', 'errorType']));
    expect(format.toLowerCase()).not.toContain('api-key');
  });

  it("answers API Gateway's own errors in gw's error shape", () => {
    const byType: Record<string, Record<string, unknown>> = Object.fromEntries(
      Object.values(resources(template, 'AWS::ApiGateway::GatewayResponse')).map((response) => [String(response.Properties?.ResponseType), response.Properties ?? {}]),
    );
    expect(Object.keys(byType).sort()).toEqual(['DEFAULT_4XX', 'DEFAULT_5XX', 'INTEGRATION_TIMEOUT', 'MISSING_AUTHENTICATION_TOKEN', 'REQUEST_TOO_LARGE', 'THROTTLED']);
    expect(byType.MISSING_AUTHENTICATION_TOKEN?.StatusCode).toBe('404');
    expect(byType.THROTTLED?.StatusCode).toBe('429');
    expect(byType.INTEGRATION_TIMEOUT?.StatusCode).toBe('504');
    expect(byType.REQUEST_TOO_LARGE?.StatusCode).toBe('413');
    for (const response of Object.values(byType)) {
      const body = (response.ResponseTemplates as Record<string, string>)['application/json'];
      // Fill the mapping variables the way API Gateway does, then check the shape.
      const filled = body.replace('$context.error.messageString', '"Too Many Requests"').replace('$context.error.responseType', 'THROTTLED');
      expect(JSON.parse(filled)).toEqual({ error: { message: expect.any(String), type: expect.any(String), code: expect.any(String), param: null }, status: 'failure' });
    }
  });

  it('has no custom domain unless configured, and the production WAF in front of the stage', () => {
    template.resourceCountIs('AWS::ApiGateway::DomainName', 0);
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
  });
});

describe('the REST API with a custom domain and a WAF web ACL', () => {
  const certificateArn = 'arn:aws:acm:eu-west-1:123456789012:certificate/abcd';
  const webAclArn = 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/gw/1234';
  let template: Template;
  beforeAll(() => {
    ({ template } = synthGwStack({
      context: { domainName: 'ai.example.com', certificateArn, hostedZoneId: 'Z123', hostedZoneName: 'example.com', webAclArn, apiExecutionLogging: 'OFF' },
    }));
  });

  it('serves the API on the domain with TLS 1.2 and an alias record in the hosted zone', () => {
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'ai.example.com',
      RegionalCertificateArn: certificateArn,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    template.hasResourceProperties('AWS::ApiGateway::BasePathMapping', { DomainName: Match.anyValue(), Stage: Match.anyValue() });
    template.hasResourceProperties('AWS::Route53::RecordSet', { Name: 'ai.example.com.', Type: 'A', HostedZoneId: 'Z123' });
  });

  it('associates the web ACL with the stage, once the stage exists', () => {
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', { WebACLArn: webAclArn, ResourceArn: Match.anyValue() });
    const association = Object.values(resources(template, 'AWS::WAFv2::WebACLAssociation'))[0] as { DependsOn?: string[] };
    const stage = Object.keys(resources(template, 'AWS::ApiGateway::Stage'))[0];
    expect(association.DependsOn).toContain(stage);
  });

  it('switches execution logging off, and with it the account-level CloudWatch role', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', { MethodSettings: [Match.objectLike({ LoggingLevel: 'OFF' })] });
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
    const names = Object.values(resources(template, 'AWS::Logs::LogGroup')).map((group) => JSON.stringify(group.Properties?.LogGroupName ?? ''));
    expect(names.filter((name) => name.includes('API-Gateway-Execution-Logs'))).toEqual([]);
  });
});
