import { GatewayError } from '../http/errors.js';
import { addPrefix } from './add-prefix.js';
import { checkRequestType } from './allowed-request-types.js';
import type { GuardrailVerdict, Violation } from './outcome.js';
import { checkRequestParams } from './request-params-check.js';
import type { RequestBody } from './request-shapes.js';
import type { Guardrail } from './schemas.js';

/** One guardrail's run, as recorded on the trace and in the log record's `guardrails` summary. */
export interface GuardrailCheck {
  id: string;
  name: string;
  type: Guardrail['type'];
  version: number;
  action: 'pass' | 'transform' | 'skip' | 'deny';
  detail?: string;
  code?: string;
}

/** What the guardrails did to a request, kept on the gateway context for the log record. */
export interface GuardrailSummary {
  verdict: 'passed' | 'transformed' | 'denied';
  checks: Array<Pick<GuardrailCheck, 'id' | 'name' | 'type' | 'action' | 'code'>>;
  denied_by?: string;
}

export interface GuardrailRun {
  /** The body after every transform (the input itself when nothing changed). */
  body: RequestBody;
  checks: GuardrailCheck[];
  /** The first denial; guardrails after it did not run. */
  denied?: { guardrail: Guardrail; violation: Violation };
}

/** One guardrail against one request: pure, no I/O. */
export function evaluateGuardrail(guardrail: Guardrail, endpoint: string, body: RequestBody): GuardrailVerdict {
  switch (guardrail.type) {
    case 'request_params_check':
      return checkRequestParams(guardrail.config, endpoint, body);
    case 'add_prefix':
      return addPrefix(guardrail.config, endpoint, body);
    case 'allowed_request_types':
      return checkRequestType(guardrail.config, endpoint);
  }
}

/** Runs guardrails in order, each on the body the previous ones left; the first denial stops the run. */
export function runGuardrails(
  guardrails: readonly Guardrail[],
  endpoint: string,
  body: RequestBody,
  /** Called before each guardrail; the function it returns gets the check (the gateway records spans with it). */
  observe?: (guardrail: Guardrail) => (check: GuardrailCheck) => void,
): GuardrailRun {
  let current = body;
  const checks: GuardrailCheck[] = [];
  for (const guardrail of guardrails) {
    const done = observe?.(guardrail);
    const verdict = evaluateGuardrail(guardrail, endpoint, current);
    const check: GuardrailCheck = { id: guardrail.id, name: guardrail.name, type: guardrail.type, version: guardrail.version, action: verdict.action };
    checks.push(check);
    if (verdict.action === 'deny') {
      check.code = verdict.violation.code;
      check.detail = verdict.violation.message;
    } else if (verdict.action === 'transform') {
      current = verdict.body;
      check.detail = verdict.detail;
    } else if (verdict.action === 'skip') {
      check.detail = verdict.detail;
    }
    done?.(check);
    if (verdict.action === 'deny') return { body: current, checks, denied: { guardrail, violation: verdict.violation } };
  }
  return { body: current, checks };
}

/** The 400 a denied request gets: the rule as `code`, the guardrail's id and name in the message. */
export function guardrailViolationError(guardrail: Guardrail, violation: Violation): GatewayError {
  return new GatewayError(400, violation.code, `Request denied by guardrail "${guardrail.name}" (${guardrail.id}): ${violation.message}`, {
    type: 'guardrail_violation',
    param: violation.param,
  });
}
