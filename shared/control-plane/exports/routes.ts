import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { publicBaseUrl } from '../../http/public-base-url.js';
import { isAbsolute } from 'node:path';
import { jsonResponse, type NeutralRequest } from '../../http/types.js';
import { GatewayError } from '../../http/errors.js';
import { runInBackground } from '../../observability/background.js';
import { assertLogEngineServing } from '../../observability/engine/select.js';
import { ExportRepository, type ExportRecord } from '../../store/export-repository.js';
import type { ControlPlaneRequest } from '../handler-types.js';
import { actorOf } from '../../audit/record.js';
import { notFound, requireScope } from '../authorization.js';
import { readPageRequest, toPage, type Page } from '../pagination.js';
import { gatedBy } from '../feature-flags.js';
import { usageViewerFor } from '../analytics/visibility.js';
import { logWorkspace, readLogFilter } from '../logs/filters.js';
import { freshnessHeaders } from '../logs/log-reader.js';
import type { RouteRegistrar } from '../handler-types.js';
import { parseJsonBody } from '../../http/json-body.js';
import { validate } from '../../http/json-body.js';
import { EXPORT_CONTENT_TYPES, refreshExportJob, startExportJob } from './export-jobs.js';
import { exportCreateSchema, exportIdPathSchema, exportListQuerySchema, type DataExport } from './schemas.js';

/** POST and GET /v1/exports, GET /v1/exports/{id}, GET /v1/exports/{id}/download; 404 while DATA_EXPORTS_ENABLED is OFF. */
export function registerExportRoutes(register: RouteRegistrar): void {
  register('GET', '/v1/exports', gatedBy('DATA_EXPORTS_ENABLED', async (call) => jsonResponse(200, await listExports(call))));
  register('POST', '/v1/exports', gatedBy('DATA_EXPORTS_ENABLED', async (call) => jsonResponse(202, await createExport(call), await freshnessHeaders())));
  register('GET', '/v1/exports/{id}', gatedBy('DATA_EXPORTS_ENABLED', async (call) => jsonResponse(200, await getExport(call))));
  register(
    'GET',
    '/v1/exports/{id}/download',
    gatedBy('DATA_EXPORTS_ENABLED', async (call) => {
      const job = await findExport(call);
      const file = localOutput(job);
      if (job.status !== 'completed' || !file) throw new GatewayError(409, 'export_not_ready', `The export '${job.id}' is ${job.status}; download it once completed`);
      if (await needsHiding(call, job)) throw usageHidden(job);
      // The file outlived by its job (retention removed it): gone, not "not ready".
      if (!(await stat(file).catch(() => undefined))) throw new GatewayError(404, 'export_file_not_found', `The file of export '${job.id}' no longer exists; create the export again`);
      const format = job.format ?? 'jsonl';
      // Streamed from the file: memory stays flat whatever the export's size.
      return {
        status: 200,
        headers: { 'content-type': EXPORT_CONTENT_TYPES[format], 'content-disposition': `attachment; filename="gw-logs-${job.id}.${format}"` },
        body: createReadStream(file) as AsyncIterable<Uint8Array>,
      };
    }),
  );
}

/** Starts an export of the logs matching the filters: an engine job, started in the background. */
export async function createExport(call: ControlPlaneRequest): Promise<DataExport> {
  requireScope(call.principal, 'logs:read');
  const body = parseJsonBody(call.request, exportCreateSchema);
  const { metadata, format, ...rest } = body;
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
    format,
    filters: { ...rest, ...(metadata ? { metadata } : {}) },
    created_at: new Date().toISOString(),
  };
  // A caller who may not see tokens and cost exports rows without them (left out by the engine's statement).
  if (!(await usageViewerFor(call.principal, workspace)).seesUsage) job.usage_hidden = true;
  // A failing engine is told now (503), not as a job that fails a moment later.
  await assertLogEngineServing();
  await new ExportRepository().create(job);
  runInBackground('data export', () => startExportJob(job, { organisationId: call.principal.organisationId, workspaceId: workspace }, filter));
  return presentExport(job, []);
}

/**
 * The workspace's exports, newest first, a page at a time: the caller's workspace, or (admin callers) the one named
 * by workspace_id. Each as GET /v1/exports/{id} shows it: a running one is asked of its engine, and a link only
 * for a caller who may see what the file holds.
 */
export async function listExports(call: ControlPlaneRequest): Promise<Page<DataExport>> {
  requireScope(call.principal, 'logs:read');
  const query = validate(exportListQuerySchema, call.request.query);
  const page = readPageRequest(call.request);
  const workspace = await logWorkspace(call.principal, query.workspace_id);
  const { records, nextKey } = await new ExportRepository().list(workspace, page);
  const seesUsage = (await usageViewerFor(call.principal, workspace)).seesUsage;
  const exports = await Promise.all(
    records.map(async (record) => {
      const job = await refreshExportJob(record);
      const linked = job.status === 'completed' && (seesUsage || job.usage_hidden === true);
      return presentExport(job, linked ? await downloadUrls(call.request, job) : []);
    }),
  );
  return toPage(exports, nextKey);
}

export async function getExport(call: ControlPlaneRequest): Promise<DataExport> {
  const job = await findExport(call);
  // An export holding tokens and cost is not handed to a caller who may not see them: no link, and a 403 at download.
  const urls = job.status === 'completed' && !(await needsHiding(call, job)) ? await downloadUrls(call.request, job) : [];
  return presentExport(job, urls);
}

/** True when the caller may not see tokens and cost but the export holds them (someone who may made it). */
async function needsHiding(call: ControlPlaneRequest, job: ExportRecord): Promise<boolean> {
  return job.usage_hidden !== true && !(await usageViewerFor(call.principal, job.workspace_id)).seesUsage;
}

function usageHidden(job: ExportRecord): GatewayError {
  return new GatewayError(403, 'export_usage_hidden', `The export '${job.id}' holds tokens and cost, which this key may not see in this workspace; create an export of your own`);
}

async function findExport(call: ControlPlaneRequest): Promise<ExportRecord> {
  requireScope(call.principal, 'logs:read');
  const { id } = validate(exportIdPathSchema, { id: call.params.id });
  const workspace = await logWorkspace(call.principal, call.request.query.workspace_id);
  const job = await new ExportRepository().get(workspace, id);
  if (!job) throw notFound('export', id);
  return refreshExportJob(job);
}

/** The engine's output when it is a file of this machine (DuckDB), which the download route streams. */
function localOutput(job: ExportRecord): string | undefined {
  const [output] = job.outputs ?? [];
  return output && isAbsolute(output) ? output : undefined;
}

/** How long a presigned export link works. */
const DOWNLOAD_URL_TTL_SECONDS = 3_600;

/**
 * Where the caller fetches the files: S3 outputs (Athena UNLOAD, which may write several files) as presigned URLs;
 * a local file through this control plane's download route, behind the caller's key.
 */
async function downloadUrls(request: NeutralRequest, job: ExportRecord): Promise<string[]> {
  const outputs = job.outputs ?? [];
  if (outputs.length > 0 && outputs.every((output) => output.startsWith('s3://'))) {
    const { presignExportFiles } = await import('../../observability/engine/aws/export-download.js');
    return presignExportFiles(outputs, DOWNLOAD_URL_TTL_SECONDS);
  }
  if (!localOutput(job)) return [];
  // From the configured address, never from the request's Host or X-Forwarded-Proto (public-base-url.ts).
  const query = job.workspace_id ? `?workspace_id=${encodeURIComponent(job.workspace_id)}` : '';
  return [`${publicBaseUrl()}/v1/exports/${encodeURIComponent(job.id)}/download${query}`];
}

function presentExport(job: ExportRecord, urls: string[]): DataExport {
  return {
    object: 'export',
    id: job.id,
    workspace_id: job.workspace_id,
    status: job.status,
    filters: job.filters,
    format: job.format ?? 'jsonl',
    row_count: job.row_count ?? null,
    created_at: job.created_at,
    completed_at: job.completed_at ?? null,
    download_url: urls[0] ?? null,
    download_urls: urls,
    error: job.error ?? null,
  };
}
