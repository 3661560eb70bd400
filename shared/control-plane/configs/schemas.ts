import * as z from 'zod';
import { configSchema } from '../../gateway/config/schema.js';

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
