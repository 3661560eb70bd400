import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api';
import { whoAmI } from './resources/capabilities';

/**
 * Pages whose data a key may read only with one of these scopes. A key without any of them sees the page disabled,
 * with the scope named, and nothing is requested: the console never lets a read fail with a 403.
 */
export const READ_SCOPES: Readonly<Record<string, readonly string[]>> = {
  logs: ['logs:read'],
  traces: ['logs:read'],
  analytics: ['logs:read'],
  policies: ['policies:read', 'policies:list'],
};

/** Whether the signed-in key may read `page`: `undefined` until `GET /v1/me` answered. */
export function useReadable(api: Api, page: string): boolean | undefined {
  const scopes = READ_SCOPES[page];
  const [readable, setReadable] = useState<boolean | undefined>(scopes ? undefined : true);
  useEffect(() => {
    if (!scopes) return setReadable(true);
    let current = true;
    setReadable(undefined);
    void whoAmI(api).then(
      (me) => current && setReadable(scopes.some((scope) => me.scopes.includes(scope))),
      // gw did not say: let the page try, and show what gw answers.
      () => current && setReadable(true),
    );
    return () => {
      current = false;
    };
  }, [api.credential.value, page]);
  return readable;
}

/** The page, or its disabled state naming the scope the key lacks. */
export function ReadGate({ api, page, children }: { api: Api; page: string; children: ComponentChildren }) {
  const readable = useReadable(api, page);
  if (readable === undefined) return <p class="muted">Loading…</p>;
  if (!readable) {
    const scopes = READ_SCOPES[page] ?? [];
    return (
      <section aria-disabled="true" aria-label="Not available to this key">
        <p class="banner denied" role="status" data-testid="read-denied">
          This page needs the {scopes.join(' or ')} scope, which this key lacks.
        </p>
      </section>
    );
  }
  return <>{children}</>;
}
