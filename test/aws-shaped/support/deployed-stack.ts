import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { Template as AssertionsTemplate } from 'aws-cdk-lib/assertions';
import { ensureTables } from '../../../infra/local/embedded-store.js';
import { parseSettings } from '../../../shared/settings.js';
import { TABLES } from '../../../shared/store/table-definitions.js';
import { matchResource, routes, type RouteView } from '../../infra/support/api-routes.js';
import { synthGwStack } from '../../infra/support/synth.js';
import { functionLogicalIds, functionStatements, resolveValue, templateAuthorizer, type Statement, type Template } from '../../support/iam-policy.js';
import { startAwsStandIns, type AwsStandIns, type RequestLogResources } from './aws-stand-ins.js';
import { templateDeaggregation } from './firehose-stand-in.js';
import {
  API_GATEWAY_PAYLOAD_LIMIT_BYTES,
  LAMBDA_BUFFERED_RESPONSE_LIMIT_BYTES,
  LAMBDA_REQUEST_PAYLOAD_LIMIT_BYTES,
  LAMBDA_STREAMED_RESPONSE_LIMIT_BYTES,
  templateFrontDoor,
  type FrontDoorAnswer,
} from './front-door.js';

/**
 * The stack as deployed, on loopback: the synthesised template decides everything it decides on AWS (which function
 * a path reaches and whether it streams, each function's environment and IAM statements, the schedules' functions),
 * and each function is its BUILT bundle in a Lambda-like process of its own (lambda-runtime.mjs) with that
 * environment. The harness adds only what AWS would provide: credentials (one access key id per function, by which
 * the stand-ins know the caller and apply its statements), the endpoints of the stand-in services, loopback
 * upstreams allowed (the mock providers), and no X-Ray daemon.
 */
export const REGION = 'us-east-1';
export const ACCOUNT = '123456789012';
/** The secret half of every function's credentials (the access key ids differ: they name the function). */
export const FUNCTION_SECRET_ACCESS_KEY = 'aws-shaped-secret-access-key';
const RUNTIME = join(import.meta.dirname, 'lambda-runtime.mjs');

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** For streamed responses: each body write as the function made it. */
  bodyWrites: string[];
  /** Which function answered, and how. */
  route?: RouteView;
  /** Inside the sandbox: the invocation's duration, CPU time and the process's peak RSS. */
  sandbox?: { durationMs?: number; cpuMs?: number; maxRssKiB?: number };
  /** When AWS answered before or instead of the function: the WAF rule or the API Gateway response type. */
  answeredBy?: string;
}

interface Invocation {
  chunks: Buffer[];
  result?: unknown;
  error?: string;
  /** What the invocation cost inside the sandbox (bench/memory-choice.ts). */
  durationMs?: number;
  cpuMs?: number;
  maxRssKiB?: number;
}

/** The cold start of a function's sandbox: importing its bundle. */
export interface ColdStart {
  importMs: number;
  importCpuMs: number;
}

class LambdaProcess {
  private readonly pending = new Map<string, { invocation: Invocation; resolve: (invocation: Invocation) => void }>();
  readonly stderr: string[] = [];
  private constructor(readonly name: string, private readonly child: ChildProcess) {
    child.stderr?.on('data', (data: Buffer) => this.stderr.push(data.toString('utf8')));
    child.on('message', (message: { id?: string; chunk?: string; done?: boolean; result?: unknown; error?: string; durationMs?: number; cpuMs?: number; maxRssKiB?: number }) => {
      const entry = message.id ? this.pending.get(message.id) : undefined;
      if (!entry) return;
      if (message.chunk) entry.invocation.chunks.push(Buffer.from(message.chunk, 'base64'));
      if (message.done) {
        this.pending.delete(message.id!);
        const { result, error, durationMs, cpuMs, maxRssKiB } = message;
        entry.resolve({ ...entry.invocation, result, error, durationMs, cpuMs, maxRssKiB });
      }
    });
  }

  coldStart: ColdStart = { importMs: 0, importCpuMs: 0 };

  get pid(): number {
    return this.child.pid!;
  }

  static async start(name: string, bundleDir: string, env: Record<string, string>): Promise<LambdaProcess> {
    const child = fork(RUNTIME, [bundleDir], { cwd: bundleDir, env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], execArgv: [] });
    const lambda = new LambdaProcess(name, child);
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the ${name} bundle exited (${code}) before it was ready: ${lambda.stderr.join('')}`)));
      child.on('message', (message: { ready?: boolean } & ColdStart) => {
        if (!message.ready) return;
        lambda.coldStart = { importMs: message.importMs, importCpuMs: message.importCpuMs };
        resolve();
      });
    });
    child.removeAllListeners('exit');
    return lambda;
  }

  invoke(event: unknown): Promise<Invocation> {
    const id = randomUUID();
    return new Promise((resolve) => {
      this.pending.set(id, { invocation: { chunks: [] }, resolve });
      this.child.send({ id, event });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once('exit', () => resolve());
      this.child.kill();
    });
  }
}

export interface DeployedStack {
  stage: string;
  standIns: AwsStandIns;
  /** Every AWS call a function made that its statements do not allow (each test expects none). */
  denied: string[];
  /** Every AWS call checked, as `<function> <action> <resource>`. */
  checked: string[];
  /** Each function's IAM statements from the template, resolved; and the access key id each function signs with. */
  statements: Map<string, Statement[]>;
  accessKeyOf(name: string): string;
  /** What this process (the operator: bootstrap CLI, test set-up) uses, set in its environment: the store without IAM. */
  operatorEnv: Record<string, string>;
  /** The request-log resources as the template names them (workgroups, database, buckets), and the region. */
  logs: RequestLogResources & { region: string };
  /** A request through the stage; a Buffer body is sent as bytes (base64-encoded in the event for binary media types). */
  request(method: string, url: string, options?: { headers?: Record<string, string>; body?: unknown }): Promise<ApiResponse>;
  /** Each function's cold start (its bundle's import). */
  coldStarts: Record<string, ColdStart>;
  /** Each function's sandbox process (bench/memory-choice.ts moves the gateway's into CPU-limited cgroups). */
  pids: Record<string, number>;
  /** Invokes a scheduled function as its EventBridge rule does (at `time`, now by default). */
  runSchedule(name: 'expire-api-keys' | 'restore-budgets' | 'compact-request-logs', time?: Date): Promise<unknown>;
  close(): Promise<void>;
}

/** Where this test run records AWS operations (vitest.config.ts sets it; unset, nothing is recorded). */
function recordingEnv(): Record<string, string> {
  const directory = process.env.GW_RECORD_AWS_OPERATIONS_DIR;
  return directory ? { GW_RECORD_AWS_OPERATIONS_DIR: resolve(directory) } : {};
}

export async function deployStack(bundlesDir: string, options: { context?: Record<string, unknown> } = {}): Promise<DeployedStack> {
  const { stack, template } = synthGwStack({ context: options.context });
  const json = template.toJSON() as Template;
  const functionIds = functionLogicalIds(json);
  const variablesOf = (name: string) => (json.Resources[functionIds.get(name)!].Properties!.Environment as { Variables: Record<string, unknown> }).Variables;

  // Physical names: each table named as the settings name it by default, the bucket after its logical id.
  const defaults = parseSettings({});
  const names: Record<string, string> = {};
  for (const definition of TABLES) names[(variablesOf('gateway')[definition.nameSetting] as { Ref: string }).Ref] = defaults[definition.nameSetting];
  const bucketId = stack.getLogicalId(stack.blobs.bucket.node.defaultChild as never);
  names[bucketId] = bucketId.toLowerCase();
  // The request-log buckets likewise (the results bucket is named in the environment, the data bucket is Firehose's destination).
  const resultsId = (variablesOf('control-plane').GW_LOG_RESULTS_BUCKET as { Ref: string }).Ref;
  names[resultsId] = resultsId.toLowerCase();
  const stream = Object.values(json.Resources).find((resource) => resource.Type === 'AWS::KinesisFirehose::DeliveryStream')!;
  const dataId = (stream.Properties!.ExtendedS3DestinationConfiguration as { BucketARN: { 'Fn::GetAtt': [string, string] } }).BucketARN['Fn::GetAtt'][0];
  names[dataId] = dataId.toLowerCase();
  const place = { region: REGION, account: ACCOUNT, names };

  const accessKeyOf = (name: string) => `AKIDGW${name.toUpperCase().replace(/-/g, '')}`;
  const functionByKey = new Map([...functionIds.keys()].map((name) => [accessKeyOf(name), name]));
  const statements = functionStatements(json, place);
  const authorize = templateAuthorizer(statements, (key) => (key ? functionByKey.get(key) : undefined));
  const logVariable = (name: string) => String(resolveValue(json, variablesOf('control-plane')[name], place));
  const outputLocationOf = (name: string) => {
    const workgroup = Object.values(json.Resources).find((resource) => resource.Type === 'AWS::Athena::WorkGroup' && resource.Properties?.Name === name)!;
    const configuration = workgroup.Properties!.WorkGroupConfiguration as { ResultConfiguration: { OutputLocation: unknown } };
    return String(resolveValue(json, configuration.ResultConfiguration.OutputLocation, place));
  };
  const logs = {
    streams: { requests: logVariable('GW_LOG_STREAM_REQUESTS'), spans: logVariable('GW_LOG_STREAM_SPANS') },
    workgroup: logVariable('GW_ATHENA_WORKGROUP'),
    outputLocation: outputLocationOf(logVariable('GW_ATHENA_WORKGROUP')),
    deaggregation: templateDeaggregation(json),
    compaction: { workgroup: logVariable('GW_ATHENA_COMPACTION_WORKGROUP'), outputLocation: outputLocationOf(logVariable('GW_ATHENA_COMPACTION_WORKGROUP')) },
    database: logVariable('GW_ATHENA_DATABASE'),
    dataBucket: names[dataId],
    resultsBucket: names[resultsId],
  };
  const standIns = await startAwsStandIns({ region: REGION, account: ACCOUNT, bucket: names[bucketId], logs, authorize });
  // This process is the operator: its own store access (bootstrap, set-up, assertions) goes to the store directly,
  // without IAM in front; set before anything here reads the process's settings (they are parsed once).
  const operatorEnv = { GW_DYNAMODB_ENDPOINT: standIns.dynaliteUrl, AWS_REGION: REGION };
  Object.assign(process.env, operatorEnv);
  await ensureTables(standIns.dynaliteUrl, REGION, TABLES.map((definition) => ({ definition, name: defaults[definition.nameSetting] })));

  const lambdas = new Map<string, LambdaProcess>();
  await Promise.all(
    [...functionIds].map(async ([name, id]) => {
      const properties = json.Resources[id].Properties as { MemorySize: number; Timeout: number; Environment: { Variables: Record<string, unknown> } };
      const bundleDir = join(bundlesDir, name);
      const environment = Object.fromEntries(Object.entries(properties.Environment.Variables).map(([key, value]) => [key, String(resolveValue(json, value, place))]));
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '',
        ...environment,
        // What the Lambda service provides.
        AWS_REGION: REGION,
        AWS_LAMBDA_FUNCTION_NAME: `gw-${name}`,
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(properties.MemorySize),
        LAMBDA_TASK_ROOT: bundleDir,
        AWS_ACCESS_KEY_ID: accessKeyOf(name),
        AWS_SECRET_ACCESS_KEY: FUNCTION_SECRET_ACCESS_KEY,
        AWS_SESSION_TOKEN: 'aws-shaped-session',
        // The /var/task of this sandbox.
        ...(environment.GW_CONSOLE_DIR ? { GW_CONSOLE_DIR: environment.GW_CONSOLE_DIR.replace('/var/task', bundleDir) } : {}),
        // The harness's additions: the stand-ins' endpoints, loopback mock providers, no X-Ray daemon.
        GW_DYNAMODB_ENDPOINT: standIns.dynamodbUrl,
        GW_S3_ENDPOINT: standIns.s3Url,
        GW_SECRETS_MANAGER_ENDPOINT: standIns.secretsManagerUrl,
        GW_FIREHOSE_ENDPOINT: standIns.firehoseUrl,
        GW_ATHENA_ENDPOINT: standIns.athenaUrl,
        GW_ALLOW_LOOPBACK_HOSTS: 'ON',
        POWERTOOLS_TRACE_ENABLED: 'false',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        GW_HARNESS_TIMEOUT_MS: String(properties.Timeout * 1000),
        // The bundles record the AWS operations they issue, each under its function (labelHandler), where the test
        // run's recordings go: scripts/check-grants.ts after this suite alone then checks every call the functions
        // made here, not 0 (issue #43). Absolute, since each sandbox runs in its own directory.
        ...recordingEnv(),
      };
      lambdas.set(name, await LambdaProcess.start(name, bundleDir, env));
    }),
  );

  const view = routes(template as AssertionsTemplate);
  const tree = Object.keys(view);
  const stage = (Object.values(json.Resources).find((resource) => resource.Type === 'AWS::ApiGateway::Stage')!.Properties as { StageName: string }).StageName;
  const frontDoor = templateFrontDoor(json);
  const answered = (answer: FrontDoorAnswer): ApiResponse => ({ ...answer, bodyWrites: [answer.body] });

  async function request(method: string, url: string, options: { headers?: Record<string, string>; body?: unknown } = {}): Promise<ApiResponse> {
    const target = new URL(url, 'https://api.aws-shaped.test');
    const bytes = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body), 'utf8');
    // What the client sends and the WAF inspects (an HTTP client sets content-length from the body).
    const sent = { ...(bytes ? { 'Content-Type': 'application/json' } : {}), ...options.headers, ...(bytes ? { 'content-length': String(bytes.length) } : {}) };
    const blocked = frontDoor.firewall(sent);
    if (blocked) return answered(blocked);
    if (bytes && bytes.length > API_GATEWAY_PAYLOAD_LIMIT_BYTES) return answered(frontDoor.gatewayResponse('REQUEST_TOO_LARGE', 413, 'Request Too Large'));
    const prefix = `/${stage}`;
    const forbidden = (message: string): ApiResponse => ({ status: 403, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }), bodyWrites: [] });
    if (target.pathname !== prefix && !target.pathname.startsWith(`${prefix}/`)) return forbidden('Forbidden');
    const path = target.pathname.slice(prefix.length) || '/';
    const resource = matchResource(tree, path);
    if (!resource) return forbidden('Missing Authentication Token');
    const route = view[resource];
    const headers: Record<string, string> = { ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}), Host: target.host, ...options.headers };
    const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    const binary = bytes !== undefined && frontDoor.isBinary(contentType);
    const query = Object.fromEntries(target.searchParams);
    const proxy = resource.endsWith('/{proxy+}') ? { proxy: path.slice(resource.length - '{proxy+}'.length) } : null;
    const event = {
      resource,
      path,
      httpMethod: method,
      headers,
      multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
      queryStringParameters: Object.keys(query).length ? query : null,
      multiValueQueryStringParameters: Object.keys(query).length ? Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]])) : null,
      pathParameters: proxy,
      stageVariables: null,
      requestContext: { requestId: randomUUID(), stage, path: target.pathname, resourcePath: resource, httpMethod: method, identity: { sourceIp: '203.0.113.9' } },
      body: bytes === undefined ? null : bytes.toString(binary ? 'base64' : 'utf8'),
      isBase64Encoded: binary,
    };
    // Lambda refuses an event past its payload limit (the JSON as sent: escapes and base64 count) before the
    // function runs; API Gateway then answers its 5XX. The function never sees the request.
    if (Buffer.byteLength(JSON.stringify(event)) > LAMBDA_REQUEST_PAYLOAD_LIMIT_BYTES) return answered(frontDoor.gatewayResponse('DEFAULT_5XX', 500, 'Internal server error'));
    const lambda = lambdas.get(route.target)!;
    const invocation = await lambda.invoke(event);
    if (invocation.error) throw new Error(`${route.target} failed: ${invocation.error}\n${lambda.stderr.join('')}`);
    if (route.mode === 'STREAM') {
      // A stream past Lambda's streamed-response limit is cut there: the client sees the body end early.
      const all = Buffer.concat(invocation.chunks).subarray(0, LAMBDA_STREAMED_RESPONSE_LIMIT_BYTES);
      const delimiter = all.indexOf(Buffer.alloc(8));
      const prelude = JSON.parse(all.subarray(0, delimiter).toString('utf8')) as { statusCode: number; headers: Record<string, string> };
      let offset = 0;
      const bodyWrites: string[] = [];
      for (const chunk of invocation.chunks) {
        const start = offset;
        offset += chunk.length;
        if (offset > delimiter + 8) bodyWrites.push(chunk.subarray(Math.max(0, delimiter + 8 - start)).toString('utf8'));
      }
      const sandbox = { durationMs: invocation.durationMs, cpuMs: invocation.cpuMs, maxRssKiB: invocation.maxRssKiB };
      return { status: prelude.statusCode, headers: prelude.headers, body: all.subarray(delimiter + 8).toString('utf8'), bodyWrites, route, sandbox };
    }
    // A buffered result past Lambda's response limit fails the invocation: API Gateway answers 502.
    if (Buffer.byteLength(JSON.stringify(invocation.result ?? null)) > LAMBDA_BUFFERED_RESPONSE_LIMIT_BYTES) return answered(frontDoor.gatewayResponse('DEFAULT_5XX', 502, 'Internal server error'));
    const result = invocation.result as { statusCode: number; headers?: Record<string, string>; body?: string; isBase64Encoded?: boolean };
    const body = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64').toString('utf8') : (result.body ?? '');
    const sandbox = { durationMs: invocation.durationMs, cpuMs: invocation.cpuMs, maxRssKiB: invocation.maxRssKiB };
    return { status: result.statusCode, headers: result.headers ?? {}, body, bodyWrites: [body], route, sandbox };
  }

  async function runSchedule(name: 'expire-api-keys' | 'restore-budgets' | 'compact-request-logs', time = new Date()): Promise<unknown> {
    const rule = Object.values(json.Resources).find(
      (resource) => resource.Type === 'AWS::Events::Rule' && JSON.stringify(resource.Properties?.Targets ?? []).includes(functionIds.get(name)!),
    );
    if (!rule) throw new Error(`no EventBridge rule targets ${name}`);
    const event = {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: ACCOUNT,
      time: time.toISOString(),
      region: REGION,
      resources: [`arn:aws:events:${REGION}:${ACCOUNT}:rule/gw-${name}`],
      detail: {},
    };
    const lambda = lambdas.get(name)!;
    const invocation = await lambda.invoke(event);
    if (invocation.error) throw new Error(`${name} failed: ${invocation.error}\n${lambda.stderr.join('')}`);
    return invocation.result;
  }

  return {
    stage,
    standIns,
    denied: authorize.denied,
    checked: authorize.checked,
    statements,
    accessKeyOf,
    operatorEnv,
    logs: { ...logs, region: REGION },
    coldStarts: Object.fromEntries([...lambdas].map(([name, lambda]) => [name, lambda.coldStart])),
    pids: Object.fromEntries([...lambdas].map(([name, lambda]) => [name, lambda.pid])),
    request,
    runSchedule,
    async close() {
      await Promise.all([...lambdas.values()].map((lambda) => lambda.close()));
      await standIns.close();
    },
  };
}
