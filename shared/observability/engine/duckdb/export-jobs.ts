import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';

type ExportJob = { state: 'running' | 'succeeded' | 'failed'; error?: string; outputs?: string[]; rows?: number };

// Parquet row groups of 16,384 rows: the writer buffers a row group per thread, and the default (122,880) held ~130 MiB.
const FORMATS = { jsonl: 'FORMAT json', parquet: 'FORMAT parquet, ROW_GROUP_SIZE 16384', csv: 'FORMAT csv, HEADER true' } as const;

/** Exports as DuckDB COPY jobs in the worker: started at once, polled by id, awaited by a close. */
export class ExportJobs {
  private readonly jobs = new Map<string, ExportJob>();
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly withConnection: <T>(work: (connection: DuckDBConnection) => Promise<T>) => Promise<T>) {}

  start(sql: string, params: Array<string | number | boolean | null>, format: keyof typeof FORMATS, destination: string): { jobId: string } {
    if (!isAbsolute(destination) || /['\\\0]/.test(destination)) throw new Error(`not a safe export path: ${destination}`);
    mkdirSync(dirname(destination), { recursive: true });
    const jobId = `duckdb-${randomUUID()}`;
    const job: ExportJob = { state: 'running' };
    this.jobs.set(jobId, job);
    // The path is made by gw (checked above), never by a caller: COPY takes no parameter for it.
    const copy = `COPY (${sql}) TO '${destination}' (${FORMATS[format]})`;
    const work = this.withConnection((connection) => connection.run(copy, params))
      .then((result) => Object.assign(job, { state: 'succeeded', outputs: [destination], rows: result.rowsChanged }))
      .catch((error: unknown) => {
        console.error(`gw: export failed: ${(error as Error).message}`);
        Object.assign(job, { state: 'failed', error: 'The export could not be written; try again' });
      })
      .finally(() => this.running.delete(work));
    this.running.add(work);
    return { jobId };
  }

  status(jobId: string): ExportJob {
    // A job of an earlier process (restarted meanwhile) is gone with it.
    return this.jobs.get(jobId) ?? { state: 'failed', error: 'The export was interrupted (gw restarted); start it again' };
  }

  async settled(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
