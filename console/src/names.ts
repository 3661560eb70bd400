import { useEffect, useState } from 'preact/hooks';
import type { Api, Page } from './api';

/**
 * Names of API keys, virtual keys, workspaces and saved configs by id, so a view can say "ci-bot" where a record
 * holds a UUID. Each list is read with the caller's key: one it may not read adds no names, and those ids stay.
 */
export type Names = ReadonlyMap<string, string>;

const known = new Map<string, Promise<Names>>();

const NAMED_LISTS = ['/v1/api-keys', '/v1/virtual-keys', '/v1/workspaces', '/v1/configs'];

async function readNames(api: Api): Promise<Names> {
  const lists = await Promise.all(NAMED_LISTS.map((path) => api.get<Page>(path, { limit: '100' }).catch(() => ({ data: [] }) as Page)));
  return new Map(lists.flatMap((page) => page.data.filter((row) => row.name).map((row) => [String(row.id), String(row.name)] as const)));
}

/** Asked once per credential and tab (a key that may not list keys gets no names, and ids stay). */
export function useNames(api: Api): Names {
  const [names, setNames] = useState<Names>(new Map());
  useEffect(() => {
    let answer = known.get(api.credential.value);
    if (!answer) {
      answer = readNames(api);
      known.set(api.credential.value, answer);
    }
    let current = true;
    void answer.then((value) => current && setNames(value));
    return () => {
      current = false;
    };
  }, [api.credential.value]);
  return names;
}

/** A name with its id for reference, or the id alone. */
export const named = (names: Names, id: unknown) => (typeof id === 'string' && id ? (names.has(id) ? names.get(id)! : id) : '—');
