import type { Settings } from '../settings.js';

/**
 * The DynamoDB tables, described once. The local runtime creates them from these definitions and the CDK
 * stack declares them from the same ones, so the two can never drift. Every key attribute is a string.
 */
export interface GlobalIndexDefinition {
  indexName: string;
  partitionKey: string;
  sortKey: string;
}

export interface TableDefinition {
  /** Stable id used for CDK construct ids and settings lookup. */
  id: 'main' | 'cache' | 'logs';
  /** The setting that names the table at run time. */
  nameSetting: 'GW_TABLE_MAIN' | 'GW_TABLE_CACHE' | 'GW_TABLE_LOGS';
  partitionKey: string;
  sortKey: string;
  globalIndexes: GlobalIndexDefinition[];
  /** Epoch-seconds attribute the AWS table expires items by. Reads never rely on it: they check expiry themselves. */
  ttlAttribute: string;
}

export const MAIN_TABLE: TableDefinition = {
  id: 'main',
  nameSetting: 'GW_TABLE_MAIN',
  partitionKey: 'pk',
  sortKey: 'sk',
  globalIndexes: [
    // Lists: the children of a parent (workspaces of an organisation, keys of a workspace, …).
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    // Sparse index on what is due: active API keys by expiry, budgets by next reset.
    { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  ],
  ttlAttribute: 'ttl',
};

export const CACHE_TABLE: TableDefinition = {
  id: 'cache',
  nameSetting: 'GW_TABLE_CACHE',
  partitionKey: 'pk',
  sortKey: 'sk',
  globalIndexes: [],
  ttlAttribute: 'ttl',
};

export const LOGS_TABLE: TableDefinition = {
  id: 'logs',
  nameSetting: 'GW_TABLE_LOGS',
  partitionKey: 'pk',
  sortKey: 'sk',
  // Export jobs and the model-config "log store" documents, read by key. Request logs themselves live in the log
  // engine (DuckDB locally, S3 Parquet + Athena on AWS: shared/observability/engine/), not here.
  globalIndexes: [],
  ttlAttribute: 'ttl',
};

export const TABLES: readonly TableDefinition[] = [MAIN_TABLE, CACHE_TABLE, LOGS_TABLE];

export function tableName(settings: Settings, table: TableDefinition): string {
  return settings[table.nameSetting];
}
