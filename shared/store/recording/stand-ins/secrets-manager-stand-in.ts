import type { IncomingMessage, ServerResponse } from 'node:http';
import { accessKeyIdOf, readBody, type StandInAuthorizer } from './wire.js';

/**
 * Test-only: the Secrets Manager JSON 1.1 API (`X-Amz-Target: secretsmanager.<Action>`) on a node:http server,
 * for the operations gw's SecretsManagerSecretStore issues (Create, Put, Get, Delete, Describe), so the real client
 * (and the operation recorder on it) is exercised over the wire. Errors have Secrets Manager's names
 * (`ResourceNotFoundException`, `ResourceExistsException`, `AccessDeniedException`); any other action is answered
 * 400 `InvalidRequestException` (the recorder has already seen it).
 */
export interface SecretBacking {
  get(name: string): Promise<string | undefined>;
  put(name: string, value: string): Promise<void>;
  delete(name: string): Promise<void>;
}

export function memorySecrets(): SecretBacking & { secrets: Map<string, string> } {
  const secrets = new Map<string, string>();
  return { secrets, get: async (name) => secrets.get(name), put: async (name, value) => void secrets.set(name, value), delete: async (name) => void secrets.delete(name) };
}

export interface SecretsManagerStandInOptions {
  backing: SecretBacking;
  /** IAM check of the caller (by its access key id); everything is allowed when absent. */
  authorize?: StandInAuthorizer;
  region?: string;
  account?: string;
}

export function secretsManagerStandIn(options: SecretsManagerStandInOptions): (request: IncomingMessage, response: ServerResponse) => void {
  const send = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(JSON.stringify(body));
  };
  const fail = (response: ServerResponse, type: string, message: string) => send(response, 400, { __type: type, message });
  return (request, response) => {
    void (async () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      const action = target.replace(/^secretsmanager\./, '');
      const input = JSON.parse((await readBody(request)).toString('utf8') || '{}') as { Name?: string; SecretId?: string; SecretString?: string };
      const name = String(input.Name ?? input.SecretId ?? '');
      const arn = `arn:aws:secretsmanager:${options.region ?? 'us-east-1'}:${options.account ?? '123456789012'}:secret:${name}-AbCdEf`;
      if (options.authorize && !options.authorize(accessKeyIdOf(request.headers.authorization), `secretsmanager:${action}`, arn)) {
        return fail(response, 'AccessDeniedException', `not authorized to perform: secretsmanager:${action} on resource: ${name}`);
      }
      const existing = await options.backing.get(name);
      switch (action) {
        case 'CreateSecret':
          if (existing !== undefined) return fail(response, 'ResourceExistsException', `The secret ${name} already exists.`);
          await options.backing.put(name, String(input.SecretString ?? ''));
          return send(response, 200, { ARN: arn, Name: name, VersionId: 'v1' });
        case 'PutSecretValue':
          if (existing === undefined) return fail(response, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
          await options.backing.put(name, String(input.SecretString ?? ''));
          return send(response, 200, { ARN: arn, Name: name, VersionId: 'v2' });
        case 'GetSecretValue':
          if (existing === undefined) return fail(response, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
          return send(response, 200, { ARN: arn, Name: name, SecretString: existing, VersionId: 'v1', CreatedDate: 0 });
        case 'DescribeSecret':
          if (existing === undefined) return fail(response, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
          return send(response, 200, { ARN: arn, Name: name });
        case 'DeleteSecret':
          if (existing === undefined) return fail(response, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
          await options.backing.delete(name);
          return send(response, 200, { ARN: arn, Name: name, DeletionDate: 0 });
        default:
          return fail(response, 'InvalidRequestException', `${action || 'this action'} is not implemented by this stand-in`);
      }
    })().catch((error: unknown) => send(response, 500, { __type: 'InternalServiceError', message: String((error as Error).message ?? error) }));
  };
}
