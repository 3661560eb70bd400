/**
 * A guardrail id as configs and workspace settings name it: `grd-…`, optionally pinned with `@<version>`. Apart
 * from the schemas (schemas.ts) so the gateway can read references without loading zod at its cold start.
 */
export const GUARDRAIL_REFERENCE = /^(grd-[A-Za-z0-9_-]{1,60})(?:@(\d{1,9}))?$/;
