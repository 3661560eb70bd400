import { badRequest } from '../../http/errors.js';
import type { AccountAddress } from '../openai-compatible/catalog.js';
import type { TargetSettings } from '../types.js';

/**
 * IBM watsonx.ai's hosts, API version and the headers that name a project or space (the watsonx API needs one of
 * the two on every inference call, in the body). Kept apart from the adapter so header validation loads no
 * translation code.
 */
export const WATSONX_PROJECT_HEADER = 'x-gw-watsonx-project-id';
export const WATSONX_SPACE_HEADER = 'x-gw-watsonx-space-id';
export const WATSONX_REGION_HEADER = 'x-gw-watsonx-region';

/** The IBM Cloud regions that serve watsonx.ai runtime (`https://<region>.ml.cloud.ibm.com`). */
export const WATSONX_REGIONS = ['us-south', 'eu-de', 'eu-gb', 'jp-tok', 'au-syd', 'ca-tor'] as const;
export const WATSONX_DEFAULT_REGION = 'us-south';

/** The `version` query every watsonx.ai call carries: the API date gw's translation was written against. */
export const WATSONX_API_VERSION = '2025-02-06';

const ID_PATTERN = /^[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$/;

/**
 * The per-request coordinates, in the same form as the OpenAI-compatible account headers
 * (shared/gateway/account-headers.ts reads them with the others): a project or space id is a UUID, the region one of
 * IBM's, so the URL gw builds always stays on `*.ml.cloud.ibm.com`.
 */
export const WATSONX_ADDRESSES: readonly AccountAddress[] = [
  { header: WATSONX_PROJECT_HEADER, pattern: ID_PATTERN, describe: 'a watsonx.ai project id (a UUID)', baseUrl: watsonxRegionUrl },
  { header: WATSONX_SPACE_HEADER, pattern: ID_PATTERN, describe: 'a watsonx.ai deployment space id (a UUID)', baseUrl: watsonxRegionUrl },
  { header: WATSONX_REGION_HEADER, pattern: new RegExp(`^(${WATSONX_REGIONS.join('|')})$`), describe: `one of ${WATSONX_REGIONS.join(', ')}`, baseUrl: watsonxRegionUrl },
];

export function watsonxRegionUrl(region: string): string {
  return `https://${region}.ml.cloud.ibm.com`;
}

/** `<base>/ml/v1/<path>?version=…`; `x-gw-custom-host` (a Cloud Pak for Data host, a test server) replaces the region host. */
export function watsonxUrl(target: TargetSettings, path: string): string {
  const base = (target.customHost ?? watsonxRegionUrl(target.accounts?.[WATSONX_REGION_HEADER] ?? WATSONX_DEFAULT_REGION)).replace(/\/+$/, '').replace(/\/ml\/v1$/, '');
  return `${base}/ml/v1/${path}?version=${WATSONX_API_VERSION}`;
}

/** `{project_id}` or `{space_id}` for the body: exactly one, from its header. */
export function watsonxScope(target: TargetSettings): { project_id: string } | { space_id: string } {
  const project = target.accounts?.[WATSONX_PROJECT_HEADER];
  const space = target.accounts?.[WATSONX_SPACE_HEADER];
  if (project && space) throw badRequest('invalid_header', `Send ${WATSONX_PROJECT_HEADER} or ${WATSONX_SPACE_HEADER}, not both`, WATSONX_SPACE_HEADER);
  if (project) return { project_id: project };
  if (space) return { space_id: space };
  throw badRequest('missing_account', `Provider 'watsonx' needs ${WATSONX_PROJECT_HEADER} (or ${WATSONX_SPACE_HEADER}): the watsonx.ai project or deployment space the call runs in`, WATSONX_PROJECT_HEADER);
}
