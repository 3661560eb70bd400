import type { z } from 'zod';
import { badRequest, GatewayError } from '../../http/errors.js';
import { jsonResponse, type NeutralRequest } from '../../http/types.js';
import { audited } from '../audit.js';
import { requireListScope, requireOrganisationAdmin, requireScope } from '../authorization.js';
import { readPageRequest } from '../pagination.js';
import type { RouteRegistrar } from '../handler-types.js';
import { parseJsonBody, validate } from '../validation.js';
import { integrationCreateSchema, integrationListQuerySchema, integrationUpdateSchema } from './schemas.js';
import { IntegrationService, presentIntegration } from './service.js';

/**
 * Integrations (organisation level): `POST|GET /v1/integrations`, `GET|PATCH|DELETE /v1/integrations/{integrationId}`.
 * Changes need an organisation admin key (integrations:write); reads need integrations:read. Audited.
 */
export function registerIntegrationRoutes(register: RouteRegistrar): void {
  let service: IntegrationService | undefined;
  const integrations = () => (service ??= new IntegrationService());

  register('POST', '/v1/integrations', (call) =>
    audited(call, { action: 'integration.create', resource_type: 'integration' }, async () => {
      requireScope(call.principal, 'integrations:write');
      requireOrganisationAdmin(call.principal, 'Managing integrations');
      const record = await integrations().create(call.principal, parseSecretBearingBody(call.request, integrationCreateSchema));
      return { value: jsonResponse(201, presentIntegration(record)), resource_id: record.id, details: { name: record.name, slug: record.slug, provider: record.provider } };
    }),
  );

  register('GET', '/v1/integrations', async (call) => {
    requireListScope(call.principal, 'integrations:read');
    const query = validate(integrationListQuerySchema.pick({ tags: true, provider: true }), { tags: call.request.query.tags, provider: call.request.query.provider });
    return jsonResponse(200, await integrations().list(call.principal, query, readPageRequest(call.request)));
  });

  register('GET', '/v1/integrations/{integrationId}', async (call) => {
    requireScope(call.principal, 'integrations:read');
    return jsonResponse(200, presentIntegration(await integrations().get(call.principal, call.params.integrationId)));
  });

  register('PATCH', '/v1/integrations/{integrationId}', (call) =>
    audited(call, { action: 'integration.update', resource_type: 'integration', resource_id: call.params.integrationId }, async () => {
      requireScope(call.principal, 'integrations:write');
      requireOrganisationAdmin(call.principal, 'Managing integrations');
      const body = parseSecretBearingBody(call.request, integrationUpdateSchema);
      const record = await integrations().update(call.principal, call.params.integrationId, body);
      // Field names only: a credential never reaches the audit log.
      return { value: jsonResponse(200, presentIntegration(record)), resource_id: record.id, details: { changed: Object.keys(body).sort() } };
    }),
  );

  register('DELETE', '/v1/integrations/{integrationId}', (call) =>
    audited(call, { action: 'integration.delete', resource_type: 'integration', resource_id: call.params.integrationId }, async () => {
      requireScope(call.principal, 'integrations:write');
      requireOrganisationAdmin(call.principal, 'Managing integrations');
      const deleted = await integrations().delete(call.principal, call.params.integrationId);
      return { value: jsonResponse(200, { object: 'integration', id: deleted.id, deleted: true }), resource_id: deleted.id, details: { name: deleted.name, slug: deleted.slug } };
    }),
  );
}

/** Like parseJsonBody, without the JSON parser's message: it quotes a piece of the input, which holds a credential. */
export function parseSecretBearingBody<Schema extends z.ZodType>(request: NeutralRequest, schema: Schema): z.infer<Schema> {
  try {
    return parseJsonBody(request, schema);
  } catch (error) {
    if (error instanceof GatewayError && error.code === 'invalid_json') throw badRequest('invalid_json', 'The request body is not valid JSON');
    throw error;
  }
}
