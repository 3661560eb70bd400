import { ArnFormat, Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { VIRTUAL_KEY_SECRET_PREFIX } from '../../../shared/store/secrets/secrets-manager-secret-store.js';
import { effectiveTableGrants, type FunctionSpec, type SecretAccess } from '../function-table.js';
import type { DataTables } from './data-tables.js';

/** What each secret access level may do, on names under the virtual-key prefix only. */
export const SECRET_ACTIONS: Readonly<Record<SecretAccess, readonly string[]>> = {
  read: ['secretsmanager:GetSecretValue'],
  manage: [
    'secretsmanager:CreateSecret',
    'secretsmanager:PutSecretValue',
    'secretsmanager:UpdateSecret',
    'secretsmanager:DeleteSecret',
    'secretsmanager:GetSecretValue',
    'secretsmanager:DescribeSecret',
    'secretsmanager:TagResource',
  ],
};

/** KMS actions Secrets Manager performs on the caller's behalf with a customer-managed key. */
const KMS_ACTIONS: Readonly<Record<SecretAccess, readonly string[]>> = {
  read: ['kms:Decrypt'],
  manage: ['kms:Decrypt', 'kms:GenerateDataKey'],
};

/** `arn:…:secret:gw/virtual-keys/*`: the trailing `*` also covers the random suffix Secrets Manager appends. */
export function virtualKeySecretsArn(stack: Stack): string {
  return stack.formatArn({ service: 'secretsmanager', resource: 'secret', resourceName: `${VIRTUAL_KEY_SECRET_PREFIX}*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
}

/**
 * Grants one function exactly the table and secret actions its row in the function table lists (conditional rows
 * only when their setting is configured): table actions on
 * the table ARN, Query on each named index ARN, secrets on the prefix. Nothing is granted through CDK's broad
 * `grantReadData`/`grantReadWriteData` helpers (they add Scan, DescribeTable, stream reads and every index).
 */
export function grantFunctionAccess(role: IRole, spec: FunctionSpec, tables: DataTables, settings: Readonly<Record<string, string>>, secretsKey?: IKey): void {
  for (const grant of effectiveTableGrants(spec, settings)) {
    const table = tables.table(grant.table);
    if (grant.actions.length) {
      role.addToPrincipalPolicy(
        new PolicyStatement({
          sid: sid(`${grant.table}Items`),
          effect: Effect.ALLOW,
          actions: grant.actions.map((action) => `dynamodb:${action}`),
          resources: [table.tableArn],
        }),
      );
    }
    if (grant.queryIndexes?.length) {
      role.addToPrincipalPolicy(
        new PolicyStatement({
          sid: sid(`${grant.table}IndexQuery`),
          effect: Effect.ALLOW,
          actions: ['dynamodb:Query'],
          resources: grant.queryIndexes.map((indexName) => `${table.tableArn}/index/${indexName}`),
        }),
      );
    }
  }

  if (!spec.secrets) return;
  const stack = Stack.of(role);
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: sid('virtualKeySecrets'),
      effect: Effect.ALLOW,
      actions: [...SECRET_ACTIONS[spec.secrets]],
      resources: [virtualKeySecretsArn(stack)],
    }),
  );
  if (secretsKey) {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: sid('virtualKeySecretsKms'),
        effect: Effect.ALLOW,
        actions: [...KMS_ACTIONS[spec.secrets]],
        resources: [secretsKey.keyArn],
        // Only when Secrets Manager asks on the function's behalf, never directly.
        conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${stack.region}.${stack.urlSuffix}` } },
      }),
    );
  }
}

/** IAM statement ids are alphanumeric. */
function sid(name: string): string {
  return name.replace(/[^A-Za-z0-9]/g, '');
}
