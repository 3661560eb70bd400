import { hideUsageForMembers } from '../logs/hide-usage.js';
import { presentLog } from '../logs/present.js';
import { loadBody } from '../../observability/log-bodies.js';
import { logger } from '../../observability/logger.js';
import { blobStore } from '../../store/blobs/blob-store-factory.js';
import { ExportRepository, type ExportRecord } from '../../store/export-repository.js';
import { LogRepository, type LogFilter } from '../../store/log-repository.js';

const PAGE = 100;
/** An export is cut at this many records (the job says so in its error); narrower filters get the rest. */
export const MAX_EXPORT_ROWS = 100_000;

export function exportBlobKey(workspaceId: string, exportId: string): string {
  return `exports/${workspaceId}/${exportId}.jsonl`;
}

/**
 * Writes the records matching the filter as JSON Lines (one GET /v1/logs/{id} object per line, bodies read
 * back from the blob store) and marks the job completed, or failed with the reason.
 */
export async function runExport(job: ExportRecord, filter: LogFilter): Promise<void> {
  const jobs = new ExportRepository();
  try {
    await jobs.update(job.workspace_id, job.id, { status: 'running' });
    const logs = new LogRepository();
    const lines: string[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await logs.list(job.workspace_id, filter, PAGE, startKey);
      for (const record of page.items) {
        const requestBody = record.request_body_ref ? await bodyOrNull(record.request_body_ref, job) : record.request_body;
        const responseBody = record.response_body_ref ? await bodyOrNull(record.response_body_ref, job) : record.response_body;
        const row = presentLog({ ...record, request_body: requestBody, response_body: responseBody });
        lines.push(JSON.stringify(hideUsageForMembers(row, { seesUsage: job.usage_hidden !== true })));
      }
      startKey = page.nextKey;
    } while (startKey && lines.length < MAX_EXPORT_ROWS);
    const key = exportBlobKey(job.workspace_id, job.id);
    await blobStore().put(key, lines.length > 0 ? `${lines.join('\n')}\n` : '', 'application/x-ndjson');
    await jobs.update(job.workspace_id, job.id, {
      status: 'completed',
      completed_at: new Date().toISOString(),
      row_count: lines.length,
      blob_key: key,
      error: startKey ? `cut at ${MAX_EXPORT_ROWS} records; narrow the filters (from/to) for the rest` : undefined,
    });
  } catch (error) {
    logger.error('data export failed', { export_id: job.id, error: error as Error });
    await jobs.update(job.workspace_id, job.id, { status: 'failed', completed_at: new Date().toISOString(), error: 'The export could not be written; try again' });
  }
}

/**
 * A log body for the export, or null when it cannot be read: a missing body is already null (loadBody), and one body
 * the store fails to return costs that record its body, never the whole export.
 */
async function bodyOrNull(key: string, job: ExportRecord): Promise<unknown> {
  try {
    return await loadBody(key);
  } catch (error) {
    logger.warn('data export: a log body could not be read; exported without it', { export_id: job.id, error: (error as Error).name });
    return null;
  }
}
