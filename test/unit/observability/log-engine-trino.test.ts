import { describe, expect, it } from 'vitest';
import { analyticsSeries, analyticsTotals } from '../../../shared/observability/engine/analytics-queries.js';
import { exportRequests, getRequest, listRequests, spansOf, traceRequests, traceSummaries, type LogQuery } from '../../../shared/observability/engine/log-queries.js';
import type { SqlStatement } from '../../../shared/observability/engine/types.js';
import { placeholders } from '../../integration/observability/log-engine-support.js';

// The Athena (Trino) rendering of every query shape the DuckDB test runs for real: what matters for Athena is checked
// on the text — the day predicate that prunes partitions, the workspace and organisation filters, `?` for every value,
// Trino's functions (element_at, approx_percentile), and named columns instead of `*`.

const scope = { organisationId: 'org-1', workspaceId: 'ws-1' };
const range = { from: '2026-11-10T09:30:00.000Z', to: '2026-11-12T18:00:00.000Z' };
const hostile = "x' OR '1'='1";
const query: LogQuery = { scope, range, filter: { model: hostile, metadata: { _user: 'alice', team: hostile }, status: 'error' } };

const shapes: Record<string, SqlStatement> = {
  list: listRequests('trino', query, 20, { created_at: '2026-11-11T00:00:00.000Z', id: 'r9' }),
  listByCost: listRequests('trino', query, 20, { created_at: '2026-11-11T00:00:00.000Z', id: 'r9', value: 0.0125 }, { field: 'cost', order: 'desc' }),
  listByTokensAsc: listRequests('trino', query, 20, { created_at: '2026-11-11T00:00:00.000Z', id: 'r9', value: 42 }, { field: 'total_tokens', order: 'asc' }),
  get: getRequest('trino', query, 'r1'),
  trace: traceRequests('trino', query, 'trace-1'),
  spansOfTrace: spansOf('trino', { scope, range }, { traceId: hostile }),
  spansOfLogs: spansOf('trino', { scope, range }, { logIds: ['r1', hostile] }),
  traceSummaries: traceSummaries('trino', query, 20, { ended_at: '2026-11-11T00:00:00.000Z', trace_id: 't9' }),
  totals: analyticsTotals('trino', { scope, range, groupBy: `metadata.${hostile}`, interval: 'hour' }),
  series: analyticsSeries('trino', { scope: { organisationId: 'org-1', workspaceId: hostile }, range, groupBy: 'model', interval: 'day' }),
  export: exportRequests('trino', query),
};

describe.each(Object.entries(shapes))('the Trino rendering of %s', (_name, statement) => {
  it('binds every value with `?` and splices none', () => {
    expect(placeholders(statement.sql)).toBe(statement.params.length);
    // No string literal at all, and no value that could not also be a word of SQL (ids, times, the hostile one).
    expect(statement.sql).not.toContain("'");
    for (const value of statement.params) if (typeof value === 'string' && /\W/.test(value)) expect(statement.sql).not.toContain(value);
    expect(statement.params).toContain(hostile);
  });

  it('prunes partitions with `day BETWEEN ? AND ?` from the range (spans: a day earlier)', () => {
    const match = /day BETWEEN \? AND \?/.exec(statement.sql);
    expect(match).not.toBeNull();
    const before = placeholders(statement.sql.slice(0, match!.index));
    const [fromDay, toDay] = statement.params.slice(before, before + 2);
    expect(toDay).toBe('2026-11-12');
    expect(fromDay).toBe(statement.sql.includes('FROM spans') ? '2026-11-09' : '2026-11-10');
  });

  it('always filters by the organisation and the workspace, and names its columns', () => {
    expect(statement.sql).toMatch(/organisation_id = \?/);
    expect(statement.sql).toMatch(/workspace_id = \?/);
    expect(statement.params).toEqual(expect.arrayContaining(['org-1']));
    expect(statement.params.includes('ws-1') || statement.params.includes(hostile)).toBe(true);
    expect(statement.sql).not.toMatch(/SELECT \*/);
    expect(statement.sql).toMatch(/CAST\(\? AS TIMESTAMP\)/);
  });
});

describe('sorted request lists on Trino', () => {
  it('orders by the coalesced value, then time and id, and keysets on all three with bound values', () => {
    expect(shapes.listByCost.sql).toContain('ORDER BY coalesce(cost, -1) DESC, created_at DESC, id DESC LIMIT 21');
    expect(shapes.listByCost.sql).toContain('(coalesce(cost, -1) < ? OR (coalesce(cost, -1) = ? AND (created_at < CAST(? AS TIMESTAMP)');
    expect(shapes.listByCost.params).toEqual(expect.arrayContaining([0.0125, 'r9']));
    expect(shapes.listByTokensAsc.sql).toContain(`ORDER BY coalesce(total_tokens, ${Number.MAX_SAFE_INTEGER}) ASC, created_at ASC, id ASC`);
    expect(shapes.listByTokensAsc.sql).toContain('id > ?');
  });
});

describe('Trino functions', () => {
  it('reads metadata with element_at(metadata, ?) and never with a subscript', () => {
    expect(shapes.list.sql).toContain('element_at(metadata, ?) = ?');
    expect(shapes.totals.sql).toContain('SELECT element_at(metadata, ?) AS group_key');
    for (const statement of Object.values(shapes)) expect(statement.sql).not.toContain('metadata[');
  });

  it('computes percentiles with approx_percentile, never quantile_cont', () => {
    for (const statement of [shapes.totals, shapes.series]) {
      expect(statement.sql).toContain('approx_percentile(latency_ms, 0.5) AS latency_p50_ms');
      expect(statement.sql).toContain('approx_percentile(latency_ms, 0.95) AS latency_p95_ms');
      expect(statement.sql).not.toContain('quantile_cont');
    }
    expect(shapes.series.sql).toContain('date_trunc(?, created_at)');
    expect(shapes.series.params[0]).toBe('day');
    expect(shapes.traceSummaries.sql).toContain('array_join(array_distinct(array_agg(model)), ?)');
  });

  it('scopes an organisation-wide grouping by the organisation alone', () => {
    const statement = analyticsTotals('trino', { scope: { organisationId: 'org-1' }, range, groupBy: 'workspace', interval: 'day' });
    expect(statement.sql).toContain('organisation_id = ?');
    expect(statement.sql).not.toContain('workspace_id = ?');
    expect(statement.sql).toContain('day BETWEEN ? AND ?');
  });

  it('leaves columns a caller may not see out of an export statement (its rows never pass through gw)', () => {
    const statement = exportRequests('trino', query, { omitColumns: ['cost', 'prompt_tokens'] });
    const selected = statement.sql.slice('SELECT '.length, statement.sql.indexOf(' FROM ')).split(', ');
    expect(selected).not.toContain('cost');
    expect(selected).not.toContain('prompt_tokens');
    expect(selected).toContain('completion_tokens');
    expect(selected).not.toContain('day');
  });

  it('renders the same shapes for DuckDB with its own functions', () => {
    const totals = analyticsTotals('duckdb', { scope, range, groupBy: 'metadata.team', interval: 'hour' });
    expect(totals.sql).toContain('metadata[?]');
    expect(totals.sql).toContain('quantile_cont(latency_ms, 0.5)');
    // Trino's binds the same figures, then its compacted branch (no day range: its slices bound the days) and the
    // workspace's bucket, then the raw branch: the same values as DuckDB's one table.
    const trino = analyticsTotals('trino', { scope, range, groupBy: 'metadata.team', interval: 'hour' });
    const figures = totals.sql.slice(0, totals.sql.indexOf(' FROM ')).split('?').length - 1;
    expect(trino.params.slice(0, figures)).toEqual(totals.params.slice(0, figures));
    expect(trino.params.slice(-(totals.params.length - figures))).toEqual(totals.params.slice(figures));
    expect(totals.sql).not.toContain('_compacted');
  });
});
