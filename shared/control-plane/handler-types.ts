import type { Principal } from '../auth/principal.js';
import type { NeutralRequest, NeutralResponse } from '../http/types.js';

// A leaf module: resources, the registry and the app all import these types, so none of them imports another
// just for a type (that used to tie every resource's routes to app.ts and back in one import cycle).

/** Everything a resource handler gets: the authenticated caller plus the request. */
export interface ControlPlaneRequest {
  request: NeutralRequest;
  params: Record<string, string>;
  principal: Principal;
  traceId: string;
}

export type ResourceHandler = (call: ControlPlaneRequest) => Promise<NeutralResponse>;

/** How a resource module adds a route to the control plane's router. */
export type RouteRegistrar = (method: string, pattern: string, handler: ResourceHandler) => void;
