import { randomUUID } from 'node:crypto';
import { jsonResponse, type NeutralRequest } from '../../http/types.js';
import { GatewayError } from '../../http/errors.js';
import { runInBackground } from '../../observability/background.js';
import { blobStore } from '../../store/blobs/blob-store-factory.js';
import { ExportRepository, type ExportRecord } from '../../store/export-repository.js';
import type { ControlPlaneRequest } from '../app.js';
import { actorOf } from '../audit.js';
import { notFound, requireScope } from '../authorization.js';
import { gatedBy } from '../feature-flags.js';
import { usageViewerFor } from '../analytics/visibility.js';
import { logWorkspace, readLogFilter } from '../logs/filters.js';
import { hideUsageForMembers } from '../logs/hide-usage.js';
import type { RouteRegistrar } from '../routes.js';
import { parseJsonBody } from '../validation.js';
import { validate } from '../validation.js';
import { runExport } from './run-export.js';
import { exportCreateSchema, exportIdPathSchema, type DataExport } from './schemas.js';

const DOWNLOAD_URL_TTL_SECONDS = 3_600;

/** POST /v1/exports, GET /v1/exports/{id}, GET /v1/exports/{id}/download; 404 while DATA_EXPORTS_ENABLED is OFF. */
export function registerExportRoutes(register: RouteRegistrar): void {
  register('POST', '/v1/exports', gatedBy('DATA_EXPORTS_ENABLED', async (call) => jsonResponse(202, await createExport(call))));
  register('GET', '/v1/exports/{id}', gatedBy('DATA_EXPORTS_ENABLED', async (call) => jsonResponse(200, await getExport(call))));
  register(
    'GET',
    '/v1/exports/{id}/download',
    gatedBy('DATA_EXPORTS_ENABLED', async (call) => {
      const { job } = await findExport(call);
      if (job.status !== 'completed' || !job.blob_key) throw new GatewayError(409, 'export_not_ready', `The export '${job.id}' is ${job.status}; download it once completed`);
      const bytes = await blobStore().get(job.blob_key);
      // The file outlived by its job (the bucket lifecycle expired it, or it was removed): gone, not "not ready".
      if (!bytes) throw new GatewayError(404, 'export_file_not_found', `The file of export '${job.id}' no longer exists; create the export again`);
      const body = (await needsHiding(call, job)) ? hideUsageInLines(bytes) : bytes;
      return { status: 200, headers: { 'content-type': 'application/x-ndjson', 'content-disposition': `attachment; filename="gw-logs-${job.id}.jsonl"` }, body };
    }),
  );
}

/** Starts an export of the logs matching the filters; the file is written in the background. */
export async function createExport(call: ControlPlaneRequest): Promise<DataExport> {
  requireScope(call.principal, 'logs:read');
  const body = parseJsonBody(call.request, exportCreateSchema);
  const { metadata, ...rest } = body;
  const flat: Record<string, unknown> = { ...rest };
  for (const [name, value] of Object.entries(metadata ?? {})) flat[`metadata.${name}`] = value;
  const { filter, workspaceId } = readLogFilter(flat);
  const workspace = await logWorkspace(call.principal, workspaceId);
  const job: ExportRecord = {
    id: `exp_${randomUUID().replace(/-/g, '')}`,
    workspace_id: workspace,
    organisation_id: call.principal.organisationId,
    created_by: actorOf(call.principal)?.id ?? call.principal.keyId,
    status: 'pending',
    filters: { ...rest, ...(metadata ? { metadata } : {}) },
    created_at: new Date().toISOString(),
  };
  if (!(await usageViewerFor(call.principal, workspace)).seesUsage) job.usage_hidden = true;
  await new ExportRepository().create(job);
  runInBackground('data export', () => runExport(job, filter));
  return presentExport(job, null);
}

export async function getExport(call: ControlPlaneRequest): Promise<DataExport> {
  const { job } = await findExport(call);
  return presentExport(job, job.status === 'completed' && job.blob_key ? await downloadUrl(call.request, job, await needsHiding(call, job)) : null);
}

async function findExport(call: ControlPlaneRequest): Promise<{ job: ExportRecord }> {
  requireScope(call.principal, 'logs:read');
  const { id } = validate(exportIdPathSchema, { id: call.params.id });
  const workspace = await logWorkspace(call.principal, call.request.query.workspace_id);
  const job = await new ExportRepository().get(workspace, id);
  if (!job) throw notFound('export', id);
  return { job };
}

/**
 * True when the caller may not see tokens and cost but the file holds them (someone who may made the export):
 * the caller gets the file only through the download route, which hides them line by line.
 */
async function needsHiding(call: ControlPlaneRequest, job: ExportRecord): Promise<boolean> {
  return job.usage_hidden !== true && !(await usageViewerFor(call.principal, job.workspace_id)).seesUsage;
}

function hideUsageInLines(bytes: Uint8Array): string {
  const lines = Buffer.from(bytes).toString('utf8').split('\n').filter((line) => line !== '');
  const hidden = lines.map((line) => JSON.stringify(hideUsageForMembers(JSON.parse(line) as unknown, { seesUsage: false })));
  return hidden.length > 0 ? `${hidden.join('\n')}\n` : '';
}

/**
 * S3: a presigned URL, unless the file must be filtered for the caller. The local folder store, and filtered
 * files: this control plane's download route, behind the caller's key.
 */
async function downloadUrl(request: NeutralRequest, job: ExportRecord, filtered: boolean): Promise<string> {
  const store = blobStore();
  if (store.presignedUrl && job.blob_key && !filtered) return store.presignedUrl(job.blob_key, DOWNLOAD_URL_TTL_SECONDS);
  const host = request.headers.host ?? '127.0.0.1';
  const scheme = request.headers['x-forwarded-proto'] ?? 'http';
  const query = job.workspace_id ? `?workspace_id=${encodeURIComponent(job.workspace_id)}` : '';
  return `${scheme}://${host}/v1/exports/${job.id}/download${query}`;
}

function presentExport(job: ExportRecord, url: string | null): DataExport {
  return {
    object: 'export',
    id: job.id,
    workspace_id: job.workspace_id,
    status: job.status,
    filters: job.filters,
    format: 'jsonl',
    row_count: job.row_count ?? null,
    created_at: job.created_at,
    completed_at: job.completed_at ?? null,
    download_url: url,
    error: job.error ?? null,
  };
}
