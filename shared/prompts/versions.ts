import { badRequest, GatewayError } from '../http/errors.js';
import type { PromptRecord, PromptRepository, PromptVersionRecord } from '../store/prompt-repository.js';
import { LABEL_PATTERN } from './schemas.js';

/** Which version a read or render uses: `?version=N`, `?label=name` (incl. `latest`, `published`), or the published one. */
export type VersionSelector = { version: number } | { label: string } | Record<string, never>;

/** Prompt ids are UUIDs; anything else cannot exist and must not reach a table key. */
export const PROMPT_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function promptNotFound(promptId: string): GatewayError {
  return new GatewayError(404, 'not_found', `No prompt with id '${promptId.slice(0, 128)}' in this workspace`);
}

export function assertPromptId(promptId: string): void {
  if (!PROMPT_ID.test(promptId)) throw promptNotFound(promptId);
}

export function readVersionSelector(query: Record<string, string>): VersionSelector {
  const { version, label } = query;
  if (version !== undefined && label !== undefined) throw badRequest('invalid_version_selector', 'Send either version or label, not both', 'version');
  if (version !== undefined) {
    if (!/^[1-9]\d{0,8}$/.test(version)) throw badRequest('invalid_version', 'version must be a positive integer', 'version');
    return { version: Number(version) };
  }
  if (label !== undefined) {
    if (!LABEL_PATTERN.test(label)) throw badRequest('invalid_label', 'label must be 1-63 letters, digits, ".", "_" or "-"', 'label');
    return { label };
  }
  return {};
}

/** The version number a selector names on this prompt, or undefined for an unknown label. */
export function versionNumberOf(head: PromptRecord, selector: VersionSelector): number | undefined {
  if ('version' in selector) return selector.version;
  if ('label' in selector) {
    if (selector.label === 'latest') return head.latest_version;
    if (selector.label === 'published') return head.published_version;
    return Object.hasOwn(head.labels ?? {}, selector.label) ? head.labels[selector.label] : undefined;
  }
  return head.published_version;
}

/** The prompt's head and the selected version; 404s name what was not found. */
export async function selectVersion(
  repository: PromptRepository,
  workspaceId: string,
  promptId: string,
  selector: VersionSelector,
): Promise<{ head: PromptRecord; version: PromptVersionRecord }> {
  assertPromptId(promptId);
  const head = await repository.get(workspaceId, promptId);
  if (!head) throw promptNotFound(promptId);
  const number = versionNumberOf(head, selector);
  if (number === undefined) {
    throw new GatewayError(404, 'not_found', `Prompt '${promptId}' has no label '${(selector as { label: string }).label}'`);
  }
  const version = await repository.getVersion(workspaceId, promptId, number);
  if (!version) throw new GatewayError(404, 'not_found', `Prompt '${promptId}' has no version ${number}`);
  return { head, version };
}
