import { useEffect, useState } from 'preact/hooks';

/**
 * Hash routes (`#/logs/<id>?sort=cost&range=1h`): the console is one static page, so deep links work without server
 * routes. What follows `?` is a view's state (filters, sort, page size, columns), so a view can be shared as a link.
 */
export function navigate(path: string): void {
  location.hash = `#${path}`;
}

function splitHash(): { path: string; query: string } {
  const hash = location.hash.replace(/^#\/?/, '');
  const mark = hash.indexOf('?');
  return mark < 0 ? { path: hash, query: '' } : { path: hash.slice(0, mark), query: hash.slice(mark + 1) };
}

export function useRoute(): string[] {
  const read = () => (splitHash().path || 'logs').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => setRoute(read());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** The view state in the hash's query, and a setter that writes it back (a new history entry, so Back undoes it). */
export function useHashQuery(): [Record<string, string>, (next: Record<string, string | undefined>) => void] {
  const read = () => Object.fromEntries(new URLSearchParams(splitHash().query));
  const [query, setQuery] = useState<Record<string, string>>(read);
  useEffect(() => {
    const update = () => setQuery(read());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  const write = (next: Record<string, string | undefined>) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(next)) if (value !== undefined && value !== '') params.set(name, value);
    const text = params.toString();
    navigate(`/${splitHash().path}${text ? `?${text}` : ''}`);
  };
  return [query, write];
}
