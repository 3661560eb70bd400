export { createClient, GwClient, DEFAULT_BASE_URL, type GwClientOptions } from './client.js';
export { createHeaders, customHeaderName, PARAMETER_HEADERS, type GatewayParameters } from './headers.js';
export { SDK_OPERATIONS, type ControlPlane, type Page, type Query } from './control-plane.js';
export { GwApiError, GwValidationError } from './errors.js';
