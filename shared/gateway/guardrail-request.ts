import { guardrailViolationError, runGuardrails, type GuardrailRun } from '../guardrails/run.js';
import type { RequestBody } from '../guardrails/request-shapes.js';
import type { Guardrail } from '../guardrails/schemas.js';
import type { GatewayError } from '../http/errors.js';
import type { RouteNode } from './config/target-tree.js';
import { applyMetadataUser } from './request-body.js';
import { merged } from '../merged.js';

type Leaf = Extract<RouteNode, { kind: 'leaf' }>;

/**
 * The request one target sends, as guardrails judge it: the client's body with the target's (inherited)
 * override_params on top, and the `user` gw fills in from `x-gw-metadata._user` (attempt.ts does the same on
 * the way out). `merged` is that body without the `user`, which gw adds again itself.
 */
export interface SentRequest {
  merged: RequestBody;
  judged: RequestBody;
  /** Override params were merged: the judged body differs from the client's by the config's doing. */
  overridden: boolean;
}

export function sentRequest(clientBody: RequestBody, overrideParams: Record<string, unknown>, metadata: Record<string, string>): SentRequest {
  const overridden = Object.keys(overrideParams).length > 0;
  const withOverrides = overridden ? merged(clientBody, overrideParams) : clientBody;
  return { merged: withOverrides, judged: applyMetadataUser(withOverrides, metadata), overridden };
}

/** Runs guardrails on the judged request; the body it gives back is the merged one (transformed, if it was). */
export function judgeSentRequest(guardrails: readonly Guardrail[], endpoint: string, sent: SentRequest, observe: Parameters<typeof runGuardrails>[3]): GuardrailRun {
  const run = runGuardrails(guardrails, endpoint, sent.judged, observe);
  if (sent.judged === sent.merged) return run;
  if (run.body === sent.judged) return merged(run, { body: sent.merged });
  const { user: _addedAgainOnTheWayOut, ...body } = run.body;
  return merged(run, { body });
}

/**
 * A target whose own override_params make its request violate a guardrail (the client's request alone passes)
 * is a config that would send what the workspace forbids: the whole request is refused with that guardrail's
 * error, its param naming the config path, instead of quietly skipping the target (docs/guardrails.md).
 * Undefined when the client's request is denied too: an ordinary denial, handled like any other target's.
 */
export function configViolation(
  guardrails: readonly Guardrail[],
  endpoint: string,
  clientBody: RequestBody,
  metadata: Record<string, string>,
  leaf: Leaf,
  denied: NonNullable<GuardrailRun['denied']>,
): GatewayError | undefined {
  if (runGuardrails(guardrails, endpoint, applyMetadataUser(clientBody, metadata)).denied) return undefined;
  const { violation } = denied;
  const topKey = violation.param?.split(/[.[]/)[0];
  const fromOverride = topKey !== undefined && Object.hasOwn(leaf.settings.overrideParams, topKey);
  const param = fromOverride ? `${leaf.path}.override_params.${violation.param}` : violation.param;
  return guardrailViolationError(denied.guardrail, merged(violation, { param, message: `${violation.message} (in the override_params of ${leaf.path})` }));
}
