import { ArnFormat, Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { secretNamePrefix } from '../../../shared/store/secrets/secrets-manager-secret-store.js';
import { effectiveTableGrants, type BlobAccess, type FunctionSpec, type SecretAccess } from '../function-table.js';
import type { DataTables } from './data-tables.js';
import type { RequestLogs } from './request-logs.js';

/**
 * What each secret access level may do, on names under the stack's prefix only: exactly the calls
 * SecretsManagerSecretStore makes (create, then put a new value when it exists; read; delete).
 */
export const SECRET_ACTIONS: Readonly<Record<SecretAccess, readonly string[]>> = {
  read: ['secretsmanager:GetSecretValue'],
  manage: ['secretsmanager:CreateSecret', 'secretsmanager:PutSecretValue', 'secretsmanager:GetSecretValue', 'secretsmanager:DeleteSecret'],
};

/** Object actions on the blob bucket (S3BlobStore: put, get, delete; presigned downloads are GetObject). */
export const BLOB_ACTIONS: Readonly<Record<BlobAccess, readonly string[]>> = {
  'read-write': ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
  'read-delete': ['s3:GetObject', 's3:DeleteObject'],
};

/**
 * Bucket actions with object reads: S3 answers a GetObject of a missing key with 404 NoSuchKey only to a caller who
 * may list the bucket, and with 403 AccessDenied to anyone else, so without it a log body or export that has expired
 * would be an error instead of "not found".
 */
export const BLOB_BUCKET_ACTIONS: Readonly<Record<BlobAccess, readonly string[]>> = {
  'read-write': ['s3:ListBucket'],
  'read-delete': ['s3:ListBucket'],
};

/** KMS actions Secrets Manager performs on the caller's behalf with a customer-managed key. */
const KMS_ACTIONS: Readonly<Record<SecretAccess, readonly string[]>> = {
  read: ['kms:Decrypt'],
  manage: ['kms:Decrypt', 'kms:GenerateDataKey'],
};

/**
 * `arn:…:secret:<stackName>/*`: every secret of this stack (virtual keys, saved-config, MCP-server and integration
 * credentials) and nothing of another stack's; the trailing `*` also covers the random suffix Secrets Manager
 * appends. The functions get the same prefix as GW_SECRET_NAME_PREFIX.
 */
export function stackSecretsArn(stack: Stack): string {
  return stack.formatArn({ service: 'secretsmanager', resource: 'secret', resourceName: `${secretNamePrefix(stack.stackName)}*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
}

export interface GrantTargets {
  tables: DataTables;
  /** gw settings of the deployment (conditional table grants). */
  settings: Readonly<Record<string, string>>;
  secretsKey?: IKey;
  blobBucket?: IBucket;
  requestLogs?: RequestLogs;
}

/**
 * Grants one function exactly the table, secret and blob actions its row in the function table lists (conditional
 * rows only when their setting is configured): table actions on the table ARN, Query on each named index ARN,
 * secrets on the stack's prefix, objects in the blob bucket. Nothing is granted through CDK's broad
 * `grantReadData`/`grantReadWriteData` helpers (they add Scan, DescribeTable, stream reads and every index).
 */
export function grantFunctionAccess(role: IRole, spec: FunctionSpec, { tables, settings, secretsKey, blobBucket, requestLogs }: GrantTargets): void {
  if (spec.requestLogs === 'write') requestLogs?.grantWrite(role);
  if (spec.requestLogs === 'query') requestLogs?.grantQuery(role);
  if (spec.requestLogs === 'compact') requestLogs?.grantCompact(role);
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

  if (spec.blobs && blobBucket) {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: sid('blobObjects'),
        effect: Effect.ALLOW,
        actions: [...BLOB_ACTIONS[spec.blobs]],
        resources: [blobBucket.arnForObjects('*')],
      }),
    );
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: sid('blobBucket'),
        effect: Effect.ALLOW,
        actions: [...BLOB_BUCKET_ACTIONS[spec.blobs]],
        resources: [blobBucket.bucketArn],
      }),
    );
  }

  if (!spec.secrets) return;
  const stack = Stack.of(role);
  role.addToPrincipalPolicy(
    new PolicyStatement({
      sid: sid('stackSecrets'),
      effect: Effect.ALLOW,
      actions: [...SECRET_ACTIONS[spec.secrets]],
      resources: [stackSecretsArn(stack)],
    }),
  );
  if (secretsKey) {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: sid('stackSecretsKms'),
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
