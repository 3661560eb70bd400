import { GetObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { settings } from '../../../settings.js';
import { createResultsS3Client } from './clients.js';

let client: ReturnType<typeof createResultsS3Client> | undefined;

/**
 * Presigned GET URLs for the files an UNLOAD wrote (`s3://<results bucket>/exports/…`): the caller downloads them from
 * S3 directly, so no export passes through the control plane's 6 MB response or 29 s limit. Anything that is not
 * an object of the results bucket is refused, so a job record can never make gw sign another bucket's object.
 */
export async function presignExportFiles(outputs: readonly string[], ttlSeconds: number): Promise<string[]> {
  const current = settings();
  const bucket = current.GW_LOG_RESULTS_BUCKET;
  client ??= createResultsS3Client({ region: current.AWS_REGION, endpoint: current.GW_S3_ENDPOINT });
  const prefix = `s3://${bucket}/exports/`;
  return Promise.all(
    outputs.map((output) => {
      if (!bucket || !output.startsWith(prefix)) throw new Error(`not an export file of the results bucket: ${output}`);
      return getSignedUrl(client!, new GetObjectCommand({ Bucket: bucket, Key: output.slice(`s3://${bucket}/`.length) }), { expiresIn: ttlSeconds });
    }),
  );
}
