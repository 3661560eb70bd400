/**
 * Where gw's API is, seen from the console's own address. The console is served at `<root>/console/`, where
 * `<root>` is whatever is in front of gw: nothing locally, API Gateway's stage (`/prod`) on the default API URL,
 * a base path on a custom domain. Every API call and every address the console shows is built from that root,
 * never from the site's origin alone, so the console works wherever it is mounted.
 */
export function gatewayRoot(page: { origin: string; pathname: string } = location): string {
  const mount = page.pathname.replace(/\/console(?:\/.*)?$/, '');
  return `${page.origin}${mount}`;
}

/** An API path (`/v1/logs`) as a URL under the gateway root. */
export function apiUrl(path: string, page: { origin: string; pathname: string } = location): URL {
  return new URL(`${gatewayRoot(page)}${path.startsWith('/') ? path : `/${path}`}`);
}
