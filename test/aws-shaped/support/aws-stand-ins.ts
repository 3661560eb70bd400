import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenDynalite, type DynaliteServer } from '../../../infra/local/store/dynalite-server.js';
import { memoryObjects, s3StandIn } from '../../../shared/store/recording/stand-ins/s3-stand-in.js';
import { memorySecrets, secretsManagerStandIn } from '../../../shared/store/recording/stand-ins/secrets-manager-stand-in.js';
import { accessKeyIdOf, readBody, serveOnLoopback, type LoopbackServer, type StandInAuthorizer } from '../../../shared/store/recording/stand-ins/wire.js';
import { athenaStandIn, type AthenaStandIn } from './athena-stand-in.js';
import { indexEntriesRecorder } from './dynamo-index-entries.js';
import { firehoseStandIn, type FirehoseStandIn } from './firehose-stand-in.js';

/**
 * The AWS services the stack's functions call, on loopback, each checking every call against the caller's IAM
 * statements (`authorize`, from the synthesised template): DynamoDB is the embedded dynalite behind a proxy that
 * refuses what IAM would refuse (AccessDeniedException), S3 and Secrets Manager are the stand-ins of
 * shared/store/recording/stand-ins/, and the request-log engine's Firehose and Athena are firehose-stand-in.ts and
 * athena-stand-in.ts (Athena queries what Firehose received, and UNLOADs into the S3 stand-in). The caller is known by the access key id of its SigV4 signature: each function
 * runs with its own.
 */
export interface AwsStandIns {
  /** What the functions use (IAM-checked). */
  dynamodbUrl: string;
  s3Url: string;
  secretsManagerUrl: string;
  firehoseUrl: string;
  athenaUrl: string;
  /** dynalite itself, unchecked: the operator's own access (bootstrap, test set-up). */
  dynaliteUrl: string;
  objects: ReturnType<typeof memoryObjects>;
  secrets: ReturnType<typeof memorySecrets>;
  /** The request-log results bucket's objects (Athena's UNLOAD output). */
  results: ReturnType<typeof memoryObjects>;
  /** The request-log data bucket's objects: Firehose's raw files, the compaction's files and markers. */
  data: ReturnType<typeof memoryObjects>;
  /** Each delivery stream's rows, as received. */
  delivered: FirehoseStandIn['delivered'];
  records: FirehoseStandIn['records'];
  executions: AthenaStandIn['executions'];
  /** With `recordIndexEntries`: every DynamoDB write and the global-index entries it wrote (dynamo-index-entries.ts). */
  writes: Array<{ who: string | undefined; action: string; indexEntries: number }>;
  close(): Promise<void>;
}

/** The IAM resource(s) of a DynamoDB JSON request: the table, or its index, of item and batch commands. */
function dynamoResources(body: Record<string, unknown>, arnOf: (table: string) => string): string[] {
  if (typeof body.TableName === 'string') return [typeof body.IndexName === 'string' ? `${arnOf(body.TableName)}/index/${body.IndexName}` : arnOf(body.TableName)];
  if (body.RequestItems && typeof body.RequestItems === 'object') return Object.keys(body.RequestItems).map(arnOf);
  return ['*'];
}

/** The stack's request-log resources, by the names the functions' environment gives them. */
export interface RequestLogResources {
  streams: { requests: string; spans: string };
  workgroup: string;
  /** The workgroup's result location (`s3://<results bucket>/results/`). */
  outputLocation: string;
  /** The compaction's workgroup and its result location (`s3://<results bucket>/compaction/`), when the stack has one. */
  compaction?: { workgroup: string; outputLocation: string };
  database: string;
  dataBucket: string;
  resultsBucket: string;
  /** The delivery streams' multi-record deaggregation (firehose-stand-in.ts templateDeaggregation). */
  deaggregation?: 'JSON';
}

export async function startAwsStandIns(options: {
  region: string;
  account: string;
  bucket: string;
  logs: RequestLogResources;
  authorize: StandInAuthorizer;
  /** Count each write's index entries (two more store reads per write: for the cost recorder only). */
  recordIndexEntries?: boolean;
}): Promise<AwsStandIns> {
  const { region, account, bucket, logs, authorize } = options;
  const dynalite: DynaliteServer = await listenDynalite(':memory:');
  const dynaliteUrl = `http://127.0.0.1:${dynalite.port}`;
  const arnOf = (table: string) => `arn:aws:dynamodb:${region}:${account}:table/${table}`;
  const indexEntries = options.recordIndexEntries ? indexEntriesRecorder(dynaliteUrl) : undefined;
  const writes: AwsStandIns['writes'] = [];

  const dynamoProxy = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readBody(request);
    const action = `dynamodb:${String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? 'Unknown'}`;
    const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    const who = accessKeyIdOf(request.headers.authorization);
    const refused = dynamoResources(input, arnOf).find((resource) => !authorize(who, action, resource));
    if (refused) {
      response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ __type: 'com.amazon.coral.service#AccessDeniedException', message: `User ${who} is not authorized to perform: ${action} on resource: ${refused}` }));
      return;
    }
    const countEntries = await indexEntries?.beforeWrite(action.slice('dynamodb:'.length), input);
    const upstream = httpRequest(`${dynaliteUrl}/`, { method: 'POST', headers: { ...request.headers, host: `127.0.0.1:${dynalite.port}` } }, (answer) => {
      if (!countEntries || (answer.statusCode ?? 500) >= 300) {
        response.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(response);
        return;
      }
      // The write is applied once dynalite answers: count its index entries before the caller hears back.
      const parts: Buffer[] = [];
      answer.on('data', (part: Buffer) => parts.push(part));
      answer.on('end', () => {
        void countEntries().then((entries) => {
          writes.push({ who, action, indexEntries: entries });
          response.writeHead(answer.statusCode ?? 500, answer.headers);
          response.end(Buffer.concat(parts));
        }, () => response.destroy());
      });
    });
    upstream.on('error', (error) => {
      response.writeHead(500);
      response.end(String(error));
    });
    upstream.end(body);
  };

  const objects = memoryObjects();
  const secrets = memorySecrets();
  const results = memoryObjects();
  const data = memoryObjects();
  const firehose = firehoseStandIn({
    region,
    account,
    streams: [logs.streams.requests, logs.streams.spans],
    authorize,
    destination: { objects: data, prefixes: { [logs.streams.requests]: 'requests/', [logs.streams.spans]: 'spans/' } },
    deaggregation: logs.deaggregation,
  });
  const athena = athenaStandIn({
    region,
    account,
    workgroup: logs.workgroup,
    outputLocation: logs.outputLocation,
    otherWorkgroups: logs.compaction ? { [logs.compaction.workgroup]: logs.compaction.outputLocation } : {},
    database: logs.database,
    dataBucket: logs.dataBucket,
    buckets: { [logs.resultsBucket]: results, [logs.dataBucket]: data },
    authorize,
  });
  const servers: LoopbackServer[] = [];
  const serve = async (handler: Parameters<typeof serveOnLoopback>[0]) => {
    const server = await serveOnLoopback(handler);
    servers.push(server);
    return server.url;
  };
  const dynamodbUrl = await serve((request, response) => void dynamoProxy(request, response).catch(() => response.destroy()));
  const s3Url = await serve(s3StandIn({ buckets: { [bucket]: objects, [logs.resultsBucket]: results, [logs.dataBucket]: data }, authorize }));
  const secretsManagerUrl = await serve(secretsManagerStandIn({ backing: secrets, authorize, region, account }));
  const firehoseUrl = await serve(firehose.handler);
  const athenaUrl = await serve(athena.handler);
  return {
    dynamodbUrl,
    dynaliteUrl,
    s3Url,
    secretsManagerUrl,
    firehoseUrl,
    athenaUrl,
    objects,
    secrets,
    results,
    data,
    delivered: firehose.delivered,
    records: firehose.records,
    executions: athena.executions,
    writes,
    async close() {
      for (const server of servers) await server.close();
      await athena.close();
      await dynalite.close();
    },
  };
}
