import { join } from 'node:path';
import { settings } from '../../settings.js';
import { exportRequests, type LogFilter } from '../../observability/engine/log-queries.js';
import { localExportDirectory, logEngines } from '../../observability/engine/select.js';
import type { LogScope } from '../../observability/engine/sql.js';
import { logger } from '../../observability/logger.js';
import { ExportRepository, type ExportFormat, type ExportRecord } from '../../store/export-repository.js';
import { USAGE_EXPORT_COLUMNS } from '../logs/hide-usage.js';
import { readRange } from '../logs/log-reader.js';

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = { jsonl: 'application/x-ndjson', parquet: 'application/vnd.apache.parquet', csv: 'text/csv' };

/**
 * Where an export is written: locally a file under GW_LOG_EXPORT_DIR (one folder per workspace); on AWS a key
 * prefix the engine places under its result bucket.
 */
export function exportDestination(dialect: 'duckdb' | 'trino', job: Pick<ExportRecord, 'id' | 'workspace_id'>, format: ExportFormat): string {
  const file = `${job.id}.${format}`;
  if (dialect === 'duckdb') return join(localExportDirectory(), job.workspace_id, file);
  const bucket = settings().GW_LOG_RESULTS_BUCKET;
  if (!bucket) throw new Error('GW_LOG_RESULTS_BUCKET is not set: the stack sets it for the request-log engine');
  return `s3://${bucket}/exports/${job.workspace_id}/${job.id}/`;
}

/**
 * Starts the engine job that writes the matching rows (DuckDB COPY, Athena UNLOAD): run in the background after
 * POST /v1/exports answered, and it only starts the job, so nothing waits on the export inside a request.
 */
export async function startExportJob(job: ExportRecord, scope: LogScope, filter: LogFilter): Promise<void> {
  const jobs = new ExportRepository();
  try {
    const { engine } = await logEngines();
    const omitColumns = job.usage_hidden === true ? USAGE_EXPORT_COLUMNS : [];
    // A CSV is opened in spreadsheets: cells that would run as formulas are neutralised (log-queries.ts, formulaSafe).
    const statement = exportRequests(engine.dialect, { scope, range: readRange(filter), filter }, { omitColumns, neutraliseFormulas: job.format === 'csv' });
    const { jobId } = await engine.startExport(statement, job.format ?? 'jsonl', exportDestination(engine.dialect, job, job.format ?? 'jsonl'));
    await jobs.update(job.workspace_id, job.id, { status: 'running', engine_job_id: jobId });
  } catch (error) {
    logger.error('data export could not start', { export_id: job.id, error: error as Error });
    await jobs.update(job.workspace_id, job.id, { status: 'failed', completed_at: new Date().toISOString(), error: 'The export could not be started; try again' });
  }
}

/** The job as it stands: a running job asks its engine, and records the outcome once the engine has one. */
export async function refreshExportJob(job: ExportRecord): Promise<ExportRecord> {
  if (job.status !== 'running' || !job.engine_job_id) return job;
  const { engine } = await logEngines();
  const status = await engine.exportStatus(job.engine_job_id);
  if (status.state === 'running') return job;
  const changes: Partial<ExportRecord> =
    status.state === 'succeeded'
      ? { status: 'completed', completed_at: new Date().toISOString(), outputs: status.outputs ?? [], ...(status.rows === undefined ? {} : { row_count: status.rows }) }
      : { status: 'failed', completed_at: new Date().toISOString(), error: status.error ?? 'The export failed; try again' };
  await new ExportRepository().update(job.workspace_id, job.id, changes);
  return { ...job, ...changes };
}
