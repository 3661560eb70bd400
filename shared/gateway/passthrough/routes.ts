import { handlerOnFirstRequest } from '../../http/lazy-handler.js';
import type { Router } from '../../http/router.js';
import type { InferenceDependencies } from '../inference.js';
import { PASSTHROUGH_PATHS } from './paths.js';

/**
 * The OpenAI endpoints relayed untranslated: images, audio, moderations, rerank (docs/passthrough.md). Their
 * paths are registered with the gateway; the code that serves them is imported on the first such request.
 */
export function registerPassthroughRoutes(router: Router, deps: InferenceDependencies): void {
  for (const path of PASSTHROUGH_PATHS) {
    router.on('POST', path, handlerOnFirstRequest(async () => {
      const [{ passthroughRoute }, { buildPassthroughRequest }, { forwardPassthrough }] = await Promise.all([import('./endpoints.js'), import('./context.js'), import('./forward.js')]);
      const route = passthroughRoute(path);
      return async (request) => {
        const traceId = request.headers['x-gw-trace-id'] ?? '';
        return forwardPassthrough(await buildPassthroughRequest(request, route, traceId, deps), deps.clock);
      };
    }));
  }
}
