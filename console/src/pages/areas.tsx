import type { Api } from '../api';
import { ResourceView } from '../resources/resource-view';
import { AUDIT_LOG, DEPLOYMENTS, EXPORTS, INTEGRATIONS, MCP_SERVERS, PROVIDERS, SCIM_MEMBERS, USERS } from '../resources/resources';

/** The control-plane areas that are one generic view each (or two, for providers and the integrations behind them). */
export const AREAS = {
  providers: [PROVIDERS, INTEGRATIONS],
  mcp: [MCP_SERVERS],
  deployments: [DEPLOYMENTS],
  exports: [EXPORTS],
  audit: [AUDIT_LOG],
  users: [USERS, SCIM_MEMBERS],
};

export function AreaPage({ api, area }: { api: Api; area: keyof typeof AREAS }) {
  return (
    <>
      {AREAS[area].map((resource) => (
        <ResourceView key={resource.path} api={api} resource={resource} />
      ))}
    </>
  );
}
