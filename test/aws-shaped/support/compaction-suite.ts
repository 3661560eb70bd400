import { beforeAll, describe, expect, it } from 'vitest';
import { CUTOFF_CLEARANCE_MS } from '../../../shared/observability/engine/aws/compaction.js';
import { formatReconcileReport, reconcile } from '../../../shared/gateway/enforcement/reconcile.js';
import { workspaceBucket } from '../../../shared/observability/engine/sql.js';
import type { ApiResponse, DeployedStack } from './deployed-stack.js';
import { reconcileOnStack } from './reconcile-on-stack.js';

/** What the compaction tests use of deployed-stack.test.ts's harness (its stack is deployed once for every test). */
export interface CompactionHarness {
  stack: DeployedStack;
  admin: (method: string, path: string, body?: unknown) => Promise<ApiResponse>;
  viaMock: () => Record<string, string>;
  chat: { model: string; messages: Array<{ role: string; content: string }> };
}

const json = <T = Record<string, unknown>>(response: ApiResponse) => JSON.parse(response.body) as T;

/**
 * The daily request-log compaction on the deployed stack (registered by deployed-stack.test.ts, after the request-log
 * tests): the built compact-request-logs bundle invoked as its EventBridge rule does, at the next 00:30 UTC, against
 * the Firehose, Athena and S3 stand-ins under its IAM statements; then the read APIs through Athena.
 */
export function describeRequestLogCompaction(harness: () => CompactionHarness): void {
  describe('the daily request-log compaction: finished days rewritten by workspace bucket, read from the compacted tables', () => {
    let stack: DeployedStack;
    let admin: CompactionHarness['admin'];
    let viaMock: CompactionHarness['viaMock'];
    let chat: CompactionHarness['chat'];
    const traceId = `aws-shaped-compaction-${Date.now()}`;
    const model = 'gpt-4o-aws-shaped-compaction';
    const today = new Date().toISOString().slice(0, 10);
    // The schedule's next run: 00:30 UTC tomorrow, when today is a finished day.
    const tomorrow = new Date(Date.parse(`${today}T00:30:00.000Z`) + 86_400_000);
    const keysUnder = (prefix: string) => [...stack.standIns.data.objects.keys()].filter((key) => key.startsWith(prefix)).sort();
    let before: { logs: unknown; analytics: unknown; trace: unknown };
    let workspaceId: string;
    // The reconciliation's period: from before this suite's limits and requests (issue #41).
    const from = new Date(Date.now() - 1_000).toISOString();

    const read = async () => ({
      logs: json<{ data: unknown[] }>(await admin('GET', `/v1/logs?metadata.team=${encodeURIComponent(traceId)}`)).data,
      analytics: json<{ rows: unknown[] }>(await admin('GET', `/v1/analytics?group_by=model`)).rows,
      trace: json<{ requests: unknown[]; spans: unknown[] }>(await admin('GET', `/v1/traces/${encodeURIComponent(traceId)}`)),
    });

    beforeAll(async () => {
      ({ stack, admin, viaMock, chat } = harness());
      // Limits whose counters the reconciliation compares (the last test): a cost usage limit per API key and a
      // tokens rate limit per team, both on this suite's requests only.
      const team = [{ key: 'metadata.team', value: traceId }];
      const created = await Promise.all([
        admin('POST', '/v1/policies/usage-limits', { name: 'compaction cost', conditions: team, group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpd', value: 1_000, credit_limit: { type: 'cost', value: 1_000 }, periodic_reset: 'monthly' }),
        admin('POST', '/v1/policies/rate-limits', { name: 'compaction tokens', conditions: team, group_by: [{ key: 'metadata.team' }], type: 'tokens', unit: 'rpd', value: 1_000_000 }),
      ]);
      expect(created.map((response) => response.status)).toEqual([201, 201]);
      // The gateway function holds the workspace's policies for GW_POLICY_CACHE_TTL_MS (5 s), then serves them stale
      // while one read refreshes them: a request of no team starts that read, and the suite's requests come after.
      await new Promise((resolve) => setTimeout(resolve, 5_500));
      expect((await stack.request('POST', '/prod/v1/chat/completions', { headers: viaMock(), body: chat })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const headers = { ...viaMock(), 'x-gw-trace-id': traceId, 'x-gw-metadata': JSON.stringify({ team: traceId }) };
      for (let i = 0; i < 2; i++) expect((await stack.request('POST', '/prod/v1/chat/completions', { headers, body: { ...chat, model } })).status).toBe(200);
      before = await read();
      expect(before.logs).toHaveLength(2);
      workspaceId = (before.logs as Array<{ workspace_id: string }>)[0].workspace_id;
    });

    it("rewrites today's files once today has ended: the compacted files in the run's folder and the workspace's bucket, then the day's state; the raw files kept for their grace", async () => {
      const raw = keysUnder(`requests/day=${today}/`);
      expect(raw.length).toBeGreaterThan(1);
      // Files written in the last seconds before a run stay raw (S3 times are whole seconds): let these settle.
      await new Promise((resolve) => setTimeout(resolve, CUTOFF_CLEARANCE_MS + 1_000));
      const result = (await stack.runSchedule('compact-request-logs', tomorrow)) as { compacted: number; rows: number; days: Array<{ table: string; day: string; outcome: string; rows?: number }> };
      const requestRows = (stack.standIns.delivered.get([...stack.standIns.delivered.keys()][0]) ?? []).length;
      expect(result.days.filter((day) => day.outcome === 'compacted')).toEqual([
        expect.objectContaining({ table: 'requests', day: today, rows: requestRows }),
        expect.objectContaining({ table: 'spans', day: today, rows: expect.any(Number) }),
      ]);
      expect(result.days.filter((day) => day.day !== today).every((day) => day.outcome === 'nothing-to-compact')).toBe(true);
      // Raw files are garbage collected an hour after the switch at the earliest; reads take them from the compacted folder.
      expect(keysUnder(`requests/day=${today}/`)).toEqual(raw);
      const [state] = keysUnder(`compacted/requests/_state/day=${today}/`);
      expect(state).toBeDefined();
      const marker = JSON.parse(stack.standIns.data.objects.get(state)!.toString('utf8')) as { raw_files: string[]; rows: number; slice: string };
      expect(marker).toMatchObject({ raw_files: raw, rows: requestRows });
      expect(keysUnder(`compacted/requests/${marker.slice}/ws_bucket=${workspaceBucket(workspaceId)}/`).length).toBeGreaterThan(0);
      // The UNLOAD ran as the compaction function, in the compaction's own workgroup (its scan limit), its manifest
      // under that workgroup's result prefix.
      const started = stack.checked.filter((entry) => entry.startsWith('compact-request-logs athena:StartQueryExecution '));
      expect(started.length).toBeGreaterThan(0);
      expect(started.every((entry) => /:workgroup\/[^ ]+-logs-compaction$/.test(entry))).toBe(true);
      expect([...stack.standIns.results.objects.keys()].some((key) => key.startsWith('compaction/') && key.endsWith('-manifest.csv'))).toBe(true);
    });

    it('answers the same logs, analytics and trace from the compacted tables, reading only the workspace\'s bucket', async () => {
      expect(await read()).toEqual(before);
      const list = [...stack.standIns.executions.values()].reverse().find((execution) => execution.parameters.includes(`'${traceId}'`) && execution.query.includes('FROM requests_compacted'));
      expect(list, 'the read took the compacted table').toBeDefined();
      expect(list!.query).toContain('ws_bucket = ?');
      expect(list!.parameters).toContain(String(workspaceBucket(workspaceId)));
    });

    it('reads a request that arrives after the compaction from the raw files, beside the compacted ones, each once', async () => {
      const before = keysUnder(`requests/day=${today}/`).length;
      const headers = { ...viaMock(), 'x-gw-trace-id': traceId, 'x-gw-metadata': JSON.stringify({ team: traceId }) };
      expect((await stack.request('POST', '/prod/v1/chat/completions', { headers, body: { ...chat, model } })).status).toBe(200);
      expect(keysUnder(`requests/day=${today}/`)).toHaveLength(before + 1);
      expect(json<{ data: unknown[] }>(await admin('GET', `/v1/logs?metadata.team=${encodeURIComponent(traceId)}`)).data).toHaveLength(3);
    });

    it('changes nothing when it runs again: the day is marked, and the new raw file was not one it compacted', async () => {
      const files = [...stack.standIns.data.objects.keys()].sort();
      const result = (await stack.runSchedule('compact-request-logs', tomorrow)) as { compacted: number; days: Array<{ day: string; table: string; outcome: string; deletedRawFiles: number }> };
      expect(result.compacted).toBe(0);
      expect(result.days.filter((day) => day.day === today)).toEqual([
        expect.objectContaining({ table: 'requests', outcome: 'already-compacted', deletedRawFiles: 0 }),
        expect.objectContaining({ table: 'spans', outcome: 'already-compacted', deletedRawFiles: 0 }),
      ]);
      expect([...stack.standIns.data.objects.keys()].sort()).toEqual(files);
    });

    it('reconciles after the compaction and across the late raw file: analytics, the logged requests and every limit counter agree', async () => {
      const report = await reconcile({ workspaceId, from }, reconcileOnStack(stack));
      expect(report.differences, formatReconcileReport(report)).toEqual([]);
      // The request of no team, the two compacted ones of the team, and the late one read raw, each once, plus what
      // the suite's other files logged in this workspace before (the full run shares the stack): the two agree.
      expect(report.logged.requests).toBeGreaterThanOrEqual(4);
      expect(report.analytics.requests).toBe(report.logged.requests);
      expect(report.limits.skipped).toEqual([]);
      const charged = report.limits.compared.filter((comparison) => comparison.charged > 0).map((comparison) => comparison.limit);
      expect(charged).toEqual(expect.arrayContaining([expect.stringMatching(/^policy "compaction tokens"/), expect.stringMatching(/^policy "compaction cost"/)]));
      // Its reads took today from the compacted table (the late file, raw, is the fourth request above).
      const reads = [...stack.standIns.executions.values()].filter((execution) => execution.query.includes('DECIMAL(38, 10)'));
      expect(reads.length).toBeGreaterThan(0);
      expect(reads.every((execution) => execution.query.includes('FROM requests_compacted'))).toBe(true);
    });
  });
}
