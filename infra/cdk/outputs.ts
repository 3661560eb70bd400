import { TABLES, type TableDefinition } from '../../shared/store/table-definitions.js';

/**
 * The stack's output keys, shared by the stack that writes them and the CLI that reads them (scripts/cli.ts).
 * Kept free of aws-cdk-lib so the CLI loads fast.
 */
export const OUTPUT_KEYS = {
  apiUrl: 'ApiUrl',
  gatewayBaseUrl: 'GatewayBaseUrl',
  region: 'Region',
  customDomainTarget: 'CustomDomainTarget',
  dashboardName: 'DashboardName',
  blobBucketName: 'BlobBucketName',
  alarmTopicArn: 'AlarmTopicArn',
} as const;

/** `main` → `MainTableName`, paired with the setting the functions read the table's name from. */
export function tableOutputKey(definition: TableDefinition): string {
  return `${definition.id.charAt(0).toUpperCase()}${definition.id.slice(1)}TableName`;
}

export const TABLE_OUTPUTS: ReadonlyArray<{ outputKey: string; setting: TableDefinition['nameSetting'] }> = TABLES.map((definition) => ({
  outputKey: tableOutputKey(definition),
  setting: definition.nameSetting,
}));
