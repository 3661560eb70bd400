/**
 * What the Athena stand-in does to a statement before DuckDB runs it: the `?` placeholders replaced by Athena's
 * `ExecutionParameters` as Athena does (each is spliced in as written: a Trino literal the engine already quoted,
 * and Trino's literal forms — `'it''s'`, `5E-1`, `true`, `NULL` — read the same in DuckDB), and the few Trino-only
 * spellings the query builder's `trino` dialect emits (sql.ts, log-queries.ts, analytics-queries.ts) spelt as DuckDB
 * spells them. Anything else is passed on unchanged, so a Trino-only construct the builder starts to emit fails
 * the query here, as a missing translation, rather than passing unnoticed.
 */

/** Trino spelling → DuckDB spelling, on the text with its placeholders still in (so a parameter is never rewritten). */
const TRANSLATIONS: ReadonlyArray<[RegExp, string]> = [
  // Percentiles (analytics-queries.ts): Trino's t-digest estimate, DuckDB's exact interpolated quantile.
  [/\bapprox_percentile\(/g, 'quantile_cont('],
  // `metadata.<key>` (sql.ts metadataValue): NULL when absent in both.
  [/\belement_at\(metadata, \?\)/g, 'metadata[?]'],
  // The distinct models of a trace (log-queries.ts traceSummaries).
  [/\barray_join\(array_distinct\(array_agg\((\w+)\)\), \?\)/g, 'array_to_string(list_distinct(array_agg($1)), ?)'],
  // The compaction's workspace bucket (sql.ts workspaceBucketSql): the low bits of the 8th byte of the id's MD5,
  // which DuckDB's md5 gives as hex (characters 15–16).
  // The compaction's cutoff and the reads' raw branch (compaction-sql.ts, compaction-markers.ts): an ISO 8601 instant.
  // A CSV export's metadata cell (engine/csv-cells.ts): the map as JSON text.
  [/\bjson_format\(CAST\((\w+) AS JSON\)\)/g, 'CAST(CAST($1 AS JSON) AS VARCHAR)'],
  [/\bfrom_iso8601_timestamp\((\?|'[^']*')\)/g, 'CAST($1 AS TIMESTAMPTZ)'],
  // A request's end in epoch ms (the reconciliation's admission time, enforcement/reconcile-limits.ts).
  [/\bto_unixtime\((\w+)\) \* 1000\b/g, 'epoch_ms($1)'],
  [/\bbitwise_and\(from_big_endian_64\(substr\(md5\(to_utf8\((\w+)\)\), 1, 8\)\), (\d+)\)/g, "(('0x' || substr(md5($1), 15, 2))::INTEGER & $2)"],
];

export function translateTrino(sql: string): string {
  return TRANSLATIONS.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), sql);
}

/**
 * Splices `parameters` into the `?` placeholders outside string literals, in order; a count that does not match is
 * Athena's INVALID_PARAMETER error.
 */
export function spliceParameters(sql: string, parameters: readonly string[]): string {
  let out = '';
  let next = 0;
  let inString = false;
  for (const character of sql) {
    if (character === "'") inString = !inString;
    if (character === '?' && !inString) {
      if (next >= parameters.length) throw new Error(`INVALID_PARAMETER: the query has more placeholders than the ${parameters.length} execution parameters`);
      out += parameters[next++];
    } else out += character;
  }
  if (next !== parameters.length) throw new Error(`INVALID_PARAMETER: ${parameters.length} execution parameters for ${next} placeholders`);
  return out;
}

export interface Unload {
  query: string;
  bucket: string;
  prefix: string;
  format: 'JSON' | 'PARQUET' | 'TEXTFILE';
  compression?: string;
  fieldDelimiter?: string;
  /** `partitioned_by = ARRAY['a', …]`: trailing columns written as folders. */
  partitionedBy: string[];
}

/** `UNLOAD (q) TO 's3://bucket/prefix/' WITH (format = '…', …)`, or undefined for any other statement. */
export function parseUnload(sql: string): Unload | undefined {
  const match = /^\s*UNLOAD \((.*)\) TO 's3:\/\/([^/']+)\/([^']*)' WITH \((.*)\)\s*$/s.exec(sql);
  if (!match) return undefined;
  const partitioned = /partitioned_by\s*=\s*ARRAY\[([^\]]*)\]/i.exec(match[4]);
  const partitionedBy = partitioned ? [...partitioned[1].matchAll(/'(\w+)'/g)].map(([, column]) => column) : [];
  const properties = Object.fromEntries([...match[4].replace(partitioned?.[0] ?? '', '').matchAll(/(\w+)\s*=\s*'([^']*)'/g)].map(([, key, value]) => [key.toLowerCase(), value]));
  const format = (properties.format ?? 'PARQUET').toUpperCase();
  if (format !== 'JSON' && format !== 'PARQUET' && format !== 'TEXTFILE') throw new Error(`INVALID_UNLOAD_FORMAT: ${format}`);
  return { query: match[1], bucket: match[2], prefix: match[3], format, compression: properties.compression?.toUpperCase(), fieldDelimiter: properties.field_delimiter, partitionedBy };
}
