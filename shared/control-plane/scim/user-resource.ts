import * as z from 'zod';
import type { ScimUserRecord } from '../../store/scim-repository.js';
import type { UserRecord } from '../../store/user-repository.js';
import { ENTERPRISE_USER_SCHEMA, SCIM_PATH_PREFIX, ScimError, USER_SCHEMA } from './protocol.js';

/** Entra ID sends booleans as "True"/"False" strings in PATCH values. */
const scimBoolean = z.union([z.boolean(), z.string().regex(/^(true|false)$/i).transform((value) => value.toLowerCase() === 'true')]);

/** The User attributes gw reads (RFC 7643 §4.1); anything else a client sends is ignored, never an error. */
export const scimUserInputSchema = z.looseObject({
  schemas: z.array(z.string()).optional(),
  userName: z.string().trim().min(1).max(255),
  externalId: z.string().max(255).nullish(),
  name: z.looseObject({ givenName: z.string().max(255).nullish(), familyName: z.string().max(255).nullish(), formatted: z.string().max(512).nullish() }).nullish(),
  displayName: z.string().max(255).nullish(),
  emails: z
    .array(z.looseObject({ value: z.string().max(254).nullish(), type: z.string().max(64).nullish(), primary: scimBoolean.nullish() }))
    .max(20)
    .nullish(),
  active: scimBoolean.nullish(),
  [ENTERPRISE_USER_SCHEMA]: z.record(z.string(), z.unknown()).nullish(),
});

export type ScimUserInput = z.output<typeof scimUserInputSchema>;

export interface ScimUserFields {
  userName: string;
  externalId?: string;
  givenName?: string;
  familyName?: string;
  displayName?: string;
  emails: ScimUserRecord['emails'];
  active: boolean;
  extra: Record<string, unknown>;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A validated request body (or a patched resource) → the fields gw stores. */
export function userFieldsOf(raw: unknown, fallbackActive = true): ScimUserFields {
  const parsed = scimUserInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ScimError(400, 'invalidValue', `${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const input = parsed.data;
  const emails = (input.emails ?? [])
    .filter((email): email is typeof email & { value: string } => typeof email.value === 'string' && email.value !== '')
    .map((email) => ({ value: email.value, ...(email.type ? { type: email.type } : {}), ...(email.primary ? { primary: true } : {}) }));
  const fields: ScimUserFields = { userName: input.userName, emails, active: input.active ?? fallbackActive, extra: {} };
  if (input.externalId) fields.externalId = input.externalId;
  if (input.name?.givenName) fields.givenName = input.name.givenName;
  if (input.name?.familyName) fields.familyName = input.name.familyName;
  if (input.displayName) fields.displayName = input.displayName;
  if (input[ENTERPRISE_USER_SCHEMA]) fields.extra[ENTERPRISE_USER_SCHEMA] = input[ENTERPRISE_USER_SCHEMA];
  return fields;
}

/** The address gw keys the organisation user by: the primary e-mail, else the first, else a userName that is one. */
export function primaryEmailOf(fields: ScimUserFields): string {
  const candidate = fields.emails.find((email) => email.primary)?.value ?? fields.emails[0]?.value ?? fields.userName;
  if (!EMAIL.test(candidate)) throw new ScimError(400, 'invalidValue', 'emails: a user needs an e-mail address (in emails, or as userName)');
  return candidate.toLowerCase();
}

export function displayNameOf(fields: ScimUserFields): string | undefined {
  return fields.displayName ?? ([fields.givenName, fields.familyName].filter(Boolean).join(' ') || undefined);
}

/** The SCIM User of an organisation user; users gw made itself (no SCIM record) appear with their e-mail as userName. */
export function userResource(user: UserRecord, scim: ScimUserRecord | undefined, groups: Array<{ value: string; display: string }>): Record<string, unknown> {
  const resource: Record<string, unknown> = {
    schemas: scim?.extra[ENTERPRISE_USER_SCHEMA] ? [USER_SCHEMA, ENTERPRISE_USER_SCHEMA] : [USER_SCHEMA],
    id: user.id,
    userName: scim?.user_name ?? user.email,
    active: scim?.active ?? true,
    emails: scim?.emails.length ? scim.emails : [{ value: user.email, type: 'work', primary: true }],
    groups,
    meta: {
      resourceType: 'User',
      created: scim?.created_at ?? user.created_at,
      lastModified: scim?.updated_at ?? user.updated_at ?? user.created_at,
      location: `${SCIM_PATH_PREFIX}/Users/${user.id}`,
    },
  };
  if (scim?.external_id) resource.externalId = scim.external_id;
  const name: Record<string, string> = {};
  if (scim?.given_name) name.givenName = scim.given_name;
  if (scim?.family_name) name.familyName = scim.family_name;
  if (Object.keys(name).length > 0) resource.name = { ...name, formatted: [name.givenName, name.familyName].filter(Boolean).join(' ') };
  const displayName = scim?.display_name ?? user.name;
  if (displayName) resource.displayName = displayName;
  for (const [schema, value] of Object.entries(scim?.extra ?? {})) resource[schema] = value;
  return resource;
}
