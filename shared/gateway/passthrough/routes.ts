import type { Router } from '../../http/router.js';
import type { InferenceDependencies } from '../inference.js';
import { buildPassthroughRequest } from './context.js';
import { PASSTHROUGH_ROUTES } from './endpoints.js';
import { forwardPassthrough } from './forward.js';

/** The OpenAI endpoints relayed untranslated: images, audio, moderations, rerank (docs/passthrough.md). */
export function registerPassthroughRoutes(router: Router, deps: InferenceDependencies): void {
  for (const route of PASSTHROUGH_ROUTES) {
    router.on('POST', route.path, async (request) => {
      const traceId = request.headers['x-gw-trace-id'] ?? '';
      return forwardPassthrough(await buildPassthroughRequest(request, route, traceId, deps), deps.clock);
    });
  }
}
