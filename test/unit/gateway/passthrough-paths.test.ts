import { describe, expect, it } from 'vitest';
import { PASSTHROUGH_ROUTES, passthroughRoute } from '../../../shared/gateway/passthrough/endpoints.js';
import { PASSTHROUGH_PATHS } from '../../../shared/gateway/passthrough/paths.js';

// The gateway registers the paths of paths.ts and loads endpoints.ts on the first request: the two must agree.
describe('pass-through paths', () => {
  it('name exactly the routes endpoints.ts serves', () => {
    expect([...PASSTHROUGH_PATHS].sort()).toEqual(PASSTHROUGH_ROUTES.map((route) => route.path).sort());
    for (const path of PASSTHROUGH_PATHS) expect(passthroughRoute(path).path).toBe(path);
  });
});
