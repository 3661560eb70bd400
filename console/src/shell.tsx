import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, Json } from './api';
import { whoAmI } from './resources/capabilities';

/** The pages, grouped by what a platform engineer does there. */
export const PAGE_GROUPS = [
  ['Observe', [['logs', 'Logs'], ['traces', 'Traces'], ['analytics', 'Analytics']]],
  ['Build', [['playground', 'Playground'], ['configs', 'Configs'], ['prompts', 'Prompts'], ['guardrails', 'Guardrails'], ['mcp', 'MCP servers'], ['deployments', 'Deployments']]],
  ['Manage', [['keys', 'Keys'], ['providers', 'Providers'], ['policies', 'Policies and budgets'], ['exports', 'Exports']]],
  ['Administer', [['workspace', 'Workspace'], ['users', 'Users'], ['audit', 'Audit log']]],
] as const;

export function pageTitle(page: string): string {
  for (const [, pages] of PAGE_GROUPS) for (const [path, label] of pages) if (path === page) return label;
  return 'Logs';
}

/** Who is signed in: the workspace's name (its id when the key may not read it) and the key's role. */
function useIdentity(api: Api): { workspace: string; role: string } | undefined {
  const [identity, setIdentity] = useState<{ workspace: string; role: string }>();
  useEffect(() => {
    let current = true;
    void whoAmI(api)
      .then(async (me) => {
        const full = me as unknown as Json;
        const workspaceId = String(full.workspace_id ?? '');
        const name = await api.get<Json>(`/v1/workspaces/${encodeURIComponent(workspaceId)}`).then(
          (workspace) => String(workspace.name ?? workspaceId),
          () => workspaceId,
        );
        const role = me.read_only ? 'read only (JWT)' : me.kind === 'organisation_admin' ? 'organisation admin' : full.role ? `workspace ${String(full.role)}` : full.type === 'user' ? 'user key' : 'service key';
        if (current) setIdentity({ workspace: name, role });
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [api.credential.value]);
  return identity;
}

/** The grouped sidebar; on a phone it folds behind a Menu button and closes after a choice. */
export function Sidebar({ api, current }: { api: Api; current: string }) {
  const [open, setOpen] = useState(false);
  const identity = useIdentity(api);
  return (
    <aside class={`sidebar ${open ? 'open' : ''}`}>
      <div class="identity" data-testid="identity">
        <strong>gw</strong>
        {identity ? (
          <span>
            <span class="workspace-name">{identity.workspace}</span>
            <span class="muted role"> · {identity.role}</span>
          </span>
        ) : null}
      </div>
      <button type="button" class="menu-toggle" aria-expanded={open} aria-controls="page-nav" onClick={() => setOpen(!open)}>
        Menu
      </button>
      <nav id="page-nav" aria-label="Pages">
        {PAGE_GROUPS.map(([group, pages]) => (
          <div class="nav-group" role="group" aria-label={group}>
            <span class="nav-group-title" aria-hidden="true">
              {group}
            </span>
            {pages.map(([path, label]) => (
              <a href={`#/${path}`} aria-current={current === path ? 'page' : undefined} onClick={() => setOpen(false)}>
                {label}
              </a>
            ))}
          </div>
        ))}
      </nav>
    </aside>
  );
}

/**
 * The page's one h1, focused after each navigation so a screen reader or keyboard user lands on the new page, and
 * the skip link's target (a hash route owns `#…`, so the link focuses it instead of following an anchor).
 */
export function PageHeading({ page }: { page: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    // A move to another page (the hash's path), not a change of a view's state (its query), takes the focus.
    const pathOf = (hash: string) => hash.replace(/^#\/?/, '').split('?')[0];
    let last = pathOf(location.hash);
    const moved = () => {
      const path = pathOf(location.hash);
      if (path !== last) heading.current?.focus();
      last = path;
    };
    addEventListener('hashchange', moved);
    return () => removeEventListener('hashchange', moved);
  }, []);
  return (
    <h1 id="page-title" class="page-title" tabIndex={-1} ref={heading}>
      {pageTitle(page)}
    </h1>
  );
}

export function SkipLink() {
  return (
    <a
      class="skip"
      href="#page-title"
      onClick={(event) => {
        event.preventDefault();
        document.getElementById('page-title')?.focus();
      }}
    >
      Skip to content
    </a>
  );
}
