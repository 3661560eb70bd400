import { actingUserOf, type Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import { workspaceObservabilitySettings } from '../../observability/workspace-settings.js';
import { UserRepository } from '../../store/user-repository.js';
import type { UsageViewer } from '../logs/hide-usage.js';

/**
 * Whether the caller may see a workspace's usage and cost: analytics, a workspace's budget usage, and tokens and
 * cost in logs, traces and exports. Organisation admins (keys and admin tokens) and service keys made by them
 * always may; a user's own key or token, and a service key a user's key made (its maker's role goes with it, so a
 * key never mints one that sees more than itself), follow the workspace settings for that user's role there:
 * `membersViewAnalytics` for members, `managersViewAnalytics` for managers (workspace admins always may).
 * Undefined when visible, else the refusal.
 */
async function usageRefusal(principal: Principal, workspaceId: string): Promise<GatewayError | undefined> {
  const userId = actingUserOf(principal);
  if (principal.kind === 'admin' || userId === undefined) return undefined;
  const [visibility, membership] = await Promise.all([workspaceObservabilitySettings(workspaceId, true), new UserRepository().getMembership(workspaceId, userId)]);
  const role = membership?.role ?? 'member';
  if (role === 'admin') return undefined;
  const allowed = role === 'manager' ? visibility.managersViewAnalytics : visibility.membersViewAnalytics;
  if (allowed) return undefined;
  const setting = role === 'manager' ? 'managersViewAnalytics' : 'membersViewAnalytics';
  return new GatewayError(403, 'analytics_not_visible', `This workspace does not let ${role}s read analytics (workspace setting ${setting})`);
}

export async function requireAnalyticsVisibility(principal: Principal, workspaceId: string): Promise<void> {
  const refusal = await usageRefusal(principal, workspaceId);
  if (refusal) throw refusal;
}

/**
 * Whether a key would see a workspace's usage, from its record: the same rule as for a caller (its own user, or the
 * maker of a service key, decides). For handing a key's secret out (rotation, a key made for another user): the
 * hand that receives it must see as much (privilege.ts, requireSeesAsMuchAs).
 */
export async function keySeesUsage(key: { kind: Principal['kind']; organisation_id: string; workspace_id: string; user_id?: string; made_by_user_id?: string }): Promise<boolean> {
  const principal: Principal = { keyId: '', kind: key.kind, organisationId: key.organisation_id, workspaceId: key.workspace_id, userId: key.user_id, madeByUserId: key.made_by_user_id, scopes: new Set() };
  return (await usageRefusal(principal, key.workspace_id)) === undefined;
}

/** For the log, trace and export read paths: whether rows keep their tokens and cost (logs/hide-usage.ts). */
export async function usageViewerFor(principal: Principal, workspaceId: string): Promise<UsageViewer> {
  return { seesUsage: (await usageRefusal(principal, workspaceId)) === undefined };
}
