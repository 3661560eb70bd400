// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import type { OpenApiOperation } from '../openapi-operation.js';
import { observabilityReads } from '../operation-family.js';
import { analyticsQuerySchema, analyticsSchema } from './schemas.js';

export const openApiOperations: OpenApiOperation[] = [
  observabilityReads.list({
    path: '/v1/analytics',
    operationId: 'getAnalytics',
    summary: 'Usage, cost, errors and latency per group',
    description:
      'Grouped queries of the log engine over the request rows (DuckDB locally, Athena on AWS), percentiles computed by the engine; the `x-gw-data-freshness-ms` response header says how fresh the data is. group_by=workspace covers every workspace of the organisation for admin callers. User keys and tokens of members and managers need the workspace settings membersViewAnalytics / managersViewAnalytics (on by default). The range is bounded by METRICS_RETENTION_DISPLAY days.',
    query: analyticsQuerySchema,
    response: { description: 'Rows per group key and a series per interval.', schema: analyticsSchema },
  }),
];
