import type { Principal } from '../auth/principal.js';
import type { NeutralRequest } from '../http/types.js';
import type { RequestLogger } from '../observability/logger.js';
import type { Endpoint, OpenAIBody } from '../providers/types.js';
import type { RequestOptions } from './request-options.js';

/** The one typed context a gateway request carries through the pipeline; each stage reads and extends it. */
export interface GatewayContext {
  request: NeutralRequest;
  requestId: string;
  traceId: string;
  startedAt: number;
  endpoint: Endpoint;
  principal: Principal;
  options: RequestOptions;
  body: OpenAIBody;
  log: RequestLogger;
}
