/**
 * The shapes of the settings Bedrock and Vertex AI batches need, checked the same way where they come from a
 * virtual key (control-plane schemas) and from a request's headers (bedrock.ts, vertex-ai.ts). Plain patterns:
 * this module imports nothing, so the control plane's schemas can use it.
 */

/**
 * An S3 bucket name without dots (dotted names break the virtual-hosted address's TLS certificate; AWS advises
 * against them), 3–63 lower-case letters, digits and hyphens.
 */
export const S3_BUCKET = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

/**
 * A key prefix of letters, digits and `._-/`, ending in `/`, not starting with one: characters that need no
 * percent-encoding, so the key is signed and sent as written.
 */
export const OBJECT_PREFIX = /^([A-Za-z0-9._-]+\/){1,16}$/;

/** An IAM role ARN (also in another partition: aws-cn, aws-us-gov). */
export const IAM_ROLE_ARN = /^arn:aws(-[a-z]+)*:iam::\d{12}:role\/([\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/;

/** A Cloud Storage bucket name without dots, 3–63 lower-case letters, digits, hyphens and underscores. */
export const GCS_BUCKET = /^[a-z0-9][a-z0-9_-]{1,61}[a-z0-9]$/;

/** The prefix batch files go under when none is set. */
export const DEFAULT_BATCH_PREFIX = 'gw-batches/';
