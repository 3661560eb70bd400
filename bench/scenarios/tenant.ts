import { jsonCall } from '../measure/http-probe.js';

/** Who the bench calls gw as. */
export interface BenchTenant {
  /** The key inference requests carry in `x-gw-api-key`. */
  apiKey: string;
  /** The bench workspace, when it was created through the API. */
  workspaceId?: string;
  source: 'api' | 'bootstrap-admin-key';
  note: string;
}

/** The scopes the bench key needs: inference only; setup calls use the admin key. */
const BENCH_KEY_SCOPES = ['completions:write'];

/**
 * Creates the bench workspace and an API key in it through the control-plane API (`POST /v1/workspaces`,
 * `POST /v1/api-keys`) with the bootstrap admin key. While those routes do not exist yet (404
 * `route_not_found`), the bench runs with the bootstrap admin key itself, and says so in the report; once
 * they exist the harness uses them without a change. Any other failure is an error of the run.
 */
export async function createBenchWorkspaceAndKey(gwUrl: string, adminKey: string): Promise<BenchTenant> {
  const admin = { 'x-gw-api-key': adminKey };
  const workspace = await jsonCall(`${gwUrl}/v1/workspaces`, 'POST', admin, { name: 'bench', slug: `bench-${Date.now().toString(36)}` });
  if (isMissingRoute(workspace)) {
    return { apiKey: adminKey, source: 'bootstrap-admin-key', note: 'POST /v1/workspaces is not available yet: the bootstrap admin key of the default workspace is used' };
  }
  const workspaceId = stringField(workspace.json, 'id');
  if (workspace.status >= 300 || !workspaceId) throw new Error(`POST /v1/workspaces answered ${workspace.status}: ${JSON.stringify(workspace.json).slice(0, 500)}`);

  const key = await jsonCall(`${gwUrl}/v1/api-keys`, 'POST', admin, { name: 'bench', workspace_id: workspaceId, scopes: BENCH_KEY_SCOPES });
  if (isMissingRoute(key)) {
    return { apiKey: adminKey, workspaceId, source: 'bootstrap-admin-key', note: 'POST /v1/api-keys is not available yet: the bootstrap admin key is used' };
  }
  const rawKey = stringField(key.json, 'key');
  if (key.status >= 300 || !rawKey) throw new Error(`POST /v1/api-keys answered ${key.status}: ${JSON.stringify(key.json).slice(0, 500)}`);
  return { apiKey: rawKey, workspaceId, source: 'api', note: `workspace ${workspaceId} and a workspace key (scopes ${BENCH_KEY_SCOPES.join(', ')}) created through the API` };
}

export function isMissingRoute(response: { status: number; json: unknown }): boolean {
  return response.status === 404 && errorCode(response.json) === 'route_not_found';
}

export function errorCode(json: unknown): string | undefined {
  const error = (json as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' ? error.code : undefined;
}

export function errorMessage(json: unknown): string {
  const error = (json as { error?: { message?: unknown } } | undefined)?.error;
  return typeof error?.message === 'string' ? error.message : JSON.stringify(json).slice(0, 300);
}

/** A string field at the top level or under `data` (both shapes are common in control-plane answers). */
export function stringField(json: unknown, name: string): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const record = json as Record<string, unknown>;
  if (typeof record[name] === 'string') return record[name];
  const data = record.data;
  if (typeof data === 'object' && data !== null && typeof (data as Record<string, unknown>)[name] === 'string') return (data as Record<string, string>)[name];
  return undefined;
}
