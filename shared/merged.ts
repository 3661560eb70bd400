/**
 * `{ ...a, ...b }` without what Node 20 charges for it: there every property written after a leading spread in an
 * object literal costs ~0.5–1 µs (a property added to the spread's clone map goes through the runtime), which made
 * one log record ~30 µs to build (issue #34; Node 24's V8 has no such cost). The later source wins, as with a
 * spread; each key is defined as the object's own data property, so a `__proto__` key in client JSON stays a key
 * (as a spread keeps it) instead of setting the prototype, as `Object.assign` would. Own enumerable string keys
 * only (symbol keys are not copied); null and undefined sources are skipped.
 */
/**
 * V8 13 (Node 24, Lambda's runtime) writes properties after a spread as fast as any others: there the spread is
 * best. The console's bundle imports this module too (through the config schema): a browser has no `process`, and
 * takes the spread.
 */
const V8_MAJOR = Number((globalThis as { process?: { versions?: { v8?: string } } }).process?.versions?.v8?.split('.')[0]);
const SPREAD_IS_CHEAP = !(V8_MAJOR < 13);

export function merged<A extends object, B extends object>(a: A | undefined | null, b: B | undefined | null): Spread<A, B>;
export function merged<A extends object, B extends object, C extends object>(a: A | undefined | null, b: B | undefined | null, c: C | undefined | null): Spread<Spread<A, B>, C>;
export function merged(...sources: Array<object | undefined | null>): Record<string, unknown> {
  if (SPREAD_IS_CHEAP) return sources.length === 2 ? { ...sources[0], ...sources[1] } : { ...sources[0], ...sources[1], ...sources[2] };
  return definedOneByOne(sources);
}

/** Each key written in turn: Node 20's fast way, and the same result as a spread. Exported for its test. */
export function definedOneByOne(sources: Array<object | undefined | null>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const source of sources) {
    if (source === undefined || source === null) continue;
    for (const key of Object.keys(source)) {
      const value = (source as Record<string, unknown>)[key];
      if (key === '__proto__') Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
      else result[key] = value;
    }
  }
  return result;
}

/** The type of `{ ...A, ...B }`: B's keys replace A's (each member of a union A on its own). */
export type Spread<A, B> = A extends unknown ? Omit<A, keyof B> & B : never;
