import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, LIST_RESPONSE_SCHEMA, SCIM_PATH_PREFIX, USER_SCHEMA } from './protocol.js';

/** The discovery resources of RFC 7644 §4: what gw supports, the two resource types, and their schemas. */
export const SERVICE_PROVIDER_CONFIG = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
  documentationUri: 'https://github.com/gw/gw/blob/main/docs/control-plane/scim.md',
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: 200 },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'OAuth Bearer Token',
      description: 'A gw API key (an organisation admin key, or one with the scim scope) sent as Authorization: Bearer <key>',
      primary: true,
    },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: `${SCIM_PATH_PREFIX}/ServiceProviderConfig` },
};

const resourceType = (name: 'User' | 'Group', schema: string, extensions: string[] = []) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
  id: name,
  name,
  endpoint: `/${name}s`,
  description: name === 'User' ? 'An organisation user of gw' : 'A gw workspace; members are its users',
  schema,
  schemaExtensions: extensions.map((extension) => ({ schema: extension, required: false })),
  meta: { resourceType: 'ResourceType', location: `${SCIM_PATH_PREFIX}/ResourceTypes/${name}` },
});

export const RESOURCE_TYPES = [resourceType('User', USER_SCHEMA, [ENTERPRISE_USER_SCHEMA]), resourceType('Group', GROUP_SCHEMA)];

const attribute = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const subAttributes = (...names: string[]) => names.map((name) => attribute(name, name === 'primary' ? 'boolean' : 'string'));

const schema = (id: string, name: string, attributes: unknown[]) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
  id,
  name,
  description: `${name} as gw stores it`,
  attributes,
  meta: { resourceType: 'Schema', location: `${SCIM_PATH_PREFIX}/Schemas/${id}` },
});

export const SCHEMAS = [
  schema(USER_SCHEMA, 'User', [
    attribute('userName', 'string', { required: true, uniqueness: 'server' }),
    attribute('externalId', 'string', { caseExact: true }),
    attribute('name', 'complex', { subAttributes: subAttributes('givenName', 'familyName', 'formatted') }),
    attribute('displayName', 'string'),
    attribute('emails', 'complex', { multiValued: true, subAttributes: subAttributes('value', 'type', 'primary') }),
    attribute('active', 'boolean'),
    attribute('groups', 'complex', { multiValued: true, mutability: 'readOnly', subAttributes: subAttributes('value', 'display') }),
  ]),
  schema(GROUP_SCHEMA, 'Group', [
    attribute('displayName', 'string', { required: true, uniqueness: 'server' }),
    attribute('externalId', 'string', { caseExact: true }),
    attribute('members', 'complex', { multiValued: true, subAttributes: subAttributes('value', 'display', '$ref', 'type') }),
  ]),
  schema(ENTERPRISE_USER_SCHEMA, 'EnterpriseUser', [attribute('employeeNumber', 'string'), attribute('department', 'string'), attribute('organization', 'string')]),
];

export function listOf(resources: unknown[]) {
  return { schemas: [LIST_RESPONSE_SCHEMA], totalResults: resources.length, startIndex: 1, itemsPerPage: resources.length, Resources: resources };
}
