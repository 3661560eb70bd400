import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { settings } from '../settings.js';

let documentClient: DynamoDBDocumentClient | undefined;

/**
 * One DynamoDB client per process, with keep-alive sockets, so a warm Lambda pays no TLS handshake per call.
 * The endpoint comes from settings: the embedded store locally, AWS by default.
 */
export function dynamoDocumentClient(): DynamoDBDocumentClient {
  if (documentClient) return documentClient;
  const { AWS_REGION, GW_DYNAMODB_ENDPOINT } = settings();
  const client = new DynamoDBClient({
    region: AWS_REGION,
    endpoint: GW_DYNAMODB_ENDPOINT,
    maxAttempts: 3,
    requestHandler: new NodeHttpHandler({
      httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 64 }),
      httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
      connectionTimeout: 2_000,
      requestTimeout: 5_000,
    }),
  });
  documentClient = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
}
