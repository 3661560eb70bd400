import { logEngines } from '../../observability/engine/select.js';
import { analyticsTotals } from '../../observability/engine/analytics-queries.js';
import { rangeConditions, rowsOf, scopeConditions, sql, statement, type LogScope, type TimeRange } from '../../observability/engine/sql.js';
import type { QueryEngine, SqlDialect, SqlStatement } from '../../observability/engine/types.js';
import { decimalTextToUnits, unitsToUsd, usdToUnits } from '../../observability/pricing/index.js';
import { WorkspaceBudgetRepository } from '../../store/workspace-budget-repository.js';
import { WorkspaceRepository } from '../../store/workspace-repository.js';
import { unpricedMediaStatement, unpricedMediaUnits } from './reconcile-media.js';
import { agrees, defaultLimitSources, reconcileLimits, unpricedUnits, type LimitComparison, type LimitSources, type LimitsReport } from './reconcile-limits.js';

/**
 * Proof that the numbers agree (issue #41): for a workspace and a period, analytics' totals equal the sum of
 * the logged requests, and the workspace budget and every limit counter of cost or tokens (reconcile-limits.ts)
 * were charged exactly what those requests used. Built on the
 * log query layer only (shared/observability/engine), so it reads DuckDB locally and Athena (raw and compacted
 * days) on AWS alike. Every USD amount is compared in integer units of 1e-10 USD (pricing/usd.ts): the logged
 * costs are summed by the engine as DECIMAL(38,10), never as doubles.
 */
export interface ReconcileRequest {
  workspaceId: string;
  /** ISO 8601, inclusive. */
  from: string;
  /** ISO 8601, inclusive; absent: now, when the reconciliation runs. */
  to?: string;
}

export interface Totals {
  requests: number;
  promptTokens: number;
  completionTokens: number;
  /** Media units (issue #47): images made, characters spoken, seconds of audio transcribed. */
  images: number;
  characters: number;
  audioSeconds: number;
  /** USD. */
  cost: number;
}

export interface ReconcileReport {
  workspaceId: string;
  range: TimeRange;
  /** What GET /v1/analytics reports for the workspace over the range. */
  analytics: Totals;
  /** The logged requests summed one by one (exact decimal sum of `cost`). */
  logged: Totals & { unpricedRequests: number; unpricedPromptTokens: number; unpricedCompletionTokens: number; /** What unpriced media units were charged at the default media rates (reconcile-media.ts), USD. */ unpricedMediaCharge: number };
  /**
   * The workspace budget: what it was charged in its current period, and what the logged requests say it should
   * have been (their costs, plus unpriced models' tokens at the default rates). Compared only when the range
   * covers the whole period (from its start, or the workspace's creation, to now); `skipped` says why not.
   */
  budget: { charged: number; expected: number; periodStart: string } | { skipped: string };
  /** Every cost or tokens counter of the workspace's policies and providers, window by window (reconcile-limits.ts). */
  limits: LimitsReport;
  /** Every difference found, one sentence each; empty when the numbers agree. */
  differences: string[];
}

export interface ReconcileDependencies {
  engine: () => Promise<QueryEngine>;
  workspaces: Pick<WorkspaceRepository, 'getWorkspace'>;
  budgets: Pick<WorkspaceBudgetRepository, 'read'>;
  limits: LimitSources;
  now: () => number;
}

const defaults = (): ReconcileDependencies => ({
  engine: async () => (await logEngines()).engine,
  workspaces: new WorkspaceRepository(),
  budgets: new WorkspaceBudgetRepository(),
  limits: defaultLimitSources(),
  now: Date.now,
});

/** The exact per-request sums of a workspace's logged requests over a range (one statement, both dialects). */
export function loggedTotalsStatement(dialect: SqlDialect, scope: LogScope, range: TimeRange): SqlStatement {
  const rows = rowsOf(dialect, 'requests', scope, [...scopeConditions('requests', scope), ...rangeConditions('requests', 'created_at', range)]);
  return statement(
    sql`SELECT count(*) AS requests, sum(coalesce(prompt_tokens, 0)) AS prompt_tokens, sum(coalesce(completion_tokens, 0)) AS completion_tokens, sum(coalesce(images, 0)) AS images, sum(coalesce(characters, 0)) AS characters, sum(coalesce(audio_seconds, 0)) AS audio_seconds, CAST(sum(CAST(round(coalesce(cost, 0), 10) AS DECIMAL(38, 10))) AS VARCHAR) AS cost_exact, sum(CASE WHEN cost IS NULL AND (coalesce(total_tokens, 0) > 0 OR images IS NOT NULL OR characters IS NOT NULL OR audio_seconds IS NOT NULL) THEN 1 ELSE 0 END) AS unpriced_requests, sum(CASE WHEN cost IS NULL THEN coalesce(prompt_tokens, 0) ELSE 0 END) AS unpriced_prompt_tokens, sum(CASE WHEN cost IS NULL THEN coalesce(completion_tokens, 0) ELSE 0 END) AS unpriced_completion_tokens FROM ${rows}`,
  );
}

export async function reconcile(request: ReconcileRequest, deps: ReconcileDependencies = defaults()): Promise<ReconcileReport> {
  // One instant for the whole run: the queries take seconds on Athena, and "the range reaches now" is decided against it.
  const now = deps.now();
  const range: TimeRange = { from: new Date(request.from).toISOString(), to: new Date(request.to ?? now).toISOString() };
  const workspace = await deps.workspaces.getWorkspace(request.workspaceId);
  if (!workspace) throw new Error(`no workspace ${request.workspaceId}`);
  const scope: LogScope = { organisationId: workspace.organisation_id, workspaceId: workspace.id };
  const engine = await deps.engine();
  const [analyticsResult, loggedResult, unpricedMedia] = await Promise.all([
    engine.query(analyticsTotals(engine.dialect, { scope, range, groupBy: 'workspace', interval: 'day' })),
    engine.query(loggedTotalsStatement(engine.dialect, scope, range)),
    engine.query(unpricedMediaStatement(engine.dialect, scope, range)),
  ]);
  const unpricedMediaCharge = unpricedMedia.rows.reduce((sum, row) => sum + unpricedMediaUnits(row), 0n);
  const analyticsRow = analyticsResult.rows[0] ?? {};
  const loggedRow = loggedResult.rows[0] ?? {};
  const analytics: Totals = {
    requests: whole(analyticsRow.requests),
    promptTokens: whole(analyticsRow.prompt_tokens),
    completionTokens: whole(analyticsRow.completion_tokens),
    ...mediaTotals(analyticsRow),
    cost: Number(analyticsRow.cost ?? 0),
  };
  const loggedCostUnits = decimalTextToUnits(String(loggedRow.cost_exact ?? '0'));
  const logged: ReconcileReport['logged'] = {
    requests: whole(loggedRow.requests),
    promptTokens: whole(loggedRow.prompt_tokens),
    completionTokens: whole(loggedRow.completion_tokens),
    ...mediaTotals(loggedRow),
    cost: unitsToUsd(loggedCostUnits),
    unpricedRequests: whole(loggedRow.unpriced_requests),
    unpricedPromptTokens: whole(loggedRow.unpriced_prompt_tokens),
    unpricedCompletionTokens: whole(loggedRow.unpriced_completion_tokens),
    unpricedMediaCharge: unitsToUsd(unpricedMediaCharge),
  };
  const differences: string[] = [];
  const compare = (what: string, left: bigint | number, right: bigint | number, show: (value: bigint | number) => string = String) => {
    if (left !== right) differences.push(`${what}: ${show(left)} ≠ ${show(right)}`);
  };
  const usd = (units: bigint | number) => `$${unitsToUsd(BigInt(units))}`;
  compare('requests (analytics ≠ logged)', analytics.requests, logged.requests);
  compare('prompt tokens (analytics ≠ logged)', analytics.promptTokens, logged.promptTokens);
  compare('completion tokens (analytics ≠ logged)', analytics.completionTokens, logged.completionTokens);
  compare('images (analytics ≠ logged)', analytics.images, logged.images);
  compare('characters (analytics ≠ logged)', analytics.characters, logged.characters);
  // Fractional seconds summed as doubles by two statements: equal to a microsecond, whatever order the engine added them in.
  compare('audio seconds (analytics ≠ logged)', Math.round(analytics.audioSeconds * 1e6), Math.round(logged.audioSeconds * 1e6), (value) => String(Number(value) / 1e6));
  compare('cost (analytics ≠ logged)', usdToUnits(analytics.cost), loggedCostUnits, usd);

  const budget = await budgetComparison(request.workspaceId, workspace, range, loggedCostUnits + unpricedMediaCharge, logged, now, deps);
  // "Unpriced tokens" stands for unpriced media units too (unpricedMediaCharge is in the expected amount): the text is
  // what scripts and tests match on.
  if ('charged' in budget) compare('workspace budget (charged ≠ logged cost + unpriced tokens at default rates)', usdToUnits(budget.charged), usdToUnits(budget.expected), usd);
  const limits = await reconcileLimits(engine, { organisationId: workspace.organisation_id, workspaceId: workspace.id }, range, now, deps.limits);
  for (const comparison of limits.compared) if (!agrees(comparison)) differences.push(limitDifference(comparison));
  return { workspaceId: request.workspaceId, range, analytics, logged, budget, limits, differences };
}

/** `policy "…" (…) tokens per rpd, window … , api_key=…: charged 120 ≠ logged 100` (USD with a `$`). */
function limitDifference(comparison: LimitComparison): string {
  const show = (value: number) => (comparison.measure === 'cost' ? `$${value}` : `${value} tokens`);
  const group = comparison.group === '' ? '' : `, ${comparison.group}`;
  // A live lease counts as used until it is given back: said, so the difference is not taken for lost money.
  const held = comparison.leases.held > 0 ? ` (live leases hold ${show(comparison.leases.held)})` : '';
  return `${comparison.limit}, ${comparison.window}${group}: charged ${show(comparison.charged)} ≠ logged ${show(comparison.logged)}${held}`;
}

async function budgetComparison(
  workspaceId: string,
  workspace: { created_at: string; budget_last_reset_at?: string | null },
  range: TimeRange,
  loggedCostUnits: bigint,
  logged: ReconcileReport['logged'],
  now: number,
  deps: ReconcileDependencies,
): Promise<ReconcileReport['budget']> {
  const current = await deps.budgets.read(workspaceId);
  if (!current) return { skipped: 'the workspace has no budget record' };
  const periodStart = workspace.budget_last_reset_at ?? workspace.created_at;
  if (Date.parse(periodStart) < Date.parse(range.from)) return { skipped: `the budget's period began at ${periodStart}, before --from` };
  if (Date.parse(range.to) < Date.parse(periodEndFloor(now))) return { skipped: 'the range ends before now, while the budget holds every charge up to now' };
  // Unpriced models' tokens are charged at the default rates (pricing/unpriced.ts): per token, a whole number of units.
  const unpriced = unpricedUnits(logged.unpricedPromptTokens, logged.unpricedCompletionTokens);
  return { charged: current.currentUsage, expected: unitsToUsd(loggedCostUnits + unpriced), periodStart };
}

/** A range that ends within the last second counts as ending now (`--to` left out is read as the current time). */
function periodEndFloor(now: number): string {
  return new Date(now - 1_000).toISOString();
}

/** The media unit sums of an analytics or logged-totals row. */
function mediaTotals(row: Record<string, unknown>): Pick<Totals, 'images' | 'characters' | 'audioSeconds'> {
  return { images: whole(row.images), characters: whole(row.characters), audioSeconds: whole(row.audio_seconds) };
}

/** An engine's count or sum (a JS number, a BigInt from DuckDB, a text from Athena) as a number. */
function whole(value: unknown): number {
  return value === null || value === undefined ? 0 : Number(String(value));
}

/** `, 2 images, 31 characters, 25.9 audio seconds`: only the units there are, so a chat-only report reads as before. */
function mediaLine(totals: Totals): string {
  const parts = [
    [totals.images, 'images'],
    [totals.characters, 'characters'],
    [totals.audioSeconds, 'audio seconds'],
  ].filter(([value]) => Number(value) > 0);
  return parts.map(([value, unit]) => `, ${value} ${unit}`).join('');
}

/** The report as the CLI prints it. */
export function formatReconcileReport(report: ReconcileReport): string {
  const lines = [
    `workspace ${report.workspaceId}, ${report.range.from} … ${report.range.to}`,
    `  analytics: ${report.analytics.requests} requests, ${report.analytics.promptTokens} prompt + ${report.analytics.completionTokens} completion tokens${mediaLine(report.analytics)}, $${report.analytics.cost}`,
    `  logged:    ${report.logged.requests} requests, ${report.logged.promptTokens} prompt + ${report.logged.completionTokens} completion tokens${mediaLine(report.logged)}, $${report.logged.cost} (${report.logged.unpricedRequests} unpriced)`,
    'charged' in report.budget
      ? `  budget:    charged $${report.budget.charged} since ${report.budget.periodStart}; the logged requests account for $${report.budget.expected}`
      : `  budget:    not compared (${report.budget.skipped})`,
    `  limits:    ${report.limits.compared.length} counter window(s) compared${report.limits.skipped.length > 0 ? `, ${report.limits.skipped.length} not` : ''}`,
    ...report.limits.skipped.map((skipped) => `    not compared: ${skipped.limit} (${skipped.reason})`),
    // Leases of processes that stopped were given back before the counters were read (lease-reclaim.ts).
    ...report.limits.compared
      .filter((comparison) => comparison.leases.reclaimed !== 0)
      .map((comparison) => `    gave back ${comparison.leases.reclaimed} ${comparison.measure === 'cost' ? 'USD' : 'tokens'} of leases whose process stopped: ${comparison.limit}, ${comparison.window}`),
  ];
  if (report.differences.length === 0) lines.push('the numbers agree');
  else lines.push(`${report.differences.length} difference(s):`, ...report.differences.map((difference) => `  - ${difference}`));
  return lines.join('\n');
}
