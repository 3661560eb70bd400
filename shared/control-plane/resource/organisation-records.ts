import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';

/**
 * Records of the organisation (deployments, integrations) and of a workspace (providers) that are found by id or by
 * slug, and what a caller may see of them: an admin key sees every one of its organisation, a workspace key the
 * ones its workspace may use. Everything else is the same 404, whether it exists or not.
 */

interface SluggedLookup<Stored> {
  getBySlug(owner: string, slug: string): Promise<Stored | undefined>;
  get(owner: string, id: string): Promise<Stored | undefined>;
}

const UUID_SHAPED = /^[0-9a-f-]{36}$/;

/** By slug first (a slug may look like anything), then by id when it is UUID-shaped; longer names cannot exist. */
export async function findByIdOrSlug<Stored>(repository: SluggedLookup<Stored>, owner: string, idOrSlug: string): Promise<Stored | undefined> {
  if (idOrSlug.length > 255) return undefined;
  return (await repository.getBySlug(owner, idOrSlug)) ?? (UUID_SHAPED.test(idOrSlug) ? repository.get(owner, idOrSlug) : undefined);
}

/** Whether the caller may see an organisation record: any of its organisation for an admin, else one its workspace may use. */
export function visibleToCaller(principal: Principal, record: { organisation_id: string }, usableBy: (workspaceId: string) => boolean): boolean {
  return record.organisation_id === principal.organisationId && (principal.kind === 'admin' || usableBy(principal.workspaceId));
}

export function notFoundByIdOrSlug(noun: string, idOrSlug: string, where = ''): GatewayError {
  return new GatewayError(404, 'not_found', `No ${noun} with id or slug '${idOrSlug.slice(0, 255)}'${where}`);
}

/** The organisation record the caller may see, by id or slug, or the 404. */
export async function findVisibleRecord<Stored extends { organisation_id: string }>(
  principal: Principal,
  idOrSlug: string,
  lookup: { repository: SluggedLookup<Stored>; noun: string; usableBy: (record: Stored, workspaceId: string) => boolean },
): Promise<Stored> {
  const record = await findByIdOrSlug(lookup.repository, principal.organisationId, idOrSlug);
  if (!record || !visibleToCaller(principal, record, (workspaceId) => lookup.usableBy(record, workspaceId))) throw notFoundByIdOrSlug(lookup.noun, idOrSlug);
  return record;
}
