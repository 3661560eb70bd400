import { configError } from '../../gateway/config/errors.js';
import type { TargetConfig } from '../../gateway/config/schema.js';
import { GUARDRAIL_REFERENCE } from '../../guardrails/schemas.js';
import { ConfigRepository } from '../../store/config-repository.js';
import { GuardrailRepository } from '../../store/guardrail-repository.js';

/** Every `input_guardrails` entry of a config tree, with the JSON path that names it. */
export function guardrailReferencesOf(config: TargetConfig, path = 'config'): Array<{ reference: string; path: string }> {
  const own = (config.input_guardrails ?? []).map((reference, index) => ({ reference, path: `${path}.input_guardrails[${index}]` }));
  const children = (config.targets ?? []).flatMap((child, index) => guardrailReferencesOf(child, `${path}.targets[${index}]`));
  return [...own, ...children];
}

/** True when `reference` (`grd-…` or `grd-…@N`) names a guardrail (and version) of the workspace. */
export async function guardrailExists(workspaceId: string, reference: string, repository = new GuardrailRepository()): Promise<boolean> {
  const match = GUARDRAIL_REFERENCE.exec(reference);
  if (!match) return false;
  const found = match[2] === undefined ? await repository.get(workspaceId, match[1]) : await repository.getVersion(workspaceId, match[1], Number(match[2]));
  return found !== undefined;
}

/**
 * Checks, when a config is saved, that each guardrail it names exists in the config's workspace: a guardrail
 * of another workspace is as unknown as one that never existed (400 AB0118, `param` the JSON path).
 */
export async function checkConfigGuardrails(workspaceId: string, config: TargetConfig): Promise<void> {
  const repository = new GuardrailRepository();
  for (const { reference, path } of guardrailReferencesOf(config)) {
    if (!(await guardrailExists(workspaceId, reference, repository))) throw configError('AB0118', path, `no guardrail "${reference}" in this workspace`);
  }
}

/** The same check for a workspace's `default_guardrails` setting. */
export async function checkWorkspaceDefaultGuardrails(workspaceId: string, references: readonly string[]): Promise<void> {
  const repository = new GuardrailRepository();
  for (const [index, reference] of references.entries()) {
    if (!(await guardrailExists(workspaceId, reference, repository))) {
      throw configError('AB0118', `default_guardrails[${index}]`, `no guardrail "${reference}" in this workspace`);
    }
  }
}

/** Where a guardrail is still named: the workspace defaults and the latest version of each saved config. */
export async function guardrailUsers(workspaceId: string, id: string): Promise<string[]> {
  const names = (reference: string) => reference === id || reference.startsWith(`${id}@`);
  const users: string[] = [];
  if ((await new GuardrailRepository().workspaceDefaults(workspaceId)).some(names)) users.push('the workspace default_guardrails');
  const configs = new ConfigRepository();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await configs.list(workspaceId, 100, startKey);
    for (const saved of page.items) {
      if (guardrailReferencesOf(saved.config as TargetConfig).some(({ reference }) => names(reference))) users.push(`saved config ${saved.id}`);
    }
    startKey = page.lastKey;
  } while (startKey);
  return users;
}
