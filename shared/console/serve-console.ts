import { readFileSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { errorResponse, GatewayError } from '../http/errors.js';
import type { NeutralResponse } from '../http/types.js';
import { settings } from '../settings.js';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

// The console talks only to gw's own API, loads nothing from elsewhere, and may not be framed.
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const ASSET_NAME = /^[A-Za-z0-9_-]+\.(js|css)$/;
const files = new Map<string, string>();

export function isConsolePath(path: string): boolean {
  return path === '/console' || path.startsWith('/console/');
}

/**
 * The web console: `index.html` at `/console/` (never cached: it names the current assets) and content-hashed
 * assets (cached for a year). Static and public; everything it shows is fetched from the API with the user's key.
 * Nothing in it names an absolute path: it works under any prefix (docs/console.md).
 */
export function serveConsole(method: string, path: string): NeutralResponse {
  if (method !== 'GET' && method !== 'HEAD') return errorResponse(new GatewayError(405, 'method_not_allowed', `${method} is not allowed on ${path}`), { allow: 'GET, HEAD' });
  // The page names its assets relative to itself (`assets/…`), so it must be loaded as `…/console/`. A relative
  // Location keeps whatever precedes /console (API Gateway's stage, a custom domain's base path), which gw never sees.
  if (path === '/console') return { status: 308, headers: { location: 'console/', 'cache-control': 'no-cache' }, body: '' };
  const asset = path.startsWith('/console/assets/') ? path.slice('/console/assets/'.length) : undefined;
  if (asset === undefined && path !== '/console/') return notFound(path);
  if (asset !== undefined && !ASSET_NAME.test(asset)) return notFound(path);
  const relative = asset === undefined ? 'index.html' : join('assets', asset);
  const body = read(normalize(relative));
  if (body === undefined) {
    return asset === undefined
      ? errorResponse(new GatewayError(503, 'console_not_built', 'The console is not built: run `npm run build` (npm start builds it when missing)'))
      : notFound(path);
  }
  const cacheControl = asset === undefined ? 'no-cache' : 'public, max-age=31536000, immutable';
  return { status: 200, headers: { 'content-type': CONTENT_TYPES[extname(relative)], 'cache-control': cacheControl, ...SECURITY_HEADERS }, body };
}

function read(relative: string): string | undefined {
  const cached = files.get(relative);
  if (cached !== undefined) return cached;
  try {
    const text = readFileSync(join(settings().GW_CONSOLE_DIR, relative), 'utf8');
    // The HTML changes with every build; assets are immutable by name.
    if (relative !== 'index.html') files.set(relative, text);
    return text;
  } catch {
    return undefined;
  }
}

function notFound(path: string): NeutralResponse {
  return errorResponse(new GatewayError(404, 'route_not_found', `No console asset at ${path}`));
}
