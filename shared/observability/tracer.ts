/**
 * Powertools Tracer (AWS X-Ray), loaded only inside a Lambda with tracing on: the package and the X-Ray SDK
 * cost hundreds of milliseconds to import, which the local runtime and cold starts should not pay for nothing.
 * Clients are patched once the import is done (its middleware applies from then on).
 */
type Tracer = import('@aws-lambda-powertools/tracer').Tracer;

let tracer: Promise<Tracer | undefined> | undefined;

function tracingWanted(): boolean {
  return process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined && process.env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() !== 'false';
}

function loadTracer(): Promise<Tracer | undefined> {
  tracer ??= tracingWanted()
    ? import('@aws-lambda-powertools/tracer').then(({ Tracer }) => new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'gw' })).catch(() => undefined)
    : Promise.resolve(undefined);
  return tracer;
}

/** Adds X-Ray subsegments to every call of an AWS SDK v3 client (DynamoDB, Secrets Manager, S3). */
export function traceAwsClient<Client>(client: Client): Client {
  if (!tracingWanted()) return client;
  void loadTracer().then((loaded) => loaded?.captureAWSv3Client(client));
  return client;
}

/** Runs `work` in an X-Ray subsegment (an upstream provider call, …) when tracing is on; otherwise just runs it. */
export async function inSubsegment<T>(name: string, work: () => Promise<T>): Promise<T> {
  const loaded = tracingWanted() ? await loadTracer() : undefined;
  const parent = loaded?.getSegment();
  if (!loaded || !parent) return work();
  const subsegment = parent.addNewSubsegment(name);
  loaded.setSegment(subsegment);
  try {
    return await work();
  } catch (error) {
    subsegment.addError(error as Error);
    throw error;
  } finally {
    subsegment.close();
    loaded.setSegment(parent);
  }
}
