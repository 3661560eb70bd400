import { type GuardrailCheck, guardrailViolationError, type GuardrailRun, type GuardrailSummary } from '../guardrails/run.js';
import type { RequestBody } from '../guardrails/request-shapes.js';
import type { Guardrail } from '../guardrails/schemas.js';
import { GatewayError } from '../http/errors.js';
import { startSpan, type OpenSpan } from '../observability/spans.js';
import { canonicalJson } from './cache/cache-key.js';
import { configError } from './config/errors.js';
import type { RouteNode } from './config/target-tree.js';
import type { GatewayContext } from './context.js';
import type { GuardrailResolver } from './guardrail-resolver.js';
import { configViolation, judgeSentRequest, sentRequest } from './guardrail-request.js';
import { pruneDeniedTargets, type LeafRun } from './guardrail-targets.js';

/**
 * The guardrail stage's checks (guardrail-stage.ts decides whether any apply): each target's guardrails run on the
 * request it would send, targets denied while others pass are removed, and a request no target may take is denied.
 */
export async function judgeGuardrails(context: GatewayContext, resolver: GuardrailResolver, defaults: readonly string[], leaves: ReadonlyArray<Extract<RouteNode, { kind: 'leaf' }>>): Promise<void> {
  const workspaceId = context.principal.workspaceId;
  const stage = startSpan(context, 'guardrails', { default_guardrails: defaults.length });
  try {
    const known = new Map<string, Guardrail>();
    for (const reference of defaults) known.set(reference, await required(reference, () => workspaceDefaultMissing(reference)));
    for (const leaf of leaves) {
      for (const reference of leaf.settings.inputGuardrails ?? []) {
        if (!known.has(reference)) known.set(reference, await required(reference, () => configError('AB0118', `${leaf.path}.input_guardrails`, `no guardrail "${reference}" in this workspace`)));
      }
    }
    const clientBody = context.body as RequestBody;
    const runs = new Map<string, GuardrailRun>();
    const leafRuns = new Map<string, LeafRun>();
    for (const leaf of leaves) {
      const guardrails = [...new Set([...defaults, ...(leaf.settings.inputGuardrails ?? [])])].map((reference) => known.get(reference)!);
      // Each target is judged on the request it would send: the client's body with its override_params merged.
      const sent = sentRequest(clientBody, leaf.settings.overrideParams, context.options.metadata);
      const key = runKey(guardrails, leaf.settings.overrideParams);
      let run = runs.get(key);
      if (!run) {
        run = judgeSentRequest(guardrails, context.endpoint, sent, (guardrail) => checkSpan(context, stage, guardrail, leaves.length > 1 ? leaf.path : undefined));
        runs.set(key, run);
        const refusal = run.denied && sent.overridden ? configViolation(guardrails, context.endpoint, clientBody, context.options.metadata, leaf, run.denied) : undefined;
        if (refusal) {
          context.guardrails = summarise([run], run.denied);
          stage.end({ verdict: 'denied', denied_by: run.denied!.guardrail.id, code: run.denied!.violation.code, target_path: leaf.path }, refusal);
          throw refusal;
        }
      }
      leafRuns.set(leaf.path, { key, run, overridden: sent.overridden });
    }
    const { route, denied } = pruneDeniedTargets(context.routeTree, leafRuns, clientBody, context.options.metadata);
    const allRuns = [...runs.values()];
    context.guardrails = summarise(allRuns, route === undefined ? denied : undefined);
    if (!route) {
      const error = guardrailViolationError(denied!.guardrail, denied!.violation);
      stage.end({ verdict: 'denied', denied_by: denied!.guardrail.id, code: denied!.violation.code }, error);
      throw error;
    }
    context.routeTree = route.tree;
    // One guardrail list for every remaining target: its transforms become the request's body. Otherwise each
    // target carries its own transformed fields as override params (see guardrail-targets.ts).
    if (route.sharedBody) context.body = route.sharedBody as typeof context.body;
    stage.end({ verdict: context.guardrails.verdict, guardrails: known.size, targets_removed: route.removed });
  } catch (error) {
    stage.end(undefined, error);
    throw error;
  }

  async function required(reference: string, missing: () => GatewayError): Promise<Guardrail> {
    const guardrail = await resolver.guardrail(workspaceId, reference);
    if (!guardrail) throw missing();
    return guardrail;
  }
}

/** Targets share a run when they run the same guardrails on the same override_params. */
function runKey(guardrails: readonly Guardrail[], overrideParams: Record<string, unknown>): string {
  const list = guardrails.map((guardrail) => `${guardrail.id}@${guardrail.version}`).join('\u0000');
  return Object.keys(overrideParams).length === 0 ? list : `${list}\u0001${canonicalJson(overrideParams)}`;
}

/** One span per check, under the stage's span, with what the check decided. */
function checkSpan(context: GatewayContext, stage: OpenSpan, guardrail: Guardrail, targetPath: string | undefined): (check: GuardrailCheck) => void {
  const span = startSpan(
    context,
    `guardrail.${guardrail.type}`,
    { guardrail_id: guardrail.id, guardrail_name: guardrail.name, guardrail_type: guardrail.type, guardrail_version: guardrail.version, target_path: targetPath },
    { parentSpanId: stage.spanId },
  );
  return (check) => span.end({ action: check.action, code: check.code, detail: check.detail }, check.action === 'deny' ? { type: 'guardrail_violation', code: check.code, message: check.detail } : undefined);
}

function summarise(runs: GuardrailRun[], denied: GuardrailRun['denied']): GuardrailSummary {
  const checks = new Map<string, GuardrailSummary['checks'][number]>();
  for (const run of runs) {
    for (const check of run.checks) checks.set(`${check.id}\u0000${check.action}`, { id: check.id, name: check.name, type: check.type, action: check.action, code: check.code });
  }
  const transformed = runs.some((run) => run.checks.some((check) => check.action === 'transform'));
  return { verdict: denied ? 'denied' : transformed ? 'transformed' : 'passed', checks: [...checks.values()], denied_by: denied?.guardrail.id };
}

function workspaceDefaultMissing(reference: string): GatewayError {
  return new GatewayError(400, 'AB0118', `The workspace's default_guardrails names "${reference}", which no longer exists; an admin must fix the workspace settings`, {
    param: 'default_guardrails',
  });
}
