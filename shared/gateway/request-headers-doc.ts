import * as z from 'zod';
import { ACCOUNT_ADDRESSES } from './account-headers.js';

// Documentation only (docs/openapi.yaml): the gateway's `x-gw-*` request parameters, as request-options.ts reads
// them. Here, beside the gateway, so every operation the gateway serves (prompt completions included) names them.

const stringHeader = z.string();

export const GATEWAY_REQUEST_HEADERS: Array<{ name: string; description: string; schema: z.ZodType }> = [
  { name: 'x-gw-provider', description: 'Provider slug; used with Authorization or with x-gw-custom-host. @<slug> names a workspace provider (an enabled integration: its credential, model allowlist and limits).', schema: stringHeader },
  { name: 'Authorization', description: 'Provider credential, `Bearer <PROVIDER_TOKEN>`; converted to the header form the provider expects.', schema: stringHeader },
  { name: 'x-gw-virtual-key', description: 'Identifier of a stored provider credential (virtual key).', schema: stringHeader },
  { name: 'x-gw-config', description: 'A saved config id, or an inline config as JSON (see the GatewayConfig schema where present).', schema: stringHeader },
  { name: 'x-gw-deployment', description: 'A deployment slug: the request runs that deployment’s config (not together with x-gw-config). A deployment restricted away from the workspace is a 404.', schema: stringHeader },
  { name: 'x-gw-custom-host', description: 'Base URL the request is sent to (with x-gw-provider naming its wire format).', schema: stringHeader },
  { name: 'x-gw-trace-id', description: 'Caller-chosen id (1-128 printable ASCII characters, no spaces); generated when absent and echoed back.', schema: stringHeader },
  { name: 'x-gw-metadata', description: 'JSON object of string values (at most 8 KiB); `_user` names the end user.', schema: stringHeader },
  { name: 'x-gw-cache-force-refresh', description: 'Forces a new upstream call and stores the new value in the cache.', schema: z.enum(['true', 'false']) },
  { name: 'x-gw-cache-namespace', description: 'Partitions the cache by a custom string.', schema: stringHeader },
  { name: 'x-gw-request-timeout', description: 'Milliseconds after which the upstream call is abandoned (connect and first byte).', schema: z.string().regex(/^\d+$/) },
  { name: 'x-gw-forward-headers', description: 'Names of other request headers forwarded to the provider unprocessed: comma-separated, or a JSON array (at most 32).', schema: stringHeader },
  { name: 'x-gw-drop-unsupported-params', description: 'Drop body parameters the provider does not support instead of refusing the request.', schema: z.enum(['true', 'false']) },
  { name: 'x-gw-azure-resource-name', description: 'Azure OpenAI resource (spec: x-gw-clouda-resource-name).', schema: stringHeader },
  { name: 'x-gw-azure-deployment-id', description: 'Azure OpenAI deployment (spec: x-gw-clouda-deployment-id).', schema: stringHeader },
  { name: 'x-gw-azure-api-version', description: 'Azure OpenAI api-version (spec: x-gw-clouda-api-version).', schema: stringHeader },
  { name: 'x-gw-azure-model-name', description: 'Azure OpenAI model name (spec: x-gw-clouda-model-name).', schema: stringHeader },
  { name: 'x-gw-vertex-project-id', description: 'Vertex AI project (spec: x-gw-cloudb-project-id).', schema: stringHeader },
  { name: 'x-gw-vertex-region', description: 'Vertex AI region (spec: x-gw-cloudb-region).', schema: stringHeader },
  { name: 'x-vertex-llm-request-type', description: 'Vertex AI request type (spec: X-CloudB-LLM-Request-Type).', schema: stringHeader },
  { name: 'x-gw-vertex-batch-bucket', description: 'Vertex AI batches: the Cloud Storage bucket gw writes batch input to and Vertex AI writes results to (docs/batches.md).', schema: stringHeader },
  { name: 'x-gw-vertex-batch-prefix', description: 'Vertex AI batches: the object name prefix in that bucket (default gw-batches/).', schema: stringHeader },
  { name: 'x-gw-aws-access-key-id', description: 'Bedrock access key id (spec: x-gw-cloudc-access-key-id).', schema: stringHeader },
  { name: 'x-gw-aws-secret-access-key', description: 'Bedrock secret access key (spec: x-gw-cloudc-secret-access-key).', schema: stringHeader },
  { name: 'x-gw-aws-session-token', description: 'Bedrock session token (spec: x-gw-cloudc-session-token).', schema: stringHeader },
  { name: 'x-gw-aws-region', description: 'Bedrock region (spec: x-gw-cloudc-region).', schema: stringHeader },
  { name: 'x-gw-aws-batch-bucket', description: 'Bedrock batches: the S3 bucket gw writes batch input to and Bedrock writes results to (docs/batches.md).', schema: stringHeader },
  { name: 'x-gw-aws-batch-prefix', description: 'Bedrock batches: the key prefix in that bucket (default gw-batches/).', schema: stringHeader },
  { name: 'x-gw-aws-batch-role-arn', description: 'Bedrock batches: the IAM service role Bedrock runs the batch job as (docs/batches.md).', schema: stringHeader },
  // The per-account coordinates (Cloudflare, Databricks, Snowflake, Azure AI, watsonx.ai), from the list that reads them.
  ...ACCOUNT_ADDRESSES.map((address) => ({
    name: address.header,
    description: `Names ${address.describe}; another value is a 400 invalid_header (docs/providers.md).`,
    schema: stringHeader,
  })),
];
