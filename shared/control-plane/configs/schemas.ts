import * as z from 'zod';
import { configSchema } from '../../gateway/config/schema.js';
import { workspaceQueryField } from '../query-schemas.js';
import { resourceDeletedSchema, resourceIdPathSchema, resourceListSchema } from '../resource/schema-helpers.js';

/** `POST /v1/configs`: a name and the config body, validated with the very schema the gateway uses. */
export const createConfigSchema = z.strictObject({
  name: z.string().min(1).max(255),
  config: z.unknown(),
});

/** `PUT /v1/configs/{id}`: a new version (the config), optionally renamed. */
export const updateConfigSchema = z.strictObject({
  name: z.string().min(1).max(255).optional(),
  config: z.unknown(),
});

/** A saved config as every read shows it: credentials masked. */
export const savedConfigResponseSchema = z.object({
  id: z.string(),
  object: z.literal('config'),
  name: z.string(),
  workspace_id: z.string(),
  version: z.int(),
  config: configSchema,
  created_at: z.string(),
  updated_at: z.string(),
});

export const savedConfigListSchema = resourceListSchema(savedConfigResponseSchema, 'SavedConfigList');

export const savedConfigVersionListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(z.object({ object: z.literal('config_version'), id: z.string(), version: z.int(), config: configSchema, created_at: z.string() })),
    has_more: z.boolean(),
    next_cursor: z.null(),
  })
  .meta({ id: 'SavedConfigVersionList' });

export const savedConfigDeletedSchema = resourceDeletedSchema('config', 'SavedConfigDeleted');

export const savedConfigIdPathSchema = resourceIdPathSchema('id', 'The saved config id (cfg-…); a request names it in x-gw-config, optionally as "<id>@<version>".');

export const savedConfigGetQuerySchema = z.object({
  version: z.int().min(1).optional().meta({ description: 'An earlier version (default: the latest).' }),
  workspace_id: workspaceQueryField,
});

export type ConfigCreate = z.infer<typeof createConfigSchema>;
export type ConfigUpdate = z.infer<typeof updateConfigSchema>;
