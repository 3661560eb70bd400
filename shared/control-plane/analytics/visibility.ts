import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import { workspaceObservabilitySettings } from '../../observability/workspace-settings.js';
import { UserRepository } from '../../store/user-repository.js';

/**
 * Whether the caller may read a workspace's analytics. Organisation admins (keys and admin tokens) and
 * service keys always may; a user's own key or token follows the workspace settings for its role there:
 * `membersViewAnalytics` for members, `managersViewAnalytics` for managers (workspace admins always may).
 */
export async function requireAnalyticsVisibility(principal: Principal, workspaceId: string): Promise<void> {
  if (principal.kind === 'admin' || principal.userId === undefined) return;
  const [visibility, membership] = await Promise.all([workspaceObservabilitySettings(workspaceId, true), new UserRepository().getMembership(workspaceId, principal.userId)]);
  const role = membership?.role ?? 'member';
  if (role === 'admin') return;
  const allowed = role === 'manager' ? visibility.managersViewAnalytics : visibility.membersViewAnalytics;
  if (!allowed) {
    const setting = role === 'manager' ? 'managersViewAnalytics' : 'membersViewAnalytics';
    throw new GatewayError(403, 'analytics_not_visible', `This workspace does not let ${role}s read analytics (workspace setting ${setting})`);
  }
}
