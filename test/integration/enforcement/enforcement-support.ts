import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { groupOf } from '../../../shared/gateway/enforcement/policy-match.js';
import { returnAllQuotaLeases } from '../../../shared/gateway/enforcement/quota-leases.js';
import { rateWindow, resetPeriod } from '../../../shared/gateway/enforcement/windows.js';
import { CounterRepository, counterKey, type CounterKey } from '../../../shared/store/counter-repository.js';
import { hashApiKey } from '../../../shared/auth/api-key-secrets.js';
import { ApiKeyRepository } from '../../../shared/store/api-key-repository.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { subtractUsd } from '../../../shared/observability/pricing/usd.js';
import { WorkspaceBudgetRepository } from '../../../shared/store/workspace-budget-repository.js';
import { settings } from '../../../shared/settings.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import { keys } from '../../../shared/store/keys.js';
import { PolicyRepository, type PolicyRecord } from '../../../shared/store/policy-repository.js';
import { MAIN_TABLE, tableName } from '../../../shared/store/table-definitions.js';
import { TEST_ADMIN_KEY, type TestGateway } from '../../support/gateway.js';
import { watchGwStartup } from '../../support/local-process.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { watchStoreCommands } from '../../support/store-commands.js';
import { requestLogsOfTrace } from '../../support/request-logs.js';
import { createKey } from '../control-plane/policies-support.js';

export const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };

/** Headers that send a chat request to the mock upstream as OpenAI, with the given metadata. */
export function viaMock(upstream: MockUpstream, metadata: Record<string, string> = {}, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'x-gw-provider': 'openai',
    'x-gw-custom-host': upstream.url,
    authorization: 'Bearer sk-provider-secret',
    'x-gw-metadata': JSON.stringify(metadata),
    ...extra,
  };
}

/** The id of the gateway's bootstrap admin key (the key the test requests are sent with). */
export async function adminKeyId(gateway: TestGateway): Promise<string> {
  return (await new ApiKeyRepository().findByHash(hashApiKey(gateway.apiKey)))!.id;
}

/** How many calls the mock provider received for a metadata user (gw sends `_user` as the body's `user`). */
export function upstreamCallsFor(upstream: MockUpstream, user: string): number {
  return upstream.requests.filter((request) => (request.json as { user?: string } | undefined)?.user === user).length;
}

/** Creates a policy through the policies API (as the bootstrap admin) and returns its stored record. */
export async function createPolicy(gateway: TestGateway, kind: 'rate-limits' | 'usage-limits', payload: Record<string, unknown>): Promise<PolicyRecord> {
  const response = await fetch(`${gateway.url}/v1/policies/${kind}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey },
    body: JSON.stringify(payload),
  });
  const body = (await response.json()) as { id: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return (await new PolicyRepository().findById(body.id))!;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** One chat completion through the gateway; the body is read so the response (and its usage) completes. */
export async function chat(gateway: TestGateway, headers: Record<string, string>, body: unknown = CHAT): Promise<Answer> {
  const response = await gateway.post('/v1/chat/completions', body, headers);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : { text } };
}

/** `count` requests at once. */
export function concurrently(count: number, send: (index: number) => Promise<Answer>): Promise<Answer[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => send(index)));
}

/** The key of a policy's counter for a group now: its rate counter (window) or its credit counter (period). */
export function policyCounter(policy: PolicyRecord, kind: 'rate' | 'credit', values: Record<string, string>): CounterKey {
  const now = Date.now();
  const window = kind === 'rate' ? rateWindow(policy.unit, now) : resetPeriod(policy.periodic_reset ?? 'none', now);
  const group = groupOf(policy, (key) => values[key]);
  return { pk: counterKey(policy.id, kind, group.hash, window.id), windowEnd: window.end };
}

/** The value of a policy's rate counter for a group, in the current window. */
export async function rateCounter(policy: PolicyRecord, values: Record<string, string>): Promise<number> {
  // This process's unused quota leases are counted in the store until given back.
  await returnAllQuotaLeases();
  return new CounterRepository().read(policyCounter(policy, 'rate', values), Date.now());
}

/** The value of a usage-limit policy's credit counter for a group, in the current period. */
export async function creditCounter(policy: PolicyRecord, values: Record<string, string>): Promise<number> {
  // As for rate counters: this process's unused amount leases count in the store until given back.
  await returnAllQuotaLeases();
  return new CounterRepository().read(policyCounter(policy, 'credit', values), Date.now());
}

/** Polls until `check` returns a value (background work such as charging lands after the response). */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, attempts = 200): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** The error body every refusal has; `message` is a fragment the message must contain. */
export function expectedError(code: string, type: string, message: string, param: string | null = null) {
  return { error: { code, type, param, message: expect.stringContaining(message) }, status: 'failure' };
}

/** Writes a workspace's budget numbers straight to the store (as spending elsewhere would have left them). */
/**
 * Stores an active policy straight through the repository, for tests whose feature flag switches the
 * policies API off: only the fields given differ from a workspace-wide, per-key policy.
 */
export async function storePolicyDirectly(gateway: TestGateway, fields: Partial<PolicyRecord> & Pick<PolicyRecord, 'kind' | 'name' | 'value'>): Promise<void> {
  const now = new Date().toISOString();
  await new PolicyRepository().create({
    id: randomUUID(),
    conditions: [{ key: 'workspace_id', value: '*' }],
    group_by: [{ key: 'api_key' }],
    type: 'requests',
    unit: 'rpd',
    status: 'active',
    workspace_id: gateway.bootstrap.workspaceId,
    organisation_id: gateway.bootstrap.organisationId,
    created_at: now,
    updated_at: now,
    version: 1,
    ...fields,
  });
}

export async function storeBudget(workspaceId: string, budget: { creditLimit: number | null; usage: number; status: 'active' | 'exhausted' }): Promise<void> {
  // Earlier requests charge their cost after their response, in the background: let those land first, or
  // they would add to the usage set here.
  await drainAllBackgroundWork();
  // Usage is the legacy attribute plus the budget's counter items: the attribute takes what makes the sum `usage`.
  const onCounters = (await new WorkspaceBudgetRepository().read(workspaceId))?.currentUsage ?? 0;
  const stored = (await dynamoDocumentClient().send(new GetCommand({ TableName: tableName(settings(), MAIN_TABLE), Key: keys.workspace(workspaceId), ConsistentRead: true }))).Item;
  const legacy = subtractUsd(budget.usage, subtractUsd(onCounters, Number(stored?.budget_current_usage ?? 0)));
  await dynamoDocumentClient().send(
    new UpdateCommand({
      TableName: tableName(settings(), MAIN_TABLE),
      Key: keys.workspace(workspaceId),
      UpdateExpression: 'SET budget_credit_limit = :limit, budget_current_usage = :usage, budget_status = :status',
      ExpressionAttributeValues: { ':limit': budget.creditLimit, ':usage': legacy, ':status': budget.status },
    }),
  );
}

/**
 * The request-log record of a trace, once written. It is written after the response was priced and charged,
 * so once it exists every charge of that request has landed.
 */
export async function requestLog(traceId: string): Promise<Record<string, unknown>> {
  return eventually(async () => {
    await drainAllBackgroundWork();
    return (await requestLogsOfTrace(traceId))[0] as unknown as Record<string, unknown> | undefined;
  }, `the request log of ${traceId}`);
}

export interface StoreCall {
  command: string;
  /** The item's partition key, when the command names one item. */
  target: string;
  at: number;
}

/**
 * Records the store commands this process sends through the real SDK client (a middleware on its stack) while
 * `recording` is true: what a request costs in round trips and writes. Made after the test's gateway started (the
 * client is made for its store).
 */
export function storeCallRecorder(name: string): { calls: StoreCall[]; recording: boolean } {
  const recorder = { calls: [] as StoreCall[], recording: false };
  watchStoreCommands(name, (command, input) => {
    const key = (input as { Key?: { pk?: string } }).Key;
    if (recorder.recording) recorder.calls.push({ command, target: String(key?.pk ?? ''), at: performance.now() });
  });
  return recorder;
}

/** Store commands that write. */
export const WRITE_COMMANDS = /^(UpdateItem|PutItem|DeleteItem|BatchWriteItem|TransactWriteItems)Command$/;

/** A control-plane call as the bootstrap admin; expects a 2xx answer and returns its body. */
export async function adminCall<T>(gateway: TestGateway, method: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${gateway.url}${path}`, { method, headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey }, body: JSON.stringify(body) });
  const parsed = (await response.json()) as T;
  expect(response.status, JSON.stringify(parsed)).toBeLessThan(300);
  return parsed;
}

/** A gateway call with the given gw key; only the status and headers are kept (the body is read to its end). */
export async function postAs(gateway: TestGateway, key: string, path: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
  const response = await gateway.post(path, body, { 'x-gw-api-key': key, ...headers });
  await response.text();
  return { status: response.status, headers: response.headers, body: {} };
}

export interface Tenant {
  workspaceId: string;
  key: string;
  keyId: string;
}

/** A workspace of its own (limits and budgets are per workspace), with an optional budget, and a key that may call the gateway. */
export async function createTenant(gateway: TestGateway, name: string, budget?: Record<string, unknown>): Promise<Tenant> {
  const response = await fetch(`${gateway.url}/v1/workspaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey },
    body: JSON.stringify({ name, ...(budget ? { budget } : {}) }),
  });
  const created = (await response.json()) as { id: string };
  expect(response.status).toBe(201);
  const key = await createKey({ organisationId: gateway.bootstrap.organisationId, workspaceId: created.id, scopes: ['completions:write'] });
  return { workspaceId: created.id, key: key.raw, keyId: key.id };
}

/** Another gw process on the test's store: its URL, and SIGKILL (a crash) that resolves once it exited. */
export interface OtherGw {
  url: string;
  kill(): Promise<void>;
}

/**
 * The gw processes a test runs beside its own gateway on the same store (to crash one holding leases), and the
 * temporary folders the test makes; `stop` ends and removes them all, with the test's own servers.
 */
export class OtherGws {
  private readonly children: ChildProcess[] = [];
  private readonly dirs: string[] = [];

  tempDir(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.push(dir);
    return dir;
  }

  /** Starts `npm start`'s entry with the test's store; leases go back only at shutdown unless `env` says otherwise. */
  async start(env: Record<string, string> = {}): Promise<OtherGw> {
    const { GW_LOG_DUCKDB_PATH: _logs, GW_CHARGE_JOURNAL_DIR: _journal, GW_BLOB_DIR: _blobs, ...inherited } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
      env: {
        ...inherited,
        // A process killed with SIGKILL cannot remove its throwaway folders: they go with the test's.
        TMPDIR: this.tempDir('gw-other-tmp-'),
        PORT: '0',
        GW_DATA_DIR: this.tempDir('gw-other-data-'),
        GW_DYNAMODB_ENDPOINT: settings().GW_DYNAMODB_ENDPOINT!,
        GW_BOOTSTRAP_API_KEY: TEST_ADMIN_KEY,
        GW_LOCAL_SCHEDULE_INTERVAL_MS: '0',
        GW_QUOTA_LEASE_IDLE_MS: '300000',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.children.push(child);
    const url = await watchGwStartup(child as ChildProcess & { stdout: NonNullable<ChildProcess['stdout']>; stderr: NonNullable<ChildProcess['stderr']> }).listening;
    return {
      url,
      kill: async () => {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        process.kill(-child.pid!, 'SIGKILL');
        await exited;
      },
    };
  }

  /** Kills the processes still running, closes the given servers, removes the folders. */
  async stop(...servers: Array<{ close(): Promise<unknown> } | undefined>): Promise<void> {
    for (const child of this.children) {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
    }
    for (const server of servers) await server?.close();
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
  }
}
