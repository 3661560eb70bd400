import type { GatewayError } from '../../http/errors.js';
import { assertPrintableConfigCredentials } from './credential-fields.js';
import { assertJsonNesting } from '../../http/json-nesting.js';
import { configError, configErrorFromZod } from './errors.js';
import { configSchema, type GatewayConfig } from './schema.js';

/**
 * Config parsing against the schema. The gateway imports this module on the first config it meets
 * (resolve-config.ts), so zod and the schema it builds stay out of a plain request's cold start.
 */

/** An inline config (JSON text): the parsed config, or the AB01 error that refuses it. */
export function parseInlineConfig(text: string): GatewayConfig {
  assertJsonNesting(text, 'x-gw-config', 'x-gw-config');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw configError('AB0101', 'x-gw-config', `not valid JSON (${(error as Error).message})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw configError('AB0105', 'config', 'the config must be a JSON object');
  }
  const result = configSchema.safeParse(raw);
  if (!result.success) throw configErrorFromZod(result.error, raw);
  assertPrintableConfigCredentials(result.data);
  return result.data;
}

/** A saved config's stored body: parsed, or the error a request naming it answers. */
export function parseSavedConfig(stored: unknown): { config: GatewayConfig } | { error: GatewayError } {
  const result = configSchema.safeParse(stored);
  return result.success ? { config: result.data } : { error: configErrorFromZod(result.error, stored) };
}
