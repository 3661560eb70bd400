import * as z from 'zod';
import { allowedCustomHostsSchema } from '../../gateway/config/allowed-custom-hosts.js';
import { headerCredentialText } from '../header-credential.js';
import { integrationAwsBatchSchema, integrationVertexBatchSchema } from './batch-settings.js';
import { resourceDeletedSchema, resourceIdPathSchema, resourceListSchema } from '../resource/schema-helpers.js';
import { tagsQueryField, tagsSchema } from './tags.js';

/**
 * Bodies and responses of /v1/integrations: an organisation's provider credential and settings, shared with
 * chosen workspaces. The credential is stored in the secret store and never returned (only masked).
 */

const slug = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lower-case letters, digits, "-" and "_", starting with a letter or digit');
const customHost = z.url({ protocol: /^https?$/ }).max(2048).meta({ description: 'Base URL replacing the provider’s own (checked like x-gw-custom-host).' });
const sharedWith = z
  .union([z.literal('all'), z.array(z.string().min(1).max(128)).max(500)])
  .meta({ description: '"all", or the workspaces (ids or slugs) that may enable this integration as a provider.' });

export const integrationCreateSchema = z
  .strictObject({
    name: z.string().min(1).max(255),
    slug: slug.optional().meta({ description: 'Unique in the organisation; derived from name when omitted.' }),
    provider: z.string().min(1).max(255).meta({ description: 'Provider slug (or alias) from the provider registry.' }),
    credential: headerCredentialText(16_384).optional().meta({ description: 'The provider API key. Stored in the secret store; never returned.' }),
    custom_host: customHost.optional(),
    allowed_custom_hosts: allowedCustomHostsSchema.optional(),
    aws: integrationAwsBatchSchema.optional(),
    vertex: integrationVertexBatchSchema.optional(),
    description: z.string().max(1024).optional(),
    tags: tagsSchema.optional(),
    shared_with_workspaces: sharedWith.optional().meta({ description: 'Defaults to [] (no workspace yet).' }),
  })
  .meta({ id: 'IntegrationCreate' });

export const integrationUpdateSchema = z
  .strictObject({
    name: z.string().min(1).max(255).optional(),
    slug: slug.optional(),
    credential: headerCredentialText(16_384).nullable().optional().meta({ description: 'A new credential (rotation), or null to remove it.' }),
    custom_host: customHost.nullable().optional(),
    allowed_custom_hosts: allowedCustomHostsSchema.optional().meta({ description: 'Replaces the list; [] empties it.' }),
    aws: integrationAwsBatchSchema.nullable().optional().meta({ description: 'Replaces the stored block; null removes it.' }),
    vertex: integrationVertexBatchSchema.nullable().optional().meta({ description: 'Replaces the stored block; null removes it.' }),
    description: z.string().max(1024).nullable().optional(),
    tags: tagsSchema.optional().meta({ description: 'Replaces the tags.' }),
    shared_with_workspaces: sharedWith.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one field to change')
  .meta({ id: 'IntegrationUpdate' });

export const integrationSchema = z
  .object({
    object: z.literal('integration'),
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    provider: z.string(),
    description: z.string().optional(),
    custom_host: z.string().optional(),
    allowed_custom_hosts: z.array(z.string()).meta({ description: 'Base URLs besides custom_host this credential may be sent to, or paths below them (docs/security.md).' }),
    aws: integrationAwsBatchSchema.optional(),
    vertex: integrationVertexBatchSchema.optional(),
    tags: z.record(z.string(), z.string()),
    shared_with_workspaces: z.union([z.literal('all'), z.array(z.string())]),
    credential: z.object({ stored: z.boolean(), masked: z.string().nullable() }).meta({ description: 'Whether a credential is stored and its last characters; never the value.' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Integration' });

export const integrationListSchema = resourceListSchema(integrationSchema, 'IntegrationList');

export const integrationDeletedSchema = resourceDeletedSchema('integration', 'IntegrationDeleted');

export const integrationListQuerySchema = z.object({
  tags: tagsQueryField,
  provider: z.string().max(255).optional().meta({ description: 'Only integrations of this provider.' }),
  limit: z.int().min(1).max(100).optional(),
  cursor: z.string().optional(),
});

export const integrationIdPathSchema = resourceIdPathSchema('integrationId', 'Integration id or slug.');

export type IntegrationCreate = z.infer<typeof integrationCreateSchema>;
export type IntegrationUpdate = z.infer<typeof integrationUpdateSchema>;
export type IntegrationView = z.infer<typeof integrationSchema>;
