import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Api } from '../api';

/**
 * Whether the signed-in key may take an action, so the console can show what it can't do as disabled instead of
 * letting it fail with a 403. gw has no "what may I do" route, so each answer comes from a probe that changes
 * nothing: a DELETE of an id that cannot exist. gw checks the scope (and admin-ness) before it looks the id up, so
 * the probe answers 403 when the key lacks the right and 404 (or 400) when it has it. Answers are remembered for
 * the tab, per credential and probe. gw audits mutations, refused ones included, so each probe leaves one
 * `failure` entry in the audit log naming the id below (once per tab and resource); a JWT is never probed, since
 * it carries read and list access only.
 */
export type Capability = 'yes' | 'no' | 'unknown';

/** An id no resource has: gw's ids are prefixed and random, and this one is not valid for any of them. */
export const PROBE_ID = 'console-capability-check';

const known = new Map<string, Promise<{ allowed: boolean; reason?: string }>>();

export interface Probe {
  method: 'DELETE' | 'PATCH';
  /** The path with `{probe}` where the impossible id goes. */
  path: string;
}

export function probeCapability(api: Api, probe: Probe): Promise<{ allowed: boolean; reason?: string }> {
  const key = `${api.credential.value}\n${probe.method} ${probe.path}`;
  let answer = known.get(key);
  if (!answer && api.credential.kind === 'jwt') answer = Promise.resolve({ allowed: false, reason: 'a JWT carries read and list access only' });
  if (!answer) {
    const path = probe.path.replace('{probe}', PROBE_ID);
    answer = api.call(probe.method, path, probe.method === 'PATCH' ? {} : undefined).then(
      () => ({ allowed: true }),
      (error: Error) => (error instanceof ApiError && error.status === 403 ? { allowed: false, reason: error.message } : { allowed: true }),
    );
    known.set(key, answer);
  }
  return answer;
}

/** The capability as state: `unknown` while the probe runs (actions stay disabled until it answers). */
export function useCapability(api: Api, probe: Probe | undefined): { can: Capability; reason?: string } {
  const [state, setState] = useState<{ can: Capability; reason?: string }>({ can: probe ? 'unknown' : 'yes' });
  useEffect(() => {
    if (!probe) return;
    let current = true;
    void probeCapability(api, probe).then(({ allowed, reason }) => current && setState({ can: allowed ? 'yes' : 'no', reason }));
    return () => {
      current = false;
    };
  }, [api.credential.value, probe?.method, probe?.path]);
  return state;
}
