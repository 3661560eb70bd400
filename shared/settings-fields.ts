/**
 * Readers for environment settings: each turns one variable's raw value (undefined when unset) into its typed
 * value or throws a SettingProblem saying what is wrong with it. Only an unset variable takes the default; an
 * empty one is a value like any other (and `min` lengths refuse it), except where a reader says otherwise.
 *
 * Settings are read by every function at its cold start, so they are parsed without a schema library: zod stays
 * out of the gateway's cold start (it is loaded by the first request that validates a config or a guardrail).
 */

export type SettingReader<T> = (raw: string | undefined) => T;

export class SettingProblem extends Error {}

interface IntegerBounds {
  min?: number;
  max?: number;
}

function toInteger(raw: string, { min, max }: IntegerBounds): number {
  // Number() like a coercing schema: surrounding blanks are ignored, '' is 0, '1e3' is 1000.
  const value = Number(raw);
  if (Number.isNaN(value)) throw new SettingProblem('Invalid input: expected number, received NaN');
  if (!Number.isInteger(value)) throw new SettingProblem('Invalid input: expected int, received number');
  if (min !== undefined && value < min) throw new SettingProblem(`Too small: expected number to be >=${min}`);
  if (max !== undefined && value > max) throw new SettingProblem(`Too big: expected number to be <=${max}`);
  return value;
}

/** A whole number within the bounds; the fallback when unset. */
export const integer =
  (fallback: number, bounds: IntegerBounds = {}): SettingReader<number> =>
  (raw) =>
    raw === undefined ? fallback : toInteger(raw, bounds);

/** A whole number ≥ 1; the fallback when unset. */
export const positiveInteger = (fallback: number): SettingReader<number> => integer(fallback, { min: 1 });

/** A whole number within the bounds, or undefined when unset. */
export const optionalInteger =
  (bounds: IntegerBounds = {}): SettingReader<number | undefined> =>
  (raw) =>
    raw === undefined ? undefined : toInteger(raw, bounds);

function checkedText(raw: string, min: number, pattern?: { test: RegExp; message: string }): string {
  if (raw.length < min) throw new SettingProblem(`Too small: expected string to have >=${min} characters`);
  if (pattern && !pattern.test.test(raw)) throw new SettingProblem(pattern.message);
  return raw;
}

/** Text of at least `min` characters (matching `pattern` when given); the fallback when unset. */
export const text =
  (fallback: string, min = 1, pattern?: { test: RegExp; message: string }): SettingReader<string> =>
  (raw) =>
    raw === undefined ? fallback : checkedText(raw, min, pattern);

/** Text of at least `min` characters (matching `pattern` when given), or undefined when unset. */
export const optionalText =
  (min = 1, pattern?: { test: RegExp; message: string }): SettingReader<string | undefined> =>
  (raw) =>
    raw === undefined ? undefined : checkedText(raw, min, pattern);

/** An absolute http(s) URL (every URL setting is an endpoint gw calls), or undefined when unset. */
export const optionalUrl = (): SettingReader<string | undefined> => (raw) => {
  if (raw === undefined) return undefined;
  const protocol = URL.canParse(raw) ? new URL(raw).protocol : undefined;
  if (protocol !== 'http:' && protocol !== 'https:') throw new SettingProblem('Invalid URL: expected an absolute http or https URL');
  return raw;
};

/** One of `values`, exactly as written; the fallback when unset. */
export const oneOf =
  <const V extends string>(values: readonly V[], fallback: V): SettingReader<V> =>
  (raw) => {
    if (raw === undefined) return fallback;
    if (!(values as readonly string[]).includes(raw)) throw new SettingProblem(`Invalid option: expected one of ${values.map((value) => JSON.stringify(value)).join('|')}`);
    return raw as V;
  };

/** One of `values`, exactly as written; undefined when unset or empty. */
export const optionalOneOf =
  <const V extends string>(values: readonly V[]): SettingReader<V | undefined> =>
  (raw) => {
    if (raw === undefined || raw === '') return undefined;
    if (!(values as readonly string[]).includes(raw)) throw new SettingProblem(`Invalid option: expected one of ${values.map((value) => JSON.stringify(value)).join('|')}`);
    return raw as V;
  };

/** One of `values` in any case, blanks around it ignored; undefined when unset or empty. */
export const optionalOneOfAnyCase =
  <const V extends string>(values: readonly V[]): SettingReader<V | undefined> =>
  (raw) => {
    const value = raw?.trim().toUpperCase();
    if (value === undefined || value === '') return undefined;
    if (!(values as readonly string[]).includes(value)) throw new SettingProblem(`Invalid option: expected one of ${values.map((option) => JSON.stringify(option)).join('|')}`);
    return value as V;
  };

/** A switch: `ON` or `OFF` in any case; unset or empty takes the fallback. Anything else is refused. */
export const onOff =
  (fallback: boolean): SettingReader<boolean> =>
  (raw) => {
    const value = raw?.trim().toUpperCase();
    if (value === undefined || value === '') return fallback;
    if (value !== 'ON' && value !== 'OFF') throw new SettingProblem('must be ON or OFF');
    return value === 'ON';
  };

export type SettingsOf<Readers extends Record<string, SettingReader<unknown>>> = { [Name in keyof Readers]: ReturnType<Readers[Name]> };

export interface SettingIssue {
  name: string;
  message: string;
}

/** Reads every setting; returns the values, or every problem found (one per variable, in the readers' order). */
export function readSettings<Readers extends Record<string, SettingReader<unknown>>>(
  readers: Readers,
  env: Record<string, string | undefined>,
): { values: SettingsOf<Readers>; issues: [] } | { values?: undefined; issues: SettingIssue[] } {
  const values: Record<string, unknown> = {};
  const issues: SettingIssue[] = [];
  for (const [name, read] of Object.entries(readers)) {
    try {
      values[name] = read(env[name]);
    } catch (error) {
      if (!(error instanceof SettingProblem)) throw error;
      issues.push({ name, message: error.message });
    }
  }
  return issues.length > 0 ? { issues } : { values: values as SettingsOf<Readers>, issues: [] };
}
