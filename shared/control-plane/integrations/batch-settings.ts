import * as z from 'zod';
import { badRequest } from '../../http/errors.js';
import type { IntegrationBatchSettings, IntegrationRecord } from '../../store/integration-repository.js';
import { awsSettingsSchema, vertexSettingsSchema } from '../virtual-keys/schemas.js';

/**
 * Where a translated batch (Bedrock, Vertex AI: docs/batches.md) keeps its files and which role runs it, stored
 * with an integration as with a virtual key: beside a stored credential the caller may not name them in headers
 * (the confused-deputy rule of shared/gateway/batches/caller.ts), so the integration must carry them for a batch
 * through `x-gw-provider: @slug` to be possible. The same fields and checks as a virtual key's (`aws.batch_*`,
 * `vertex.batch_*`), so one table in the docs and one error `param` name them wherever they are stored. None is
 * a secret: they are shown as stored.
 */
export const integrationAwsBatchSchema = awsSettingsSchema
  .pick({ batch_bucket: true, batch_prefix: true, batch_role_arn: true })
  .meta({ description: 'Bedrock batch storage (provider bedrock; docs/batches.md): the S3 bucket, key prefix and service role of batches made through this integration. Not secrets.' });

export const integrationVertexBatchSchema = vertexSettingsSchema
  .pick({ batch_bucket: true, batch_prefix: true })
  .meta({ description: 'Vertex AI batch storage (provider vertex-ai; docs/batches.md): the Cloud Storage bucket and prefix of batches made through this integration. Not secrets.' });

/** Which provider each block belongs to. */
const OWNER = { aws: 'bedrock', vertex: 'vertex-ai' } as const;

type Blocks = { aws?: z.infer<typeof integrationAwsBatchSchema> | null; vertex?: z.infer<typeof integrationVertexBatchSchema> | null };

/**
 * Applies a create or update body's batch blocks to the record: a block replaces the stored one, `null` removes
 * it (as a virtual key's settings blocks). A block of another provider is a 400 naming it, so a bucket meant for
 * Bedrock is never silently kept on an OpenAI integration.
 */
export function applyBatchSettings(record: IntegrationRecord, body: Blocks): void {
  for (const block of ['aws', 'vertex'] as const) {
    const value = body[block];
    if (value === undefined) continue;
    if (value === null) {
      delete record[block];
      continue;
    }
    if (record.provider !== OWNER[block]) {
      throw badRequest('settings_provider_mismatch', `${block}: these settings apply to provider '${OWNER[block]}' only, not '${record.provider}'`, block);
    }
    const kept = Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as IntegrationBatchSettings;
    if (Object.keys(kept).length === 0) delete record[block];
    else record[block] = kept;
  }
}

/** The blocks as the integration view shows them (plain settings, nothing to redact). */
export function batchSettingsView(record: IntegrationRecord): { aws?: IntegrationBatchSettings; vertex?: IntegrationBatchSettings } {
  const view: { aws?: IntegrationBatchSettings; vertex?: IntegrationBatchSettings } = {};
  if (record.aws !== undefined) view.aws = { ...record.aws };
  if (record.vertex !== undefined) view.vertex = { ...record.vertex };
  return view;
}
