import type { EngineTable } from '../types.js';

/**
 * The shape of the one column list (shared/observability/engine/columns.ts) as the AWS side needs it: a name and a
 * logical type per column, `day` ('YYYY-MM-DD') the partition column. Declared here structurally so the Firehose
 * sink and the Glue tables take the list as a parameter and never keep a copy of their own.
 */
export type LogicalColumnType = 'string' | 'bigint' | 'double' | 'boolean' | 'timestamp' | 'map<string,string>';

export interface EngineColumnSpec {
  name: string;
  type: LogicalColumnType;
}

export type EngineColumnsByTable = Readonly<Record<EngineTable, readonly EngineColumnSpec[]>>;

/** Partition column of both tables: S3 prefixes `day=YYYY-MM-DD/`, projected by Athena, never a Parquet column. */
export const PARTITION_COLUMN = 'day';

/** The columns stored in the Parquet files: every column except the partition column. */
export function dataColumns(columns: readonly EngineColumnSpec[]): EngineColumnSpec[] {
  return columns.filter((column) => column.name !== PARTITION_COLUMN);
}
