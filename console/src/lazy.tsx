import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorBanner } from './components';

/**
 * A page whose code loads when it is first opened, so the first page load stays within the entry budget
 * (scripts/build-console.ts). The chunk is fetched relative to the entry script, so this works wherever gw is mounted.
 */
export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  return function LazyPage(props: P) {
    const [Component, setComponent] = useState<ComponentType<P> | undefined>(() => loaded);
    const [error, setError] = useState<Error>();
    useEffect(() => {
      if (Component) return;
      load().then((component) => {
        loaded = component;
        setComponent(() => component);
      }, setError);
    }, []);
    if (error) return <ErrorBanner error={error} />;
    return Component ? <Component {...props} /> : <p class="muted">Loading…</p>;
  };
}
