import { col, limit, metadataValue, rangeConditions, rowsOf, scopeConditions, sql, statement, trusted, type Fragment, type LogScope, type TimeRange } from './sql.js';
import type { SqlDialect, SqlStatement } from './types.js';
import { MEDIA_UNIT_COLUMNS } from './columns.js';

/** What analytics group by: a column of its own, or any `metadata.<key>`. */
export type AnalyticsGroup = 'workspace' | 'model' | 'provider' | 'api_key' | `metadata.${string}`;

const GROUP_COLUMNS: Record<Exclude<AnalyticsGroup, `metadata.${string}`>, string> = {
  workspace: 'workspace_id',
  model: 'model',
  provider: 'provider',
  api_key: 'api_key_id',
};

export interface AnalyticsQuery {
  scope: LogScope;
  range: TimeRange;
  groupBy: AnalyticsGroup;
  interval: 'hour' | 'day';
}

function groupKey(dialect: SqlDialect, groupBy: AnalyticsGroup): Fragment {
  if (groupBy.startsWith('metadata.')) return metadataValue(dialect, groupBy.slice('metadata.'.length));
  return col('requests', GROUP_COLUMNS[groupBy as keyof typeof GROUP_COLUMNS]);
}

/** Percentiles by the engine: exact on DuckDB, Trino's approx_percentile (a t-digest, ~1 % rank error) on Athena. */
function percentile(dialect: SqlDialect, fraction: 0.5 | 0.95): Fragment {
  return trusted(dialect === 'trino' ? `approx_percentile(latency_ms, ${fraction})` : `quantile_cont(latency_ms, ${fraction})`);
}

/** Media units summed as tokens are (issue #47): images made, characters spoken, seconds of audio transcribed. */
const MEDIA_SUMS = trusted(MEDIA_UNIT_COLUMNS.map((name) => `sum(coalesce(${name}, 0)) AS ${name}`).join(', '));

function figures(dialect: SqlDialect): Fragment {
  return sql`count(*) AS requests, sum(CASE WHEN outcome = ${'error'} THEN 1 ELSE 0 END) AS errors, sum(coalesce(prompt_tokens, 0)) AS prompt_tokens, sum(coalesce(completion_tokens, 0)) AS completion_tokens, ${MEDIA_SUMS}, sum(coalesce(cost, 0)) AS cost, sum(CASE WHEN cache_status IN (${'HIT'}, ${'SEMANTIC HIT'}) THEN 1 ELSE 0 END) AS cache_hits, ${percentile(dialect, 0.5)} AS latency_p50_ms, ${percentile(dialect, 0.95)} AS latency_p95_ms`;
}

/**
 * The rows a grouping reads (rowsOf: one table on DuckDB; each day from exactly one of the compacted and raw tables on
 * Athena). Every request of the range, those without the key too (no model, no such metadata key): they form the NULL
 * group, so the groups add up to the request count (issue #41).
 */
function rows(dialect: SqlDialect, query: AnalyticsQuery): Fragment {
  return rowsOf(dialect, 'requests', query.scope, [...scopeConditions('requests', query.scope), ...rangeConditions('requests', 'created_at', query.range)]);
}

/**
 * How much one analytics answer may hold (issue #42: per user, hourly, over a month was 21 MB). Each query reads one
 * row more than its cap, so the read API can tell "exactly the cap" from "more" and refuse the latter with a clear
 * error instead of cutting the answer short.
 */
export const MAX_ANALYTICS_GROUPS = 500;
export const MAX_ANALYTICS_POINTS = 5_000;

/** Totals per key, most requests first; at most MAX_ANALYTICS_GROUPS + 1 rows. */
export function analyticsTotals(dialect: SqlDialect, query: AnalyticsQuery): SqlStatement {
  return statement(
    sql`SELECT ${groupKey(dialect, query.groupBy)} AS group_key, ${figures(dialect)} FROM ${rows(dialect, query)} GROUP BY 1 ORDER BY requests DESC, group_key ${limit(MAX_ANALYTICS_GROUPS + 1)}`,
  );
}

/** One point per interval bucket and key, oldest first; at most MAX_ANALYTICS_POINTS + 1 rows. */
export function analyticsSeries(dialect: SqlDialect, query: AnalyticsQuery): SqlStatement {
  return statement(
    sql`SELECT date_trunc(${query.interval}, created_at) AS bucket, ${groupKey(dialect, query.groupBy)} AS group_key, ${figures(dialect)} FROM ${rows(dialect, query)} GROUP BY 1, 2 ORDER BY bucket, group_key ${limit(MAX_ANALYTICS_POINTS + 1)}`,
  );
}
