import * as z from 'zod';
import { workspaceQueryField } from '../query-schemas.js';
import { resourceDeletedSchema, resourceIdPathSchema, resourceListSchema } from '../resource/schema-helpers.js';

/**
 * Bodies and responses of /v1/deployments (single source of truth for types and docs/openapi.yaml). A deployment's
 * config is either an inline gateway config (checked exactly as x-gw-config is) or a saved config reference.
 */

export const slugSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lower-case letters, digits, "-" and "_", starting with a letter or digit');

export const deploymentTypeSchema = z.enum(['production', 'non-production']);

export const savedConfigReferenceSchema = z
  .strictObject({
    id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a saved config id such as cfg-abc123'),
    version: z.int().min(1).max(999_999_999).optional().meta({ description: 'A pinned version; the latest when omitted.' }),
  })
  .meta({ id: 'DeploymentSavedConfig', description: 'A saved config of the deployment’s workspace, by id (and version).' });

export const deploymentConfigSchema = z
  .union([savedConfigReferenceSchema, z.record(z.string(), z.unknown()).meta({ description: 'An inline gateway config (the x-gw-config JSON).' })])
  .meta({ description: 'Inline config object, or {"id": "cfg-…", "version": n} for a saved config.' });

const workspaceList = z.array(z.string().min(1).max(128)).max(100);

export const deploymentCreateSchema = z
  .strictObject({
    name: z.string().min(1).max(255),
    slug: slugSchema.optional().meta({ description: 'Unique in the organisation; sent as x-gw-deployment. Derived from name when omitted.' }),
    description: z.string().max(1024).optional(),
    type: deploymentTypeSchema,
    config: deploymentConfigSchema,
    workspace_id: z.string().min(1).max(128).nullable().optional().meta({
      description: 'Workspace (id or slug) the deployment is assigned to; null makes it organisation-wide (admin keys). Defaults to the caller’s workspace.',
    }),
    restricted_to_workspaces: workspaceList.optional().meta({ description: 'Only these workspaces (ids or slugs) may use it; others get 404.' }),
  })
  .meta({ id: 'DeploymentCreate' });

export const deploymentUpdateSchema = z
  .strictObject({
    name: z.string().min(1).max(255).optional(),
    slug: slugSchema.optional(),
    description: z.string().max(1024).nullable().optional(),
    type: deploymentTypeSchema.optional(),
    config: deploymentConfigSchema.optional(),
    workspace_id: z.string().min(1).max(128).nullable().optional(),
    restricted_to_workspaces: workspaceList.optional().meta({ description: 'Replaces the list; [] lifts the restriction.' }),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one field to change')
  .meta({ id: 'DeploymentUpdate' });

export const deploymentSchema = z
  .object({
    object: z.literal('deployment'),
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    description: z.string().optional(),
    type: deploymentTypeSchema,
    config: deploymentConfigSchema.meta({ description: 'Inline configs come back with secret fields (api_key …) masked.' }),
    workspace_id: z.string().nullable(),
    restricted_to_workspaces: z.array(z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Deployment' });

export const deploymentListSchema = resourceListSchema(deploymentSchema, 'DeploymentList');

export const deploymentDeletedSchema = resourceDeletedSchema('deployment', 'DeploymentDeleted');

export const deploymentListQuerySchema = z.object({
  type: deploymentTypeSchema.optional(),
  limit: z.int().min(1).max(100).optional(),
  cursor: z.string().optional(),
  workspace_id: workspaceQueryField.meta({ description: 'Only deployments assigned to this workspace (admin keys); a workspace key sees those it may use.' }),
});

export const deploymentIdPathSchema = resourceIdPathSchema('deploymentId', 'Deployment id or slug.');

export type DeploymentCreate = z.infer<typeof deploymentCreateSchema>;
export type DeploymentUpdate = z.infer<typeof deploymentUpdateSchema>;
export type DeploymentView = z.infer<typeof deploymentSchema>;
