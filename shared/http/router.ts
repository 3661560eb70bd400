import { GatewayError } from './errors.js';
import { decodePathSegments } from './request-path.js';
import type { Handler } from './types.js';

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
}

export interface RouteMatch {
  handler: Handler;
  params: Record<string, string>;
}

/**
 * Method + path-pattern router. Patterns use `{name}` for one path segment. A path that matches some
 * pattern but not the method gives 405 with `allow`; no pattern at all gives 404.
 */
export class Router {
  private readonly routes: Route[] = [];

  on(method: string, pattern: string, handler: Handler): this {
    this.routes.push({ method: method.toUpperCase(), segments: splitPath(pattern), handler });
    return this;
  }

  /** Whether some route (of any method) has this path: the rest are unknown paths (unknown-path.ts). */
  serves(path: string): boolean {
    const segments = splitPath(path);
    return this.routes.some((route) => matchSegments(route.segments, segments, segments) !== undefined);
  }

  /** `path` as it came (percent-encoded): a malformed or over-long segment is a 400 (request-path.ts). */
  match(method: string, path: string): RouteMatch {
    // Literal segments match the path as sent (as API Gateway routes it); parameters are decoded.
    const segments = splitPath(path);
    const decoded = decodePathSegments(path);
    const allowed = new Set<string>();
    for (const route of this.routes) {
      const params = matchSegments(route.segments, segments, decoded);
      if (!params) continue;
      if (route.method === method.toUpperCase()) return { handler: route.handler, params };
      allowed.add(route.method);
    }
    if (allowed.size > 0) {
      const allow = [...allowed].sort().join(', ');
      throw new GatewayError(405, 'method_not_allowed', `${method.toUpperCase()} is not allowed on ${path}; allowed: ${allow}`, {
        headers: { allow },
      });
    }
    throw new GatewayError(404, 'route_not_found', `No route for ${method.toUpperCase()} ${path}`);
  }
}

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment.length > 0);
}

function matchSegments(pattern: string[], actual: string[], decoded: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i];
    if (expected.startsWith('{') && expected.endsWith('}')) {
      params[expected.slice(1, -1)] = decoded[i];
    } else if (expected !== actual[i]) {
      return undefined;
    }
  }
  return params;
}
