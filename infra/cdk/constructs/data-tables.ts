import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLES, type TableDefinition } from '../../../shared/store/table-definitions.js';
import type { TableId } from '../function-table.js';

export interface DataTablesProps {
  /** Production keeps data: deletion protection on the main table and every table retained on stack delete. */
  production: boolean;
}

/**
 * The DynamoDB tables, declared from the same definitions the local runtime creates its tables from
 * (shared/store/table-definitions.ts), so keys, indexes and the TTL attribute cannot drift between the two.
 * On-demand, point-in-time recovery on, TTL on the definition's attribute (TTL only cleans up: every read checks
 * expiry itself).
 */
export class DataTables extends Construct {
  readonly byId: ReadonlyMap<TableId, { table: Table; definition: TableDefinition }>;

  constructor(scope: Construct, id: string, props: DataTablesProps) {
    super(scope, id);
    const byId = new Map<TableId, { table: Table; definition: TableDefinition }>();
    for (const definition of TABLES) {
      byId.set(definition.id, { table: this.declareTable(definition, props.production), definition });
    }
    this.byId = byId;
  }

  table(id: TableId): Table {
    const entry = this.byId.get(id);
    if (!entry) throw new Error(`No table '${id}' in shared/store/table-definitions.ts`);
    return entry.table;
  }

  private declareTable(definition: TableDefinition, production: boolean): Table {
    const table = new Table(this, constructId(definition), {
      partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: definition.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: definition.ttlAttribute,
      // AWS-owned key: encrypted at rest with no KMS request charges on the hot path.
      encryption: TableEncryption.DEFAULT,
      deletionProtection: production && definition.id === 'main',
      removalPolicy: production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    for (const index of definition.globalIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }
    return table;
  }
}

/** `main` → `MainTable`: stable logical ids, so a refactor never replaces a table. */
function constructId(definition: TableDefinition): string {
  return `${definition.id.charAt(0).toUpperCase()}${definition.id.slice(1)}Table`;
}
