import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseTransferMode,
  ResponseType,
  RestApi,
  SecurityPolicy,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGateway } from 'aws-cdk-lib/aws-route53-targets';
import { CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { GATEWAY_PATHS } from '../../../shared/gateway/edge-routes.js';
import { PAYLOAD_TOO_LARGE_MESSAGE } from './web-acl.js';

/** API Gateway's ceiling for a streamed response, and so for the gateway integration. */
export const STREAMING_INTEGRATION_TIMEOUT = Duration.minutes(15);
/** A regional streamed response is cut after this long without a byte. */
export const STREAMING_IDLE_TIMEOUT = Duration.minutes(5);
/** API Gateway's default ceiling for a buffered integration (more needs a quota increase). */
export const BUFFERED_INTEGRATION_TIMEOUT = Duration.seconds(29);

export interface GwRestApiProps {
  gateway: IFunction;
  controlPlane: IFunction;
  stageName: string;
  throttleRateLimit: number;
  throttleBurstLimit: number;
  executionLogging: 'OFF' | 'ERROR' | 'INFO';
  /** The stage's access log: every field, the lean set, or none (config.ts apiAccessLog). */
  accessLog: 'full' | 'lean' | 'off';
  /** Whether the stage traces with X-Ray (sampled by the stack's rule, gw-stack.ts). */
  tracing: boolean;
  logRetention: RetentionDays;
  production: boolean;
  domain?: { domainName: string; certificateArn: string; hostedZone?: { id: string; name: string } };
  webAclArn?: string;
}

/**
 * The public edge: a regional REST API. The paths in GATEWAY_PATHS (shared with the local runtime) go to the
 * gateway Lambda through a response-streaming integration; every other path (the root and /health included) goes to
 * the control plane through a buffered one, exactly as the local server routes. API Gateway's own errors
 * (throttling, timeouts) answer in gw's error shape.
 */
export class GwRestApi extends Construct {
  readonly api: RestApi;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: GwRestApiProps) {
    super(scope, id);
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    const executionLogs = props.executionLogging !== 'OFF';
    this.api = new RestApi(this, 'Api', {
      // Named after the stack: CloudWatch's API Gateway metrics are keyed by API name, so two gw stacks in one
      // account and region must not share one.
      restApiName: Stack.of(this).stackName,
      description: 'gw: OpenAI-compatible AI gateway and its control plane',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // Uploads (images/edits, audio/transcriptions) reach the Lambda base64-encoded, byte for byte; as text,
      // API Gateway would mangle the files. The Lambda edge decodes isBase64Encoded bodies.
      binaryMediaTypes: ['multipart/form-data'],
      // Execution logs need API Gateway's account-wide CloudWatch role; it is kept when the stack is deleted
      // because other APIs in the account and region rely on the same setting.
      cloudWatchRole: executionLogs,
      cloudWatchRoleRemovalPolicy: executionLogs ? RemovalPolicy.RETAIN : undefined,
      deployOptions: {
        stageName: props.stageName,
        ...(props.accessLog === 'off' ? {} : { accessLogDestination: new LogGroupLogDestination(this.accessLogs), accessLogFormat: accessLogFormat(props.accessLog) }),
        throttlingRateLimit: props.throttleRateLimit,
        throttlingBurstLimit: props.throttleBurstLimit,
        tracingEnabled: props.tracing,
        loggingLevel: executionLogs ? MethodLoggingLevel[props.executionLogging] : MethodLoggingLevel.OFF,
        // Never log bodies or headers: they carry API keys and provider credentials.
        dataTraceEnabled: false,
        metricsEnabled: false,
      },
    });
    if (executionLogs) this.retainExecutionLogs(props);
    this.addRoutes(props.gateway, props.controlPlane);
    this.addErrorResponses();
    if (props.domain) this.addDomain(props.domain);
    if (props.webAclArn) {
      const association = new CfnWebACLAssociation(this, 'WebAcl', { resourceArn: this.api.deploymentStage.stageArn, webAclArn: props.webAclArn });
      // The stage ARN is built from names, not a reference: without this the association could precede the stage.
      association.node.addDependency(this.api.deploymentStage);
    }
    this.acknowledgeNagRules(Boolean(props.webAclArn), executionLogs);
    if (props.accessLog === 'off') {
      Validations.of(this.api).acknowledge({ id: 'AwsSolutions-APIG1', reason: 'Access logging was switched off with apiAccessLog=off (CloudWatch Logs per request); API Gateway metrics, the WAF\'s sampled requests and gw\'s own request logs remain.' });
    }
  }

  /** The base URL clients use (`…/<stage>/v1`), e.g. as the OpenAI SDK's baseURL. */
  get v1Url(): string {
    return `${this.api.url}v1`;
  }

  /**
   * API Gateway creates its execution log group on first use, with no retention; declaring it first gives it the
   * stack's retention and removal policy.
   */
  private retainExecutionLogs(props: GwRestApiProps): void {
    const executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${props.stageName}`,
      retention: props.logRetention,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    // The stage starts logging once it exists: the group must be there first, or API Gateway creates it itself.
    this.api.deploymentStage.node.addDependency(executionLogs);
  }

  private addRoutes(gateway: IFunction, controlPlane: IFunction): void {
    const streamed = new LambdaIntegration(gateway, {
      responseTransferMode: ResponseTransferMode.STREAM,
      timeout: STREAMING_INTEGRATION_TIMEOUT,
      // One permission for the whole API instead of one per method, keeping the function's policy small.
      scopePermissionToMethod: false,
    });
    const buffered = new LambdaIntegration(controlPlane, { timeout: BUFFERED_INTEGRATION_TIMEOUT, scopePermissionToMethod: false });

    const gatewayResources = new Set<IResource>();
    for (const path of GATEWAY_PATHS) gatewayResources.add(resourceFor(this.api.root, path));
    if (!this.api.root.getResource('v1')) this.api.root.addResource('v1');

    // Every resource answers, as on the local server (infra/local/server.ts): gateway paths through the gateway;
    // every other resource (the root and /health included, and the parents the gateway paths created, such as
    // /v1/chat) and everything below it through the control plane, so no request falls into API Gateway's
    // "Missing Authentication Token" and a route that works locally cannot 404 on AWS.
    const visit = (resource: IResource) => {
      resource.addMethod('ANY', gatewayResources.has(resource) ? streamed : buffered);
      const children = childrenOf(resource);
      if (!children.some((child) => child.path.endsWith('}'))) resource.addResource('{proxy+}').addMethod('ANY', buffered);
      for (const child of children) visit(child);
    };
    visit(this.api.root);
  }

  private addErrorResponses(): void {
    const body = (type: string, code: string, message: string) =>
      `{"error":{"message":${message},"type":"${type}","code":${code},"param":null},"status":"failure"}`;
    const responseType = '"$context.error.responseType"';
    const message = '$context.error.messageString';
    const json = (template: string) => ({ 'application/json': template });
    this.api.addGatewayResponse('UnknownPath', {
      type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
      statusCode: '404',
      templates: json(body('invalid_request_error', '"not_found"', '"Unknown path"')),
    });
    this.api.addGatewayResponse('Throttled', {
      type: ResponseType.THROTTLED,
      statusCode: '429',
      templates: json(body('rate_limit_error', '"rate_limited"', message)),
    });
    // A body past API Gateway's own 10 MB limit never reaches a function (smaller ones past Lambda's 6 MB are the
    // WAF's, web-acl.ts): the same 413 and advice as the WAF's.
    this.api.addGatewayResponse('RequestTooLarge', {
      type: ResponseType.REQUEST_TOO_LARGE,
      statusCode: '413',
      templates: json(body('invalid_request_error', '"payload_too_large"', JSON.stringify(PAYLOAD_TOO_LARGE_MESSAGE))),
    });
    this.api.addGatewayResponse('IntegrationTimeout', {
      type: ResponseType.INTEGRATION_TIMEOUT,
      statusCode: '504',
      templates: json(body('api_error', '"gateway_timeout"', message)),
    });
    this.api.addGatewayResponse('Default4xx', { type: ResponseType.DEFAULT_4XX, templates: json(body('invalid_request_error', responseType, message)) });
    this.api.addGatewayResponse('Default5xx', { type: ResponseType.DEFAULT_5XX, templates: json(body('api_error', responseType, message)) });
  }

  private addDomain(domain: NonNullable<GwRestApiProps['domain']>): void {
    this.api.addDomainName('Domain', {
      domainName: domain.domainName,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    if (domain.hostedZone) {
      new ARecord(this, 'DomainAlias', {
        zone: HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId: domain.hostedZone.id, zoneName: domain.hostedZone.name }),
        recordName: domain.domainName,
        target: RecordTarget.fromAlias(new ApiGateway(this.api)),
      });
    }
  }

  private acknowledgeNagRules(hasWebAcl: boolean, executionLogs: boolean): void {
    const acknowledge = (id: string, reason: string) => Validations.of(this.api).acknowledge({ id, reason });
    acknowledge(
      'AwsSolutions-APIG2',
      'Request validation happens in the functions: every body is parsed with the zod schemas that are the single source of truth for the API, so errors carry gw\'s error shape and the JSON path that failed.',
    );
    acknowledge(
      'AwsSolutions-APIG4',
      'gw authenticates every request itself (x-gw-api-key, stored as a SHA-256 hash, or a JWT on control-plane routes) and enforces scopes and workspaces per route; an API Gateway authorizer would duplicate that and add latency to every streamed call.',
    );
    acknowledge('AwsSolutions-COG4', 'Callers are machines holding gw API keys, not Cognito users; see AwsSolutions-APIG4.');
    if (!hasWebAcl) {
      acknowledge('AwsSolutions-APIG3', 'A WAF web ACL is optional (context key webAclArn) because it is priced per request; deployments that want one set it.');
    }
    if (!executionLogs) {
      acknowledge('AwsSolutions-APIG6', 'Execution logging was switched off with apiExecutionLogging=OFF; access logs and the functions\' own logs remain.');
      return;
    }
    const cloudWatchRole = this.api.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole) {
      Validations.of(cloudWatchRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: 'API Gateway\'s account-level logging role: AmazonAPIGatewayPushToCloudWatchLogs is the policy AWS documents and maintains for exactly this role.',
      });
    }
  }
}

/** Creates (or finds) the resource for a path such as `/v1/chat/completions`. */
function resourceFor(root: IResource, path: string): IResource {
  let resource = root;
  for (const segment of path.split('/').filter(Boolean)) resource = resource.getResource(segment) ?? resource.addResource(segment);
  return resource;
}

function childrenOf(resource: IResource): IResource[] {
  return resource.node.children.filter((child): child is IResource & Construct => 'addMethod' in child && 'path' in child);
}

function accessLogFormat(format: 'full' | 'lean'): AccessLogFormat {
  // Request metadata only: no headers, no bodies, no API keys. Lean keeps what an investigation starts from (which
  // request, who, what, how it ended, how long) at about half the bytes per line: CloudWatch bills every byte.
  if (format === 'lean') {
    return AccessLogFormat.custom(
      JSON.stringify({
        requestId: AccessLogField.contextRequestId(),
        time: AccessLogField.contextRequestTimeEpoch(),
        ip: AccessLogField.contextIdentitySourceIp(),
        method: AccessLogField.contextHttpMethod(),
        path: AccessLogField.contextPath(),
        status: AccessLogField.contextStatus(),
        latency: AccessLogField.contextResponseLatency(),
        errorType: AccessLogField.contextErrorResponseType(),
        waf: AccessLogField.contextWafResponseCode(),
      }),
    );
  }
  return AccessLogFormat.custom(
    JSON.stringify({
      requestId: AccessLogField.contextRequestId(),
      extendedRequestId: AccessLogField.contextExtendedRequestId(),
      requestTime: AccessLogField.contextRequestTime(),
      ip: AccessLogField.contextIdentitySourceIp(),
      userAgent: AccessLogField.contextIdentityUserAgent(),
      httpMethod: AccessLogField.contextHttpMethod(),
      resourcePath: AccessLogField.contextResourcePath(),
      path: AccessLogField.contextPath(),
      protocol: AccessLogField.contextProtocol(),
      status: AccessLogField.contextStatus(),
      responseLength: AccessLogField.contextResponseLength(),
      responseLatency: AccessLogField.contextResponseLatency(),
      integrationLatency: AccessLogField.contextIntegrationLatency(),
      integrationStatus: AccessLogField.contextIntegrationStatus(),
      errorMessage: AccessLogField.contextErrorMessage(),
      errorType: AccessLogField.contextErrorResponseType(),
      wafResponseCode: AccessLogField.contextWafResponseCode(),
      xrayTraceId: AccessLogField.contextXrayTraceId(),
    }),
  );
}
