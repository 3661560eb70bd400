import * as z from 'zod';
import { allowedCustomHostsSchema } from '../../gateway/config/allowed-custom-hosts.js';
import { GCS_BUCKET, IAM_ROLE_ARN, OBJECT_PREFIX, S3_BUCKET } from '../../gateway/batches/providers/cloud-batch-fields.js';
import { headerCredentialText } from '../header-credential.js';
import { workspaceListQuerySchema, workspaceQuerySchema } from '../query-schemas.js';
import { resourceDeletedSchema, resourceIdPathSchema, resourceListSchema } from '../resource/schema-helpers.js';

/**
 * Bodies and responses of /v1/virtual-keys. The schemas are the single source of truth: TypeScript types are
 * inferred from them and docs/openapi.yaml is generated from them (z.toJSONSchema), so they carry no transforms.
 * Cross-field rules (provider known, settings matching the provider, a credential present) live in
 * `virtual-key-rules.ts`, because they read the provider registry.
 */

const text = (max: number) => z.string().min(1).max(max);
/** A credential goes into an HTTP header upstream: what a header cannot carry is refused here with 400. */
const credentialText = headerCredentialText;

/** Azure OpenAI: where the deployment lives. The resource name becomes part of a hostname. */
export const azureSettingsSchema = z
  .strictObject({
    resource_name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/, 'must be an Azure resource name (letters, digits, hyphens)').optional(),
    deployment_id: text(255).optional(),
    api_version: z.string().regex(/^\d{4}-\d{2}-\d{2}(-preview)?$/, 'must look like 2024-10-21 or 2025-04-01-preview').optional(),
    model_name: text(255).optional(),
  })
  .meta({ description: 'Azure OpenAI settings (provider azure-openai). Headers x-gw-azure-* sent with a request override them; another resource_name only when allowed_custom_hosts lists its host (https://{resource}.openai.azure.com).' });

/** A Google service-account key file, as a JSON object or as the file's text. Stored as a secret. */
export const serviceAccountJsonSchema = z
  .union([z.string().min(2).max(32_768), z.record(z.string(), z.unknown())])
  .meta({ description: 'Service-account key (the JSON key file, as an object or as its text). Stored in the secret store, never returned.' });

export const vertexSettingsSchema = z
  .strictObject({
    project_id: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, 'must be a Google Cloud project id').optional(),
    region: z.string().regex(/^(global|[a-z]+-[a-z]+\d+)$/, 'must be a Google Cloud region such as us-central1, or global').optional(),
    service_account_json: serviceAccountJsonSchema.optional(),
    batch_bucket: z
      .string()
      .regex(GCS_BUCKET, 'must be a Cloud Storage bucket name of 3–63 lower-case letters, digits, hyphens and underscores')
      .optional()
      .meta({ description: 'Batches (docs/batches.md): the Cloud Storage bucket gw writes a batch’s input to and Vertex AI writes its results to. Not a secret.' }),
    batch_prefix: z
      .string()
      .max(512)
      .regex(OBJECT_PREFIX, 'must be a prefix of letters, digits and ._-/ ending in / (e.g. gw-batches/)')
      .optional()
      .meta({ description: 'Batches: the object name prefix in batch_bucket; default gw-batches/.' }),
  })
  .meta({ description: 'Vertex AI settings (provider vertex-ai). Headers x-gw-vertex-* sent with a request override them.' });

export const awsSettingsSchema = z
  .strictObject({
    access_key_id: z.string().regex(/^[A-Z0-9]{16,128}$/, 'must be an AWS access key id').optional(),
    secret_access_key: credentialText(256).optional(),
    session_token: credentialText(4096).optional(),
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, 'must be an AWS region such as us-east-1').optional(),
    role_arn: z
      .string()
      .max(2048)
      .regex(/^arn:aws(-[a-z]+)*:iam::\d{12}:role\/([\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/, 'must be an IAM role ARN such as arn:aws:iam::123456789012:role/gw-bedrock-team')
      .optional()
      .meta({ description: 'An IAM role the gateway assumes (STS AssumeRole, with its own role) to sign Bedrock calls; instead of stored access keys. Not a secret.' }),
    external_id: z
      .string()
      .regex(/^[\w+=,.@:/-]{2,1224}$/, 'must be 2–1224 letters, digits or +=,.@:/-_')
      .optional()
      .meta({ description: 'The external id the role’s trust policy requires (sts:ExternalId); needs role_arn. Not a secret.' }),
    session_name: z
      .string()
      .regex(/^[\w+=,.@-]{2,64}$/, 'must be 2–64 letters, digits or +=,.@-_')
      .optional()
      .meta({ description: 'The role session name (shows in CloudTrail); default gw-gateway. Needs role_arn.' }),
    batch_bucket: z
      .string()
      .regex(S3_BUCKET, 'must be an S3 bucket name of 3–63 lower-case letters, digits and hyphens')
      .optional()
      .meta({ description: 'Batches (docs/batches.md): the S3 bucket gw writes a batch’s input to and Bedrock writes its results to. Not a secret.' }),
    batch_prefix: z
      .string()
      .max(512)
      .regex(OBJECT_PREFIX, 'must be a key prefix of letters, digits and ._-/ ending in / (e.g. gw-batches/)')
      .optional()
      .meta({ description: 'Batches: the key prefix in batch_bucket; default gw-batches/.' }),
    batch_role_arn: z
      .string()
      .max(2048)
      .regex(IAM_ROLE_ARN, 'must be an IAM role ARN such as arn:aws:iam::123456789012:role/gw-bedrock-batch')
      .optional()
      .meta({ description: 'Batches: the service role Bedrock runs a batch job as (it reads and writes batch_bucket). Not a secret.' }),
  })
  .meta({
    description:
      'Amazon Bedrock settings (provider bedrock). access_key_id, secret_access_key and session_token are stored as secrets; role_arn (with external_id, session_name) names a role to assume instead.',
  });

const customHostSchema = z.url({ protocol: /^https?$/ }).max(2048).meta({ description: 'Base URL that replaces the provider’s own (checked like x-gw-custom-host).' });

export const virtualKeyCreateSchema = z
  .strictObject({
    name: text(255).optional().meta({ description: 'A label for people; defaults to "<provider> key".' }),
    provider: text(255).meta({ description: 'Provider slug (or alias) from the provider registry, e.g. openai, azure-openai, anthropic.' }),
    credential: credentialText(16_384)
      .optional()
      .meta({ description: 'The provider API key or token. Stored in the secret store; never returned by any API.' }),
    azure: azureSettingsSchema.optional(),
    vertex: vertexSettingsSchema.optional(),
    aws: awsSettingsSchema.optional(),
    custom_host: customHostSchema.optional(),
    allowed_custom_hosts: allowedCustomHostsSchema.optional(),
  })
  .meta({ id: 'VirtualKeyCreate' });

/** Every field optional; a settings block replaces the stored block, `null` removes it. The provider is fixed. */
export const virtualKeyUpdateSchema = z
  .strictObject({
    name: text(255).optional(),
    credential: credentialText(16_384).nullable().optional().meta({ description: 'A new credential (rotation), or null to remove it.' }),
    azure: azureSettingsSchema.nullable().optional(),
    vertex: vertexSettingsSchema.nullable().optional(),
    aws: awsSettingsSchema.nullable().optional(),
    custom_host: customHostSchema.nullable().optional(),
    allowed_custom_hosts: allowedCustomHostsSchema.optional().meta({ description: 'Replaces the list; [] empties it.' }),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one field to change')
  .meta({ id: 'VirtualKeyUpdate' });

/** Names of the secret fields a key holds, as they are written in a create body. */
export const STORED_SECRET_NAMES = ['credential', 'vertex.service_account_json', 'aws.access_key_id', 'aws.secret_access_key', 'aws.session_token'] as const;

export const virtualKeySchema = z
  .object({
    object: z.literal('virtual_key'),
    id: z.string().meta({ description: 'Send it as x-gw-virtual-key, or as virtual_key in a config target.' }),
    workspace_id: z.string(),
    name: z.string(),
    provider: z.string(),
    azure: azureSettingsSchema.optional(),
    vertex: vertexSettingsSchema.omit({ service_account_json: true }).optional(),
    aws: awsSettingsSchema.pick({ region: true, role_arn: true, external_id: true, session_name: true, batch_bucket: true, batch_prefix: true, batch_role_arn: true }).optional(),
    custom_host: z.string().optional(),
    allowed_custom_hosts: z.array(z.string()).meta({ description: 'Base URLs besides custom_host this key’s credential may be sent to, or paths below them (docs/security.md).' }),
    stored_secrets: z.array(z.enum(STORED_SECRET_NAMES)).meta({ description: 'Which secret fields are stored (names only; values are never returned).' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'VirtualKey' });

export const virtualKeyDeletedSchema = resourceDeletedSchema('virtual_key', 'VirtualKeyDeleted');

/** Documentation of the route parameters (the derived routes read them: see resource/derive-routes.ts and pagination.ts). */
export const virtualKeyWorkspaceQuerySchema = workspaceQuerySchema;

export const virtualKeyListQuerySchema = workspaceListQuerySchema;

export const virtualKeyIdPathSchema = resourceIdPathSchema('virtualKeyId', 'The virtual key id.');

export const virtualKeyListSchema = resourceListSchema(virtualKeySchema, 'VirtualKeyList');

export type VirtualKeyCreate = z.infer<typeof virtualKeyCreateSchema>;
export type VirtualKeyUpdate = z.infer<typeof virtualKeyUpdateSchema>;
export type VirtualKeyView = z.infer<typeof virtualKeySchema>;
export type StoredSecretName = (typeof STORED_SECRET_NAMES)[number];
