import type { CfnElement } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CACHE_TABLE, LOGS_TABLE, MAIN_TABLE, TABLES, type TableDefinition } from '../../shared/store/table-definitions.js';
import type { GwStack } from '../../infra/cdk/gw-stack.js';
import { synthGwStack } from './support/synth.js';
import { resources } from './support/template-queries.js';

function tableResource(stack: GwStack, template: Template, definition: TableDefinition) {
  const logicalId = stack.getLogicalId(stack.tables.table(definition.id).node.defaultChild as CfnElement);
  return resources(template, 'AWS::DynamoDB::Table')[logicalId];
}

describe('the DynamoDB tables in production (the default)', () => {
  let stack: GwStack;
  let template: Template;
  beforeAll(() => {
    ({ stack, template } = synthGwStack());
  });

  it('declares exactly the tables of shared/store/table-definitions.ts', () => {
    expect(Object.keys(resources(template, 'AWS::DynamoDB::Table'))).toHaveLength(TABLES.length);
  });

  it('keys the main table by pk/sk with the two GSIs the code queries, all projected', () => {
    expect(tableResource(stack, template, MAIN_TABLE).Properties).toMatchObject({
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        { IndexName: 'gsi1', KeySchema: [{ AttributeName: 'gsi1pk', KeyType: 'HASH' }, { AttributeName: 'gsi1sk', KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } },
        { IndexName: 'gsi2', KeySchema: [{ AttributeName: 'gsi2pk', KeyType: 'HASH' }, { AttributeName: 'gsi2sk', KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } },
      ],
    });
  });

  it('declares every key attribute as a string, as the local store does', () => {
    for (const definition of TABLES) {
      const attributes = tableResource(stack, template, definition).Properties?.AttributeDefinitions as Array<{ AttributeName: string; AttributeType: string }>;
      const expected = new Set([definition.partitionKey, definition.sortKey, ...definition.globalIndexes.flatMap((index) => [index.partitionKey, index.sortKey])]);
      expect(attributes.map((attribute) => attribute.AttributeName).sort()).toEqual([...expected].sort());
      expect(new Set(attributes.map((attribute) => attribute.AttributeType))).toEqual(new Set(['S']));
    }
  });

  it('gives the cache table and the logs table (export jobs, model-config documents: read by key) no index', () => {
    expect(tableResource(stack, template, CACHE_TABLE).Properties?.GlobalSecondaryIndexes).toBeUndefined();
    expect(tableResource(stack, template, LOGS_TABLE).Properties?.GlobalSecondaryIndexes).toBeUndefined();
  });

  it('bills on demand, with point-in-time recovery and TTL on the definition attribute, on every table', () => {
    for (const definition of TABLES) {
      expect(tableResource(stack, template, definition).Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: definition.ttlAttribute, Enabled: true },
      });
    }
  });

  it('protects the main table from deletion and retains every table when the stack goes', () => {
    expect(tableResource(stack, template, MAIN_TABLE).Properties?.DeletionProtectionEnabled).toBe(true);
    expect(tableResource(stack, template, CACHE_TABLE).Properties?.DeletionProtectionEnabled).toBe(false);
    for (const definition of TABLES) expect(tableResource(stack, template, definition).DeletionPolicy).toBe('Retain');
  });
});

describe('the DynamoDB tables in development', () => {
  it('has no deletion protection and deletes the tables with the stack', () => {
    const { stack, template } = synthGwStack({ context: { environment: 'development' } });
    for (const definition of TABLES) {
      const table = tableResource(stack, template, definition);
      expect(table.Properties?.DeletionProtectionEnabled).toBe(false);
      expect(table.DeletionPolicy).toBe('Delete');
    }
    for (const group of Object.values(resources(template, 'AWS::Logs::LogGroup'))) expect(group.DeletionPolicy).toBe('Delete');
  });
});
