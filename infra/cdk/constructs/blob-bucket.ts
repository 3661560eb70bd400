import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

export interface BlobBucketProps {
  /** Objects (log bodies, exports, stored conversations) expire after this many days: gw's log retention. */
  expireAfterDays: number;
  production: boolean;
}

/**
 * The stack's bucket for payloads too large for a DynamoDB item (GW_BLOB_BUCKET): request/response bodies of log
 * records, data exports, stored Responses-API conversations. Private (public access blocked, bucket-owner
 * objects only), encrypted with S3-managed keys (no KMS request charge per object), TLS only, and expired by a
 * lifecycle rule at the same retention as the records that point at the objects.
 */
export class BlobBucket extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: BlobBucketProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      versioned: false,
      lifecycleRules: [
        { id: 'expire-with-log-retention', enabled: true, expiration: Duration.days(props.expireAfterDays) },
        // Multipart uploads that never finished would otherwise be billed forever.
        { id: 'abort-incomplete-uploads', enabled: true, abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      // A production stack keeps its objects when deleted; a development one is removed (empty it first).
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'Server access logs would add a second bucket and a log object per request for objects only gw itself reads and writes; object-level access is already attributable through CloudTrail data events when an operator enables them.',
    });
  }
}
