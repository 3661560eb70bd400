import { Stack } from 'aws-cdk-lib';
import { CfnTable, type CfnDatabase } from 'aws-cdk-lib/aws-glue';
import type { Construct } from 'constructs';
import { dataColumns, PARTITION_COLUMN, type EngineColumnSpec, type LogicalColumnType } from '../../../shared/observability/engine/aws/table-columns.js';
import { SLICE_COLUMN } from '../../../shared/observability/engine/aws/compaction-state.js';
import { WORKSPACE_BUCKET_COLUMN, WORKSPACE_BUCKETS } from '../../../shared/observability/engine/sql.js';

/** Hive/Glue column types of the logical types (identical names, spelled out so a new logical type fails the build). */
const GLUE_TYPES: Readonly<Record<LogicalColumnType, string>> = {
  string: 'string',
  bigint: 'bigint',
  double: 'double',
  boolean: 'boolean',
  timestamp: 'timestamp',
  'map<string,string>': 'map<string,string>',
};

export interface LogGlueTableProps {
  database: CfnDatabase;
  databaseName: string;
  name: string;
  /** `s3://<data bucket>/<prefix>/`. */
  location: string;
  columns: readonly EngineColumnSpec[];
  /** First day the `day` projection covers ('YYYY-MM-DD'); it runs to NOW. */
  projectionStartDate: string;
  /**
   * The compacted tables: partitioned by the run's folder of a day (`compacted_slice`, injected: a read names the
   * slices of the compacted days, compaction-state.ts) and `ws_bucket` (sql.ts workspaceBucket, 0…WORKSPACE_BUCKETS-1);
   * `day` is a column of their files.
   */
  compacted?: boolean;
}

/**
 * A Parquet table of request logs over `location`, partitioned through partition projection: Athena computes the
 * partitions of a query from its filter, so there is no partition to register. The raw tables are partitioned by
 * `day`, so a query reads only the days it names. The compacted tables by the slices a read names (a run's folder
 * of a compacted day) and `ws_bucket` below, so a workspace's query reads one folder of each compacted day.
 */
export function logGlueTable(scope: Construct, id: string, props: LogGlueTableProps): CfnTable {
  let projection: Record<string, string>;
  let template: string;
  let partitionKeys: Array<{ name: string; type: string }>;
  let columns = dataColumns(props.columns).map((column) => ({ name: column.name, type: GLUE_TYPES[column.type] }));
  if (props.compacted) {
    projection = {
      'projection.enabled': 'true',
      [`projection.${SLICE_COLUMN}.type`]: 'injected',
      [`projection.${WORKSPACE_BUCKET_COLUMN}.type`]: 'integer',
      [`projection.${WORKSPACE_BUCKET_COLUMN}.range`]: `0,${WORKSPACE_BUCKETS - 1}`,
    };
    template = `${props.location}\${${SLICE_COLUMN}}/${WORKSPACE_BUCKET_COLUMN}=\${${WORKSPACE_BUCKET_COLUMN}}/`;
    partitionKeys = [{ name: SLICE_COLUMN, type: 'string' }, { name: WORKSPACE_BUCKET_COLUMN, type: 'int' }];
    columns = [...columns, { name: PARTITION_COLUMN, type: 'string' }];
  } else {
    projection = {
      'projection.enabled': 'true',
      [`projection.${PARTITION_COLUMN}.type`]: 'date',
      [`projection.${PARTITION_COLUMN}.format`]: 'yyyy-MM-dd',
      [`projection.${PARTITION_COLUMN}.range`]: `${props.projectionStartDate},NOW`,
      [`projection.${PARTITION_COLUMN}.interval`]: '1',
      [`projection.${PARTITION_COLUMN}.interval.unit`]: 'DAYS',
    };
    template = `${props.location}${PARTITION_COLUMN}=\${${PARTITION_COLUMN}}/`;
    partitionKeys = [{ name: PARTITION_COLUMN, type: 'string' }];
  }
  const table = new CfnTable(scope, id, {
    catalogId: Stack.of(scope).account,
    databaseName: props.databaseName,
    tableInput: {
      name: props.name,
      tableType: 'EXTERNAL_TABLE',
      parameters: { classification: 'parquet', ...projection, 'storage.location.template': template },
      partitionKeys,
      storageDescriptor: {
        location: props.location,
        columns,
        inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
        outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
        serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe', parameters: { 'serialization.format': '1' } },
      },
    },
  });
  table.node.addDependency(props.database);
  return table;
}
