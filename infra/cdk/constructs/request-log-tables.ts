import { Stack } from 'aws-cdk-lib';
import { CfnTable, type CfnDatabase } from 'aws-cdk-lib/aws-glue';
import type { Construct } from 'constructs';
import { dataColumns, PARTITION_COLUMN, type EngineColumnSpec, type LogicalColumnType } from '../../../shared/observability/engine/aws/table-columns.js';
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
  /** Also partitioned by `ws_bucket` (the compacted tables: sql.ts workspaceBucket), projected as 0…WORKSPACE_BUCKETS-1. */
  workspaceBuckets?: boolean;
}

/**
 * A Parquet table of request logs over `location`, partitioned by `day` through partition projection: Athena
 * computes the partitions of a query from its filter, so there is no partition to register and a query reads only
 * the days it names. The compacted tables add `ws_bucket` below `day`, so a workspace's query reads one folder of
 * each day.
 */
export function logGlueTable(scope: Construct, id: string, props: LogGlueTableProps): CfnTable {
  const projection: Record<string, string> = {
    'projection.enabled': 'true',
    [`projection.${PARTITION_COLUMN}.type`]: 'date',
    [`projection.${PARTITION_COLUMN}.format`]: 'yyyy-MM-dd',
    [`projection.${PARTITION_COLUMN}.range`]: `${props.projectionStartDate},NOW`,
    [`projection.${PARTITION_COLUMN}.interval`]: '1',
    [`projection.${PARTITION_COLUMN}.interval.unit`]: 'DAYS',
  };
  let template = `${props.location}${PARTITION_COLUMN}=\${${PARTITION_COLUMN}}/`;
  const partitionKeys = [{ name: PARTITION_COLUMN, type: 'string' }];
  if (props.workspaceBuckets) {
    projection[`projection.${WORKSPACE_BUCKET_COLUMN}.type`] = 'integer';
    projection[`projection.${WORKSPACE_BUCKET_COLUMN}.range`] = `0,${WORKSPACE_BUCKETS - 1}`;
    template += `${WORKSPACE_BUCKET_COLUMN}=\${${WORKSPACE_BUCKET_COLUMN}}/`;
    partitionKeys.push({ name: WORKSPACE_BUCKET_COLUMN, type: 'int' });
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
        columns: dataColumns(props.columns).map((column) => ({ name: column.name, type: GLUE_TYPES[column.type] })),
        inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
        outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
        serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe', parameters: { 'serialization.format': '1' } },
      },
    },
  });
  table.node.addDependency(props.database);
  return table;
}
