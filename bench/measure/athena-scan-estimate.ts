import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { WORKSPACE_BUCKETS, workspaceBucket } from '../../shared/observability/engine/sql.js';

/**
 * How many bytes Athena would scan for a grouped 30-day analytics query over 1M requests a day (issue #32's goal:
 * < 100 MB). Athena bills the bytes it reads from S3: with partition projection only the 30 `day=` prefixes, and in
 * Parquet only the column chunks the query touches (plus footers). So: one day of 1M synthetic rows with the
 * planned request columns is written as Parquet by DuckDB, in row groups of the size Firehose's 45 s buffer makes at
 * 1M requests a day (~520 rows, each its own file on S3), and the compressed sizes of the touched columns' chunks
 * are summed from the Parquet metadata, then multiplied by 30.
 *
 *   npx tsx bench/measure/athena-scan-estimate.ts
 */
const ROWS_PER_DAY = 1_000_000;
const DAYS = 30;
// 86,400 s / 45 s buffer = 1,920 files a day.
const ROWS_PER_FIREHOSE_FILE = Math.ceil(ROWS_PER_DAY / (86_400 / 45));

const SYNTHETIC_DAY = `
  SELECT
    'req_' || substr(md5(i::VARCHAR), 1, 26) AS id,
    md5('trace' || i::VARCHAR) AS trace_id,
    'org_' || (hash(i * 17) % 5)::VARCHAR AS organisation_id,
    'ws_' || (hash(i * 19) % 50)::VARCHAR AS workspace_id,
    'key_' || (hash(i * 7) % 500)::VARCHAR AS api_key_id,
    TIMESTAMP '2026-11-27 00:00:00' + to_microseconds((i * 86400)::BIGINT) AS created_at,
    ['openai', 'anthropic', 'bedrock', 'vertex-ai', 'azure-openai', 'groq', 'mistral', 'cohere'][1 + (hash(i * 3) % 8)::INTEGER] AS provider,
    'model-' || (hash(i * 5) % 20)::VARCHAR AS model,
    ['/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/embeddings'][1 + (hash(i * 23) % 4)::INTEGER] AS endpoint,
    CASE WHEN hash(i * 11) % 100 < 97 THEN 200 ELSE 429 END::BIGINT AS status,
    CASE WHEN hash(i * 11) % 100 < 97 THEN 'success' ELSE 'rate_limited' END AS outcome,
    (200 + hash(i * 29) % 5000)::BIGINT AS latency_ms,
    (50 + hash(i * 31) % 800)::BIGINT AS ttfb_ms,
    (hash(i * 37) % 4000)::BIGINT AS prompt_tokens,
    (hash(i * 41) % 1000)::BIGINT AS completion_tokens,
    (hash(i * 37) % 4000 + hash(i * 41) % 1000)::BIGINT AS total_tokens,
    (hash(i * 43) % 100000) / 1e7 AS cost,
    ['MISS', 'HIT', 'DISABLED'][1 + (hash(i * 47) % 3)::INTEGER] AS cache_status,
    (hash(i * 53) % 3)::BIGINT AS retry_count,
    hash(i * 59) % 2 = 0 AS stream,
    'config.targets[' || (hash(i * 61) % 2)::VARCHAR || ']' AS target_path,
    MAP {'team': 'team-' || (hash(i * 67) % 12)::VARCHAR, 'env': ['prod', 'staging'][1 + (hash(i * 71) % 2)::INTEGER]} AS metadata,
    'logs/ws/' || substr(md5('q' || i::VARCHAR), 1, 20) AS request_body_ref,
    'logs/ws/' || substr(md5('r' || i::VARCHAR), 1, 20) AS response_body_ref
  FROM range(0, ${ROWS_PER_DAY}) AS t(i)`;

/** Queries of the analytics API, and the columns each reads (Athena reads whole column chunks of a partition). */
const QUERIES: Array<{ name: string; columns: string[] }> = [
  { name: 'by model: count, tokens, cost, p50/p95 latency', columns: ['workspace_id', 'created_at', 'model', 'total_tokens', 'cost', 'latency_ms'] },
  { name: 'by metadata.team: count, cost', columns: ['workspace_id', 'created_at', 'metadata', 'cost'] },
  { name: 'by api key and provider: count, errors', columns: ['workspace_id', 'created_at', 'api_key_id', 'provider', 'status'] },
];

interface Layout {
  name: string;
  /** How the day's rows are ordered and cut into row groups before they are written. */
  orderBy?: string;
  rowGroupRows: number;
  /** Write one file per this many rows (as Firehose writes one per buffer), instead of one file. */
  rowsPerFile?: number;
  /**
   * Write one folder per workspace bucket (`ws_bucket=K/`, as the daily compaction's UNLOAD does: sql.ts
   * workspaceBucket): a workspace's query reads only its bucket's files, whatever their row groups.
   */
  workspaceBuckets?: boolean;
}

const LAYOUTS: Layout[] = [
  { name: `as Firehose writes it (1,920 files of ~${ROWS_PER_FIREHOSE_FILE} rows, arrival order)`, rowGroupRows: ROWS_PER_FIREHOSE_FILE, rowsPerFile: ROWS_PER_FIREHOSE_FILE },
  { name: 'compacted once a day, sorted by workspace_id, created_at (row groups of 122,880 rows)', orderBy: 'workspace_id, created_at', rowGroupRows: 122_880 },
  { name: 'compacted once a day, sorted by workspace_id, created_at (row groups of 10,000 rows)', orderBy: 'workspace_id, created_at', rowGroupRows: 10_000 },
  // What the daily compaction writes (shared/observability/engine/aws/compaction.ts): an UNLOAD partitioned by the
  // workspace bucket, sorted by workspace and time. Athena's (Trino's) Parquet writer cuts row groups by size (128 MB
  // by default), which a bucket's file of a day does not reach: one row group per file, so no row group statistics
  // help, and the pruning is the bucket folder's alone.
  {
    name: `compacted by the daily UNLOAD: ${WORKSPACE_BUCKETS} ws_bucket folders, sorted by workspace_id, created_at, one row group per file`,
    orderBy: 'workspace_id, created_at',
    rowGroupRows: ROWS_PER_DAY,
    workspaceBuckets: true,
  },
];

/** The workspace the per-workspace figures are for: one of 50, ~2 % of the traffic. */
const WORKSPACE = 'ws_7';

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

async function measure(connection: Awaited<ReturnType<DuckDBInstance['connect']>>, target: string, layout: Layout): Promise<void> {
  const ordered = `SELECT * FROM requests ${layout.orderBy ? `ORDER BY ${layout.orderBy}` : ''}`;
  let file = target;
  if (layout.workspaceBuckets) {
    // The bucket as sql.ts computes it (the low bits of the 8th byte of the id's MD5), in DuckDB's spelling.
    const bucket = `(('0x' || substr(md5(workspace_id), 15, 2))::INTEGER & ${WORKSPACE_BUCKETS - 1})`;
    await connection.run(
      `COPY (SELECT *, ${bucket} AS ws_bucket FROM (${ordered})) TO '${target}' (FORMAT parquet, COMPRESSION snappy, PARTITION_BY (ws_bucket), ROW_GROUP_SIZE ${layout.rowGroupRows})`,
    );
    file = `${target}/*/*.parquet`;
  } else if (layout.rowsPerFile) {
    // One Parquet file per `part` (a Hive directory each; the partition column itself is not written).
    await connection.run(
      `COPY (SELECT *, (row_number() OVER () - 1) // ${layout.rowsPerFile} AS part FROM (${ordered})) TO '${target}' (FORMAT parquet, COMPRESSION snappy, PARTITION_BY (part))`,
    );
    file = `${target}/*/*.parquet`;
  } else {
    await connection.run(`COPY (${ordered}) TO '${file}' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE ${layout.rowGroupRows})`);
  }
  // Per row group and column: compressed bytes, and whether its min/max of workspace_id can hold WORKSPACE (Athena
  // skips a row group whose statistics exclude the filter value, and does not read its chunks).
  const chunks = (
    await connection.runAndReadAll(
      `SELECT file_name || ':' || row_group_id AS row_group_id, path_in_schema AS path, total_compressed_size::BIGINT AS bytes, stats_min_value AS min, stats_max_value AS max FROM parquet_metadata('${file}')`,
    )
  ).getRowObjectsJS();
  // With bucket folders, only the files of the workspace's bucket are opened at all (partition projection).
  const inBucket = (rowGroup: string) => !layout.workspaceBuckets || rowGroup.includes(`/ws_bucket=${workspaceBucket(WORKSPACE)}/`);
  const holdsWorkspace = new Set(
    chunks
      .filter((chunk) => chunk.path === 'workspace_id' && String(chunk.min) <= WORKSPACE && WORKSPACE <= String(chunk.max) && inBucket(String(chunk.row_group_id)))
      .map((chunk) => String(chunk.row_group_id)),
  );
  if (layout.workspaceBuckets) {
    const sharing = await connection.runAndReadAll(
      `SELECT count(DISTINCT workspace_id) AS n FROM requests WHERE (('0x' || substr(md5(workspace_id), 15, 2))::INTEGER & ${WORKSPACE_BUCKETS - 1}) = ${workspaceBucket(WORKSPACE)}`,
    );
    console.log(`  (${WORKSPACE}'s bucket ${workspaceBucket(WORKSPACE)} holds ${String(sharing.getRowObjectsJS()[0].n)} of the 50 workspaces)`);
  }
  const columnOf = (path: unknown) => String(path).split(/[.,]/)[0].trim();
  const bytesFor = (columns: string[], onlyWorkspace: boolean) =>
    chunks
      .filter((chunk) => columns.includes(columnOf(chunk.path)) && (!onlyWorkspace || holdsWorkspace.has(String(chunk.row_group_id))))
      .reduce((sum, chunk) => sum + Number(chunk.bytes), 0);
  const groups = new Set(chunks.map((chunk) => String(chunk.row_group_id))).size;
  const stored = chunks.reduce((sum, chunk) => sum + Number(chunk.bytes), 0);
  console.log(`\n${layout.name}: ${mb(stored)} MB of column chunks a day; ${holdsWorkspace.size} of ${groups} row groups may hold ${WORKSPACE}`);
  for (const query of QUERIES) {
    const all = bytesFor(query.columns, false);
    const one = bytesFor(query.columns, true);
    console.log(`  ${query.name}: all workspaces ${mb(all * DAYS)} MB / ${DAYS} days; one workspace (${WORKSPACE}) ${mb(one * DAYS)} MB / ${DAYS} days`);
    if (layout.workspaceBuckets) {
      // Every workspace reads its bucket's files: the spread over the 50 (a bucket shared by several costs each of them).
      const perBucket = new Map<number, number>();
      for (const chunk of chunks.filter((entry) => query.columns.includes(columnOf(entry.path)))) {
        const bucket = Number(/\/ws_bucket=(\d+)\//.exec(String(chunk.row_group_id))?.[1]);
        perBucket.set(bucket, (perBucket.get(bucket) ?? 0) + Number(chunk.bytes));
      }
      const each = Array.from({ length: 50 }, (_, index) => (perBucket.get(workspaceBucket(`ws_${index}`)) ?? 0) * DAYS).sort((a, b) => a - b);
      console.log(`    every workspace's own query: min ${mb(each[0])}, median ${mb(each[25])}, max ${mb(each[49])} MB / ${DAYS} days`);
    }
  }
}

const dir = mkdtempSync(join(tmpdir(), 'gw-scan-'));
try {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`CREATE TABLE requests AS ${SYNTHETIC_DAY}`);
  console.log(`${ROWS_PER_DAY.toLocaleString()} synthetic requests a day, ${DAYS} days; bytes are Parquet (Snappy) column chunks read, footers left out`);
  for (const [index, layout] of LAYOUTS.entries()) await measure(connection, join(dir, `layout-${index}.parquet`), layout);
  const file = join(dir, 'layout-1.parquet');
  const started = performance.now();
  await connection.runAndReadAll(
    `SELECT model, count(*), sum(total_tokens), sum(cost), quantile_cont(latency_ms, [0.5, 0.95]) FROM read_parquet('${file}') WHERE workspace_id = '${WORKSPACE}' GROUP BY model`,
  );
  console.log(`\nDuckDB, the by-model query for ${WORKSPACE} over one day's compacted file (1M rows): ${(performance.now() - started).toFixed(0)} ms`);
  connection.closeSync();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
