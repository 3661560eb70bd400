/** The Messages API version Vertex AI expects in the body (it takes no `anthropic-version` header). */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';
