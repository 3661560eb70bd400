import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';

/**
 * Whether the signed-in key may take an action, so the console can show what it can't do as disabled instead of
 * letting it fail with a 403. The answer comes from `GET /v1/me` (the caller's own identity and expanded scopes),
 * read once per credential and tab: nothing is tried, so opening the console leaves nothing in the audit log. A
 * JWT is read-only whatever its scopes.
 */
export type Capability = 'yes' | 'no' | 'unknown';

/** What changing a resource needs: a scope, and for some resources an organisation admin key as well. */
export interface WriteNeed {
  scope: string;
  adminOnly?: boolean;
}

/** The part of `GET /v1/me` the console reads. */
interface Me {
  kind: 'organisation_admin' | 'workspace';
  scopes: string[];
  read_only: boolean;
}

const known = new Map<string, Promise<Me>>();

/** The caller as gw describes it, asked once per credential for the tab (a failed read is asked again next time). */
export function whoAmI(api: Api): Promise<Me> {
  let answer = known.get(api.credential.value);
  if (!answer) {
    answer = api.get<Me>('/v1/me');
    known.set(api.credential.value, answer);
    answer.catch(() => known.delete(api.credential.value));
  }
  return answer;
}

/** Whether `me` may do what `need` needs, and if not, why (the missing scope named). */
export function capabilityOf(me: Me, need: WriteNeed): { allowed: boolean; reason?: string } {
  if (me.read_only) return { allowed: false, reason: 'a JWT carries read and list access only' };
  if (need.adminOnly && me.kind !== 'organisation_admin') return { allowed: false, reason: `it needs an organisation admin key with ${need.scope}` };
  if (!me.scopes.includes(need.scope)) return { allowed: false, reason: `this key lacks the ${need.scope} scope` };
  return { allowed: true };
}

/** The capability as state: `unknown` until `/v1/me` answers (actions stay disabled until then). */
export function useCapability(api: Api, need: WriteNeed | undefined): { can: Capability; reason?: string } {
  const [state, setState] = useState<{ can: Capability; reason?: string }>({ can: need ? 'unknown' : 'yes' });
  useEffect(() => {
    if (!need) return;
    let current = true;
    void whoAmI(api).then(
      (me) => {
        const { allowed, reason } = capabilityOf(me, need);
        if (current) setState({ can: allowed ? 'yes' : 'no', reason });
      },
      (error: Error) => current && setState({ can: 'no', reason: `gw did not say what this key may do (${error.message})` }),
    );
    return () => {
      current = false;
    };
  }, [api.credential.value, need?.scope, need?.adminOnly]);
  return state;
}
