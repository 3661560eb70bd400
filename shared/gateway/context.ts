import type { Principal } from '../auth/principal.js';
import type { GuardrailSummary } from '../guardrails/run.js';
import type { NeutralRequest } from '../http/types.js';
import type { RequestLogger } from '../observability/logger.js';
import type { SpanRecord } from '../observability/spans.js';
import type { Endpoint, OpenAIBody } from '../providers/types.js';
import type { AttemptRecord } from './attempt-types.js';
import type { RouteNode } from './config/target-tree.js';
import type { RequestOptions } from './request-options.js';
import type { DialectCodec } from '../dialects/types.js';
import type { IntegrationRecord, ProviderRecord } from '../store/integration-repository.js';

/** The workspace provider a request goes through (`x-gw-provider: @slug`) and its integration. */
export interface WorkspaceProviderRef {
  provider: ProviderRecord;
  integration: IntegrationRecord;
}

/** The one typed context a gateway request carries through the pipeline; each stage reads and extends it. */
export interface GatewayContext {
  request: NeutralRequest;
  requestId: string;
  traceId: string;
  startedAt: number;
  /** Epoch ms after which no retry wait may start. */
  deadline: number;
  endpoint: Endpoint;
  /** The inbound dialect's codec (Responses, Messages), loaded while the context was built; absent for chat, completions and embeddings. */
  dialect?: DialectCodec;
  principal: Principal;
  options: RequestOptions;
  body: OpenAIBody;
  /** The targets to route over: the config's tree, or one leaf made of the request headers. */
  routeTree: RouteNode;
  /** `x-gw-provider: @slug`: the workspace provider whose limits admission applies and policies can name. */
  workspaceProvider?: WorkspaceProviderRef;
  /** True when a config (inline or saved) shaped the route. */
  configured: boolean;
  /** Every upstream try, in order. */
  attempts: AttemptRecord[];
  log: RequestLogger;
  /** What the guardrail stage decided (shared/gateway/guardrail-stage.ts); absent when no guardrail applied. */
  guardrails?: GuardrailSummary;
  /** Timed stages and attempts (shared/observability/spans.ts `startSpan`), stored with the log record. */
  spans?: SpanRecord[];
  /** The request's own span id (the log record's `span_id`); stage spans hang under it. */
  rootSpanId?: string;
}
