import { basename, extname, join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, Architecture, Code, LoggingFormat, Runtime, SystemLogLevel, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { LAMBDA_BUNDLE } from '../bundle-options.js';
import type { FunctionSpec } from '../function-table.js';
import { LAMBDA_NODE_RUNTIME_NAME } from '../lambda-node.js';
import { nodejsBundlingOptions } from '../nodejs-bundling.js';

export interface GwFunctionProps {
  spec: FunctionSpec;
  /** Absolute path of the repository (where package-lock.json is). */
  projectRoot: string;
  /** The handler file, absolute; defaults to the spec's entry under projectRoot. */
  entry?: string;
  /** X-Ray tracing mode (default active; the gateway passes through when the stack traces nothing). */
  tracing?: Tracing;
  /**
   * A directory holding this function's already-built bundle (`index.mjs`, from `npm run build`). When given, it
   * is deployed as is instead of being bundled again, so what ships is exactly what was built and measured.
   */
  prebuiltBundleDir?: string;
  environment: Record<string, string>;
  memoryMb?: number;
  reservedConcurrency?: number;
  logRetention: RetentionDays;
  production: boolean;
  /**
   * Lambda's own log lines (`lambdaSystemLogLevel`). `WARN` drops START, END and REPORT of every successful invocation
   * and needs the JSON log format (log-level filtering works on JSON only); unset or `INFO` leaves Lambda's defaults.
   */
  systemLogLevel?: 'INFO' | 'WARN';
  /** gw's own log level (POWERTOOLS_LOG_LEVEL), which Lambda's application filter must let through. */
  logLevel?: string;
  /** NODE_OPTIONS=--enable-source-maps (the `sourceMaps` context key): each cold start then reads the .map files. */
  sourceMaps: boolean;
}

/** The CDK runtime named by LAMBDA_NODE_MAJOR (lambda-node.ts), the fixed one, not the moving `NODEJS_LATEST`. */
function lambdaNodeRuntime(): Runtime {
  const runtime = Runtime.ALL.find((candidate) => candidate.name === LAMBDA_NODE_RUNTIME_NAME && !candidate.isVariable);
  if (!runtime) throw new Error(`aws-cdk-lib knows no Lambda runtime ${LAMBDA_NODE_RUNTIME_NAME} (infra/cdk/lambda-node.ts)`);
  return runtime;
}

/**
 * One gw Lambda: nodejs24.x on arm64, bundled by the project's esbuild with the shared options, X-Ray active, its
 * own log group with a retention, and its own role that starts empty: the only permissions it gets are writing to
 * its log group, X-Ray, and whatever the stack grants from the function table.
 */
export class GwFunction extends Construct {
  readonly spec: FunctionSpec;
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: GwFunctionProps) {
    super(scope, id);
    const { spec } = props;
    this.spec = spec;
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `gw ${spec.name} function`,
    });
    this.logGroup.grantWrite(this.role);

    const code = props.prebuiltBundleDir
      ? { code: Code.fromAsset(props.prebuiltBundleDir), handler: `${basename(LAMBDA_BUNDLE.outputFile, extname(LAMBDA_BUNDLE.outputFile))}.handler` }
      : { handler: 'handler', bundling: nodejsBundlingOptions({ withConsole: spec.name === 'control-plane' }) };
    this.function = new NodejsFunction(this, 'Function', {
      ...code,
      entry: props.entry ?? join(props.projectRoot, spec.entry),
      projectRoot: props.projectRoot,
      depsLockFilePath: join(props.projectRoot, 'package-lock.json'),
      runtime: lambdaNodeRuntime(),
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb ?? spec.memoryMb,
      timeout: Duration.seconds(spec.timeoutSeconds),
      description: spec.description,
      role: this.role,
      logGroup: this.logGroup,
      tracing: props.tracing ?? Tracing.ACTIVE,
      reservedConcurrentExecutions: props.reservedConcurrency,
      awsSdkConnectionReuse: false,
      ...lambdaLogFiltering(props),
      environment: {
        ...props.environment,
        POWERTOOLS_SERVICE_NAME: `gw-${spec.name}`,
        // Stack traces point into the TypeScript sources (the bundle ships an external source map), at the price of
        // reading and parsing every .map file at each cold start: off in production unless `sourceMaps` says so.
        ...(props.sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
      },
    });
  }
}

/**
 * With the JSON log format Lambda filters the function's own lines too, at INFO unless told otherwise, and gives
 * lines without a level (Powertools Metrics' EMF records) INFO: so the application level stays at INFO (DEBUG when gw
 * logs at DEBUG) and gw's own POWERTOOLS_LOG_LEVEL keeps deciding what gw writes. Powertools writes JSON already
 * (shared/observability/logger.ts), straight to stdout, so its lines keep their shape.
 */
function lambdaLogFiltering(props: GwFunctionProps) {
  if (props.systemLogLevel !== 'WARN') return {};
  return {
    loggingFormat: LoggingFormat.JSON,
    systemLogLevelV2: SystemLogLevel.WARN,
    applicationLogLevelV2: props.logLevel === 'DEBUG' ? ApplicationLogLevel.DEBUG : ApplicationLogLevel.INFO,
  };
}
