import { describe, expect, it } from 'vitest';
import { trinoLiteral } from '../../shared/observability/engine/aws/athena-parameters.js';
import { parseUnload, spliceParameters, translateTrino } from './support/trino-to-duckdb.js';

/** The Athena stand-in's statement handling (support/trino-to-duckdb.ts): what it runs must be what Athena would. */
describe('the Athena stand-in\'s statement rewriting', () => {
  it('splices the engine\'s Trino literals into the placeholders outside string literals, in order', () => {
    const parameters = ["it's ? here", 5e-1, 42, null].map((value) => trinoLiteral(value));
    expect(spliceParameters("SELECT '?' AS q, ? AS a, ? AS b, ? AS c, ? AS d", parameters)).toBe("SELECT '?' AS q, 'it''s ? here' AS a, 5E-1 AS b, 42 AS c, NULL AS d");
  });

  it('fails a query whose placeholders and parameters do not match, as Athena does', () => {
    expect(() => spliceParameters('SELECT ?, ?', ["'a'"])).toThrow(/INVALID_PARAMETER/);
    expect(() => spliceParameters('SELECT ?', ["'a'", "'b'"])).toThrow(/INVALID_PARAMETER/);
  });

  it('rewrites only the Trino-only spellings the query builder emits', () => {
    expect(translateTrino('SELECT approx_percentile(latency_ms, 0.5), element_at(metadata, ?) FROM requests')).toBe('SELECT quantile_cont(latency_ms, 0.5), metadata[?] FROM requests');
    expect(translateTrino('array_join(array_distinct(array_agg(model)), ?)')).toBe('array_to_string(list_distinct(array_agg(model)), ?)');
    expect(translateTrino("SELECT date_trunc(?, created_at) FROM requests WHERE day BETWEEN ? AND ?")).toBe("SELECT date_trunc(?, created_at) FROM requests WHERE day BETWEEN ? AND ?");
  });

  it('reads an UNLOAD as the engine writes it', () => {
    const unload = parseUnload("UNLOAD (SELECT id FROM requests WHERE trace_id = ?) TO 's3://results-bucket/exports/ws/job/' WITH (format = 'JSON', compression = 'GZIP')");
    expect(unload).toEqual({ query: 'SELECT id FROM requests WHERE trace_id = ?', bucket: 'results-bucket', prefix: 'exports/ws/job/', format: 'JSON', compression: 'GZIP', fieldDelimiter: undefined, partitionedBy: [] });
    expect(parseUnload("UNLOAD (SELECT id, ws_bucket FROM requests) TO 's3://data/compacted/requests/day=2026-11-26/' WITH (format = 'PARQUET', compression = 'SNAPPY', partitioned_by = ARRAY['ws_bucket'])")).toMatchObject({
      prefix: 'compacted/requests/day=2026-11-26/',
      format: 'PARQUET',
      compression: 'SNAPPY',
      partitionedBy: ['ws_bucket'],
    });
    expect(parseUnload("UNLOAD (SELECT 1) TO 's3://b/p/' WITH (format = 'TEXTFILE', field_delimiter = ',', compression = 'GZIP')")).toMatchObject({ format: 'TEXTFILE', fieldDelimiter: ',' });
    expect(parseUnload('SELECT 1')).toBeUndefined();
  });
});
