import { configErrorFromZod } from '../../shared/gateway/config/errors';
import { configSchema } from '../../shared/gateway/config/schema';

/** Checks a config as the API does (the same zod schema), so the editor shows the very AB01 message the API would. */
export function validateConfigText(source: string): { ok: true; value: unknown } | { ok: false; message: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(source);
  } catch (error) {
    return { ok: false, message: `AB0101: not valid JSON (${(error as Error).message})` };
  }
  const result = configSchema.safeParse(raw);
  if (result.success) return { ok: true, value: raw };
  const error = configErrorFromZod(result.error, raw);
  return { ok: false, message: `${error.code}: ${error.message}` };
}
