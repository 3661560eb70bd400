import * as z from 'zod';

/**
 * Query parameters shared by the workspace resources (documentation schemas: routes read them with
 * pagination.ts and workspaces/access.ts).
 */
export const workspaceQueryField = z
  .string()
  .min(1)
  .max(128)
  .optional()
  .meta({ description: 'Another workspace of the organisation, by id or slug (organisation admin keys only).' });

export const workspaceQuerySchema = z.object({ workspace_id: workspaceQueryField });

/** `limit` + `cursor` + `workspace_id`: the query of every paginated workspace resource list. */
export const workspaceListQuerySchema = z.object({
  limit: z.int().min(1).max(100).optional().meta({ description: 'Page size, 1-100 (default 20).' }),
  cursor: z.string().optional().meta({ description: 'next_cursor of the previous page.' }),
  workspace_id: workspaceQueryField,
});
