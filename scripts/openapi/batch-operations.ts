import * as z from 'zod';
import type { OpenApiOperation } from '../../shared/control-plane/openapi-operation.js';
import { createBatchSchema } from '../../shared/gateway/batches/batch-create.js';
import { BATCH_ENDPOINTS } from '../../shared/gateway/batches/providers/types.js';

/** Files and batches in OpenAI's shapes (shared/gateway/batches/, docs/batches.md). */
const fileSchema = z
  .object({
    id: z.string(),
    object: z.literal('file'),
    bytes: z.int(),
    created_at: z.int(),
    filename: z.string(),
    purpose: z.enum(['batch', 'batch_output']),
    status: z.literal('processed'),
  })
  .meta({ id: 'BatchFile', description: 'A file gw keeps for batches: an uploaded input (purpose batch) or a batch’s results (batch_output).' });

const batchSchema = z
  .looseObject({
    id: z.string(),
    object: z.literal('batch'),
    endpoint: z.enum(BATCH_ENDPOINTS),
    model: z.string(),
    provider: z.string(),
    input_file_id: z.string(),
    output_file_id: z.string().nullable(),
    error_file_id: z.string().nullable(),
    completion_window: z.string(),
    status: z.enum(['validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled']),
    created_at: z.int(),
    request_counts: z.object({ total: z.int(), completed: z.int(), failed: z.int() }),
    metadata: z.record(z.string(), z.string()),
    usage: z
      .object({ input_tokens: z.int(), output_tokens: z.int(), total_tokens: z.int(), input_tokens_details: z.object({ cached_tokens: z.int() }), output_tokens_details: z.object({ reasoning_tokens: z.int() }) })
      .optional()
      .meta({ description: 'Once gw has read the results: the summed tokens of the result lines.' }),
  })
  .meta({ id: 'Batch', description: 'OpenAI’s batch object with gw’s ids; the provider’s times, counts and errors as it last reported them.' });

const list = (item: z.ZodType, id: string) => z.object({ object: z.literal('list'), data: z.array(item), first_id: z.string().nullable(), last_id: z.string().nullable(), has_more: z.boolean() }).meta({ id });
const uploadSchema = z.object({ file: z.string().meta({ format: 'binary', description: 'JSON Lines, one OpenAI batch request a line.' }), purpose: z.literal('batch') });
const fileId = z.object({ fileId: z.string() });
const batchId = z.object({ batchId: z.string() });
const listQuery = (max: number) => z.object({ limit: z.string().optional().meta({ description: `1 to ${max}` }), after: z.string().optional().meta({ description: 'The last id of the previous page.' }) });
const providerHeaders = [
  { name: 'x-gw-provider', description: 'openai or azure-openai (with Authorization), bedrock (AWS credentials, x-gw-aws-batch-bucket, x-gw-aws-batch-role-arn) or vertex-ai (Google token, x-gw-vertex-batch-bucket), or @workspace-provider; any other is refused (400 batches_unsupported_provider).', required: false, schema: z.string() },
  { name: 'x-gw-aws-batch-bucket', description: 'Bedrock: the S3 bucket of the batch’s input and results (docs/batches.md). This and the other batch storage headers are refused beside a virtual key or @workspace-provider, which store their own (aws.batch_*, vertex.batch_*).', required: false, schema: z.string() },
  { name: 'x-gw-aws-batch-prefix', description: 'Bedrock: the key prefix in that bucket (default gw-batches/).', required: false, schema: z.string() },
  { name: 'x-gw-aws-batch-role-arn', description: 'Bedrock: the service role the batch job runs as.', required: false, schema: z.string() },
  { name: 'x-gw-vertex-batch-bucket', description: 'Vertex AI: the Cloud Storage bucket of the batch’s input and results.', required: false, schema: z.string() },
  { name: 'x-gw-vertex-batch-prefix', description: 'Vertex AI: the object name prefix in that bucket (default gw-batches/).', required: false, schema: z.string() },
  { name: 'x-gw-virtual-key', description: 'A virtual key of the provider; a batch made with one is polled with it when no provider header is sent.', required: false, schema: z.string() },
  { name: 'x-gw-custom-host', description: 'The provider’s base URL, checked like any custom host.', required: false, schema: z.string() },
];

function operation(method: OpenApiOperation['method'], path: string, operationId: string, summary: string, extra: Partial<OpenApiOperation> & Pick<OpenApiOperation, 'responses'>): OpenApiOperation {
  return Object.assign({ method, path, operationId, summary, tags: ['Files and batches'], scopes: ['completions:write'], errors: [400, 401, 403, 404, 413, 502] }, extra);
}

const ok = (schema: z.ZodType, description: string) => ({ '200': { description, schema } });

export const batchOperations: OpenApiOperation[] = [
  operation('post', '/v1/files', 'uploadFile', 'Upload a batch input file (JSON Lines, checked line by line)', {
    description: 'multipart/form-data through gw; or, where files live in S3, a JSON body {filename, purpose, bytes} answered with status uploading and an upload_url (presigned PUT, 15 minutes) for files larger than a Lambda invocation takes (docs/batches.md).',
    bodyContentType: 'multipart/form-data', body: uploadSchema, responses: ok(fileSchema, 'The stored file.') }),
  operation('get', '/v1/files', 'listFiles', 'List the workspace’s files, newest first (order=asc: oldest first)', { query: listQuery(10_000).extend({ purpose: z.string().optional(), order: z.enum(['asc', 'desc']).optional().meta({ description: 'By creation time; default desc.' }) }), responses: ok(list(fileSchema, 'BatchFileList'), 'One page of files.') }),
  operation('get', '/v1/files/{fileId}', 'getFile', 'A file of the workspace', { pathParameters: fileId, responses: ok(fileSchema, 'The file.') }),
  operation('delete', '/v1/files/{fileId}', 'deleteFile', 'Delete a file of the workspace', { pathParameters: fileId, responses: ok(z.object({ id: z.string(), object: z.literal('file'), deleted: z.literal(true) }), 'Deleted.') }),
  operation('get', '/v1/files/{fileId}/content', 'getFileContent', 'A file’s bytes (an input, or a batch’s results)', { pathParameters: fileId, responses: { '200': { description: 'JSON Lines.', contentType: 'application/jsonl', schema: z.string() } } }),
  operation('post', '/v1/batches', 'createBatch', 'Submit a batch to the provider; its estimate is reserved until its results are read', {
    headers: providerHeaders,
    body: createBatchSchema,
    responses: ok(batchSchema, 'The batch as the provider accepted it.'),
    errors: [400, 401, 403, 404, 412, 429, 502, 503],
  }),
  operation('get', '/v1/batches', 'listBatches', 'List the workspace’s batches, newest first (status as last read)', { query: listQuery(100), responses: ok(list(batchSchema, 'BatchList'), 'One page of batches.') }),
  operation('get', '/v1/batches/{batchId}', 'getBatch', 'Poll a batch; once it ended, gw reads its results, logs each line and settles its cost', { headers: providerHeaders, pathParameters: batchId, responses: ok(batchSchema, 'The batch.') }),
  operation('post', '/v1/batches/{batchId}/cancel', 'cancelBatch', 'Cancel a batch at the provider', { headers: providerHeaders, pathParameters: batchId, responses: ok(batchSchema, 'The batch, cancelling.'), errors: [400, 401, 403, 404, 409, 502] }),
];
