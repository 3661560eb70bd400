import * as z from 'zod';

const zodSchema = z.custom<z.ZodType>((value) => value instanceof z.ZodType, { error: 'must be a zod schema' });
const zodObject = z.custom<z.ZodObject>((value) => value instanceof z.ZodObject, { error: 'must be a zod object schema' });

const headerParameterSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string(),
  required: z.boolean().default(false),
  schema: zodSchema,
});

const responseSchema = z.strictObject({
  description: z.string(),
  /** The body; JSON unless `contentType` says otherwise. */
  schema: zodSchema.optional(),
  contentType: z.string().default('application/json'),
  /** Extra bodies of the same response under other content types (e.g. a stream). */
  alternatives: z.array(z.strictObject({ contentType: z.string(), schema: zodSchema, description: z.string().optional() })).default([]),
  headers: z.array(z.strictObject({ name: z.string(), description: z.string() })).default([]),
});

/**
 * How a resource module documents one of its routes for docs/openapi.yaml. A module exports an array of these as
 * `openApiOperations` from `shared/control-plane/<resource>/openapi.ts`; scripts/openapi.ts finds it on its own.
 * Schemas are the zod schemas the route validates with, so the document cannot drift from the code.
 */
export const openApiOperationSchema = z.strictObject({
  method: z.enum(['get', 'post', 'put', 'patch', 'delete']),
  /** With `{name}` path parameters, exactly as registered on the router. */
  path: z.string().startsWith('/'),
  operationId: z.string().regex(/^[A-Za-z][A-Za-z0-9]*$/),
  summary: z.string().min(1),
  description: z.string().optional(),
  tags: z.array(z.string()).min(1),
  /** The scopes of which the caller needs one (admin keys hold all). */
  scopes: z.array(z.string()).default([]),
  /** Feature flags that must be on; when one is OFF the route answers 404 `feature_disabled`. */
  featureFlags: z.array(z.string()).default([]),
  /** `none` for routes that take no gw API key. */
  security: z.enum(['api_key', 'none']).default('api_key'),
  pathParameters: zodObject.optional(),
  query: zodObject.optional(),
  headers: z.array(headerParameterSchema).default([]),
  body: zodSchema.optional(),
  /** The request body's media type (multipart/form-data for file uploads); JSON unless given. */
  bodyContentType: z.string().default('application/json'),
  bodyDescription: z.string().optional(),
  /** Success responses by status code (or `default`). */
  responses: z.record(z.string().regex(/^([1-5]\d\d|default)$/), responseSchema),
  /** Error statuses the route can answer, each with the shared error body. */
  errors: z.array(z.int().min(400).max(599)).default([]),
});

export type OpenApiOperation = z.input<typeof openApiOperationSchema>;
export type ParsedOpenApiOperation = z.output<typeof openApiOperationSchema>;
