import type { ApiKeyAuthenticator } from '../../auth/authenticate.js';
import { handlerOnFirstRequest } from '../../http/lazy-handler.js';
import type { Router } from '../../http/router.js';
import type { Handler } from '../../http/types.js';

/**
 * Files and batches (docs/batches.md), in OpenAI's shapes. The paths are registered with the gateway at start;
 * the code that serves them is imported on the first such request.
 */
export function registerBatchRoutes(router: Router, authenticator: ApiKeyAuthenticator): void {
  const files = lazily(async () => (await import('./files.js')).fileHandlers(authenticator));
  const batches = lazily(async () => (await import('./batches.js')).batchHandlers(authenticator));
  router.on('POST', '/v1/files', files('upload'));
  router.on('GET', '/v1/files', files('list'));
  router.on('GET', '/v1/files/{fileId}', files('get'));
  router.on('DELETE', '/v1/files/{fileId}', files('remove'));
  router.on('GET', '/v1/files/{fileId}/content', files('content'));
  router.on('POST', '/v1/batches', batches('create'));
  router.on('GET', '/v1/batches', batches('list'));
  router.on('GET', '/v1/batches/{batchId}', batches('get'));
  router.on('POST', '/v1/batches/{batchId}/cancel', batches('cancel'));
}

/** One import for a set of handlers, each handler of it served once that import is done. */
function lazily<Name extends string>(load: () => Promise<Record<Name, Handler>>): (name: Name) => Handler {
  let loading: Promise<Record<Name, Handler>> | undefined;
  return (name) => handlerOnFirstRequest(async () => (await (loading ??= load()))[name]);
}
