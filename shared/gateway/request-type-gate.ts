import { checkRequestType } from '../guardrails/allowed-request-types.js';
import { guardrailViolationError } from '../guardrails/run.js';
import type { RequestTypeName } from '../guardrails/schemas.js';
import { settings } from '../settings.js';
import { configError } from './config/errors.js';
import { guardrailResolver } from './guardrail-resolver.js';

/**
 * `allowed_request_types` on the entry points that send no prompt to a model and so run no other guardrail:
 * token counting (`messages/count_tokens`) and the MCP gateway (`mcp`). The workspace's default guardrails and
 * the given references (a config target's `input_guardrails`) are read from the same cache as the guardrail
 * stage; a request type they block is refused with the stage's 400 `guardrail_violation` error.
 */
export async function checkEntryRequestType(workspaceId: string, name: RequestTypeName, references: readonly string[] = []): Promise<void> {
  if (!settings().GUARDRAILS_ENABLED) return;
  const resolver = guardrailResolver();
  const all = [...new Set([...(await resolver.workspaceDefaults(workspaceId)), ...references])];
  for (const reference of all) {
    const guardrail = await resolver.guardrail(workspaceId, reference);
    if (!guardrail) throw configError('AB0118', 'input_guardrails', `no guardrail "${reference}" in this workspace`);
    if (guardrail.type !== 'allowed_request_types') continue;
    const verdict = checkRequestType(guardrail.config, name);
    if (verdict.action === 'deny') throw guardrailViolationError(guardrail, verdict.violation);
  }
}
