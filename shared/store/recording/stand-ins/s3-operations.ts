/**
 * Test-only: the S3 operations the stand-in (s3-stand-in.ts) does not implement, named by the IAM actions S3
 * authorises them with, so the stand-in can deny an ungranted one before it answers 501 `NotImplemented`. Without
 * this a new call whose error the code swallows (a HeadBucket, a CopyObject, object tags) would pass the AWS-shaped
 * suite with no denial recorded, while the deployed role refuses it.
 */
export interface S3Permission {
  action: string;
  resource: string;
}

export interface UnimplementedS3Operation {
  /** What the 501 says (`GET ?tagging on an object`). */
  name: string;
  /** Every permission IAM checks for it; all must be allowed. */
  permissions: S3Permission[];
}

/** Query parameters that select a sub-resource (and so another operation) rather than modify the plain one. */
const SUBRESOURCES = [
  'acl', 'attributes', 'cors', 'delete', 'encryption', 'legal-hold', 'lifecycle', 'location', 'notification', 'policy',
  'restore', 'retention', 'select', 'tagging', 'uploadId', 'uploads', 'versioning', 'versions',
] as const;

/** method → sub-resource ('' for none) → the IAM action, on a bucket. */
const BUCKET_ACTIONS: Record<string, Record<string, string>> = {
  GET: {
    '': 'ListBucket', location: 'GetBucketLocation', versions: 'ListBucketVersions', uploads: 'ListBucketMultipartUploads',
    policy: 'GetBucketPolicy', acl: 'GetBucketAcl', tagging: 'GetBucketTagging', lifecycle: 'GetLifecycleConfiguration',
    versioning: 'GetBucketVersioning', encryption: 'GetEncryptionConfiguration', cors: 'GetBucketCORS', notification: 'GetBucketNotification',
  },
  HEAD: { '': 'ListBucket' },
  PUT: {
    '': 'CreateBucket', policy: 'PutBucketPolicy', acl: 'PutBucketAcl', tagging: 'PutBucketTagging', lifecycle: 'PutLifecycleConfiguration',
    versioning: 'PutBucketVersioning', encryption: 'PutEncryptionConfiguration', cors: 'PutBucketCORS', notification: 'PutBucketNotification',
  },
  DELETE: { '': 'DeleteBucket', policy: 'DeleteBucketPolicy', tagging: 'PutBucketTagging', lifecycle: 'PutLifecycleConfiguration', cors: 'PutBucketCORS', encryption: 'PutEncryptionConfiguration' },
};

/** method → sub-resource → the IAM action, on an object. */
const OBJECT_ACTIONS: Record<string, Record<string, string>> = {
  GET: { tagging: 'GetObjectTagging', acl: 'GetObjectAcl', attributes: 'GetObjectAttributes', retention: 'GetObjectRetention', 'legal-hold': 'GetObjectLegalHold', uploadId: 'ListMultipartUploadParts' },
  HEAD: {},
  PUT: { tagging: 'PutObjectTagging', acl: 'PutObjectAcl', retention: 'PutObjectRetention', 'legal-hold': 'PutObjectLegalHold', uploadId: 'PutObject' },
  DELETE: { tagging: 'DeleteObjectTagging', uploadId: 'AbortMultipartUpload' },
  POST: { '': 'PutObject', uploads: 'PutObject', uploadId: 'PutObject', restore: 'RestoreObject', select: 'GetObject' },
};

/**
 * The operation a request asks for when the stand-in does not implement it, else undefined. Implemented: ListObjectsV2
 * on a bucket; GetObject, HeadObject, PutObject (not a copy) and DeleteObject on an object, without a sub-resource.
 * An operation not in the tables asks for an action no grant but `s3:*` allows, so it is denied unless granted so.
 */
export function unimplementedS3Operation(method: string, bucket: string, key: string, query: URLSearchParams, headers: Record<string, string | string[] | undefined>, body: Buffer): UnimplementedS3Operation | undefined {
  const bucketArn = `arn:aws:s3:::${bucket}`;
  if (bucket === '') return { name: `${method} on the service (ListBuckets)`, permissions: [{ action: 's3:ListAllMyBuckets', resource: '*' }] };
  const subresource = SUBRESOURCES.find((name) => query.has(name)) ?? '';
  const name = `${method}${subresource ? ` ?${subresource}` : ''} on ${key === '' ? 'a bucket' : 'an object'}`;
  const named = (action: string | undefined, resource: string): S3Permission => ({ action: `s3:${action ?? `Unlisted${method}${subresource}`}`, resource });

  if (key === '') {
    if (method === 'GET' && subresource === '' && query.get('list-type') === '2') return undefined;
    if (method === 'POST' && subresource === 'delete') {
      // DeleteObjects: S3 authorises s3:DeleteObject on each key the XML body names.
      const keys = [...body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map((match) => unescapeXml(match[1]!));
      return { name: 'POST ?delete on a bucket (DeleteObjects)', permissions: (keys.length ? keys : ['*']).map((each) => named('DeleteObject', `${bucketArn}/${each}`)) };
    }
    return { name, permissions: [named(BUCKET_ACTIONS[method]?.[subresource], bucketArn)] };
  }

  const objectArn = `${bucketArn}/${key}`;
  const copySource = headers['x-amz-copy-source'];
  if (method === 'PUT' && typeof copySource === 'string') {
    // CopyObject (or UploadPartCopy): reading the source, writing the destination.
    const source = decodeURIComponent(copySource.split('?')[0]!).replace(/^\//, '');
    return { name: 'PUT with x-amz-copy-source (CopyObject)', permissions: [named('GetObject', `arn:aws:s3:::${source}`), named('PutObject', objectArn)] };
  }
  if (subresource === '' && (method === 'GET' || method === 'HEAD' || method === 'PUT' || method === 'DELETE')) return undefined;
  return { name, permissions: [named(OBJECT_ACTIONS[method]?.[subresource], objectArn)] };
}

function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos|#\d+);/g, (entity, name: string) =>
    name.startsWith('#') ? String.fromCharCode(Number(name.slice(1))) : ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" } as Record<string, string>)[name]!,
  );
}
