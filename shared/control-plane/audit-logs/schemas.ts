import * as z from 'zod';

/** Query and response of GET /v1/audit-logs; types are inferred from these and docs/openapi.yaml generated. */

const isoTime = z.iso.datetime({ offset: true });

export const auditLogListQuerySchema = z
  .strictObject({
    workspace_id: z.string().min(1).max(128).optional().meta({ description: 'Only events of this workspace (admin callers; others always see only their own).' }),
    from: isoTime.optional().meta({ description: 'Events at or after this time.' }),
    to: isoTime.optional().meta({ description: 'Events at or before this time.' }),
    action: z.string().min(1).max(128).optional().meta({ description: 'e.g. api_key.create, workspace.update, authentication.failed' }),
    resource_type: z.string().min(1).max(64).optional(),
    resource_id: z.string().min(1).max(128).optional(),
    outcome: z.enum(['success', 'failure']).optional(),
    actor_id: z.string().min(1).max(300).optional().meta({ description: 'API key id, or jwt:<sub>.' }),
    actor_type: z.enum(['api_key', 'jwt', 'system', 'anonymous']).optional(),
    limit: z.string().optional(),
    cursor: z.string().optional(),
  })
  .refine((query) => query.from === undefined || query.to === undefined || Date.parse(query.from) <= Date.parse(query.to), {
    message: 'from must not be after to',
    path: ['from'],
  });

export const auditLogSchema = z
  .object({
    object: z.literal('audit_log'),
    id: z.string(),
    at: z.string(),
    action: z.string(),
    resource_type: z.string(),
    resource_id: z.string().nullable(),
    outcome: z.enum(['success', 'failure']),
    organisation_id: z.string().nullable(),
    workspace_id: z.string().nullable(),
    actor: z.object({ type: z.enum(['api_key', 'jwt', 'system', 'anonymous']), id: z.string().nullable() }),
    source_ip: z.string().nullable(),
    trace_id: z.string().nullable(),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditLog' });

export type AuditLog = z.infer<typeof auditLogSchema>;
