import { rangeConditions, rowsOf, scopeConditions, sql, statement, trusted, type Fragment, type LogScope, type TimeRange } from '../../observability/engine/sql.js';
import type { SqlDialect, SqlStatement } from '../../observability/engine/types.js';
import { unpricedMediaCost, usdToUnits } from '../../observability/pricing/index.js';

/**
 * What cost limits were charged for media requests of a model nobody prices (issue #47): settlement charges each
 * one its images, characters and audio seconds at the default media rates (pricing/unpriced.ts), rounded to 1e-10
 * USD per request, while its log row keeps `cost: null`. A per-minute rate is not exact in those units, so a sum of
 * seconds priced once would differ from the per-request charges: the rows are grouped by their units instead, and
 * each distinct (images, characters, audio_seconds) is priced as settlement priced it, times its requests.
 */

/** Group-by columns of the unpriced rows' media units (NULL for a priced row, which forms no unpriced group). */
export const UNPRICED_MEDIA_GROUPS: readonly Fragment[] = ['images', 'characters', 'audio_seconds'].map((name) => trusted(`CASE WHEN cost IS NULL THEN ${name} END AS unpriced_${name}`));

/** The requests of such a group: the unpriced ones (a priced row's units are in its cost already). */
export const UNPRICED_MEDIA_REQUESTS = trusted('sum(CASE WHEN cost IS NULL THEN 1 ELSE 0 END) AS unpriced_media_requests');

/** A workspace's unpriced media requests over a range, by their units (reconcile.ts: the budget's share of them). */
export function unpricedMediaStatement(dialect: SqlDialect, scope: LogScope, range: TimeRange): SqlStatement {
  const media = trusted('(images IS NOT NULL OR characters IS NOT NULL OR audio_seconds IS NOT NULL)');
  const rows = rowsOf(dialect, 'requests', scope, [...scopeConditions('requests', scope), ...rangeConditions('requests', 'created_at', range), trusted('cost IS NULL'), media]);
  return statement(sql`SELECT ${UNPRICED_MEDIA_GROUPS[0]}, ${UNPRICED_MEDIA_GROUPS[1]}, ${UNPRICED_MEDIA_GROUPS[2]}, ${UNPRICED_MEDIA_REQUESTS} FROM ${rows} GROUP BY 1, 2, 3`);
}

/** What a result row of those groups was charged, in units of 1e-10 USD (0 for a row without unpriced media). */
export function unpricedMediaUnits(row: Record<string, unknown>): bigint {
  const requests = BigInt(Math.trunc(amount(row.unpriced_media_requests) ?? 0));
  if (requests === 0n) return 0n;
  const perRequest = unpricedMediaCost({ images: amount(row.unpriced_images), characters: amount(row.unpriced_characters), audioSeconds: amount(row.unpriced_audio_seconds) });
  return requests * usdToUnits(perRequest);
}

/** An engine's value (a number, a BigInt from DuckDB, text from Athena) as a number, or undefined for NULL. */
function amount(value: unknown): number | undefined {
  return value === null || value === undefined ? undefined : Number(String(value));
}
