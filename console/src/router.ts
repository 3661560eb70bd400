import { useEffect, useState } from 'preact/hooks';

/** Hash routes (`#/logs/<id>`): the console is one static page, so deep links work without server routes. */
export function navigate(path: string): void {
  location.hash = `#${path}`;
}

export function useRoute(): string[] {
  const read = () => (location.hash.replace(/^#\/?/, '') || 'logs').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => setRoute(read());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
