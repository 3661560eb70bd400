import { z } from 'zod';

/** Feature flags of the spec are on unless set to `OFF` (any case). */
const onUnlessOff = z
  .string()
  .optional()
  .transform((value) => value === undefined || value.trim().toUpperCase() !== 'OFF');

/** Switches that are off unless set to `ON`. */
const offUnlessOn = z
  .string()
  .optional()
  .transform((value) => value !== undefined && value.trim().toUpperCase() === 'ON');

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const settingsSchema = z.object({
  AWS_REGION: z.string().min(1).default('us-east-1'),
  GW_DYNAMODB_ENDPOINT: z.url().optional(),
  GW_TABLE_MAIN: z.string().min(3).default('gw-main'),
  GW_TABLE_CACHE: z.string().min(3).default('gw-cache'),
  GW_TABLE_LOGS: z.string().min(3).default('gw-logs'),

  // Custom-host rules: link-local and metadata addresses are always refused; these open loopback / private ranges.
  GW_ALLOW_LOOPBACK_HOSTS: offUnlessOn,
  GW_ALLOW_PRIVATE_HOSTS: offUnlessOn,

  GW_AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).default(10_000),
  GW_MAX_BODY_BYTES: positiveInt(10 * 1024 * 1024),
  // Connect + first byte of an upstream call, when the request gives no x-gw-request-timeout.
  GW_DEFAULT_REQUEST_TIMEOUT_MS: positiveInt(600_000),
  // Longest silence between two chunks of a streamed upstream body.
  GW_STREAM_IDLE_TIMEOUT_MS: positiveInt(300_000),
  // Ceiling for a whole upstream call, kept under the Lambda timeout (15 min) so gw can still answer.
  GW_UPSTREAM_MAX_DURATION_MS: positiveInt(870_000),

  GW_REQUEST_LOGS: onUnlessOff,
  LOG_RETENTION_DISPLAY: positiveInt(90),
  METRICS_RETENTION_DISPLAY: positiveInt(365),

  GUARDRAILS_ENABLED: onUnlessOff,
  API_ACCESS_ENABLED: onUnlessOff,
  DATA_EXPORTS_ENABLED: onUnlessOff,
  USAGE_LIMITS_ENABLED: onUnlessOff,
  AUDIT_LOGS_ENABLED: onUnlessOff,
  SCIM_ENABLED: onUnlessOff,
  POLICY_ENABLED: onUnlessOff,
});

export type Settings = z.infer<typeof settingsSchema>;

export class InvalidSettingsError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid gw settings:\n  ${issues.join('\n  ')}`);
    this.name = 'InvalidSettingsError';
  }
}

/** Parses settings from an environment; every invalid variable is named in the error. */
export function parseSettings(env: Record<string, string | undefined>): Settings {
  const result = settingsSchema.safeParse(env);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message} (got ${JSON.stringify(env[String(issue.path[0])])})`);
  throw new InvalidSettingsError(issues);
}

let cached: Settings | undefined;

/** The process's settings, parsed once on first use. */
export function settings(): Settings {
  cached ??= parseSettings(process.env);
  return cached;
}
