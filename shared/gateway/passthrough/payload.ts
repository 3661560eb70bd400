import { badRequest, GatewayError } from '../../http/errors.js';
import { isJsonMediaType } from '../../http/media-type.js';
import { parseInferenceBody } from '../request-body.js';
import type { PassthroughRoute } from './endpoints.js';
import { merged } from '../../merged.js';

/** A pass-through request body: the exact bytes to forward, and the fields gw reads of them. */
export interface PassthroughPayload {
  bytes: Buffer;
  /** As the client sent it: for multipart, with the boundary the bytes use. */
  contentType: string;
  /** The JSON body, or the form's text fields with each file summarised: for routing, policies and the log. */
  fields: Record<string, unknown>;
}

/**
 * Reads and checks a pass-through body before anything is forwarded: the size limit (413), then JSON or
 * multipart/form-data as the endpoint takes, then the fields gw relies on (400 naming the field).
 */
export async function readPassthroughPayload(route: PassthroughRoute, raw: Buffer, contentType: string | undefined, maxBytes: number): Promise<PassthroughPayload> {
  if (raw.length > maxBytes) {
    throw new GatewayError(413, 'body_too_large', `The request body is ${raw.length} bytes; the limit is ${maxBytes} bytes`);
  }
  if (route.body === 'json') {
    const fields = parseInferenceBody(raw, maxBytes);
    checkFields(route, fields);
    return { bytes: raw, contentType: 'application/json', fields };
  }
  if (!contentType || !/^multipart\/form-data\s*;.*\bboundary=/i.test(contentType)) {
    throw badRequest('invalid_content_type', `${route.path} takes multipart/form-data with a boundary (the way the OpenAI SDKs send files)`);
  }
  const form = await parseForm(raw, contentType);
  const fields = formFields(form);
  const file = form.get(route.fileField!) ?? form.get(`${route.fileField!}[]`);
  if (!(file instanceof Blob)) throw badRequest('missing_file', `The form needs a file in the \`${route.fileField!}\` field`, route.fileField!);
  checkFields(route, fields);
  return { bytes: raw, contentType, fields };
}

/**
 * The body one target gets: the client's bytes untouched, unless the target's override_params change fields.
 * Then JSON is re-serialised and a form rebuilt (files kept byte for byte, under a new boundary).
 */
export async function payloadForTarget(payload: PassthroughPayload, overrides: Record<string, unknown>): Promise<{ bytes: Uint8Array; contentType: string; fields: Record<string, unknown> }> {
  if (Object.keys(overrides).length === 0) return payload;
  const fields = merged(payload.fields, overrides);
  if (isJsonMediaType(payload.contentType)) {
    return { bytes: Buffer.from(JSON.stringify(fields)), contentType: 'application/json', fields };
  }
  const form = await parseForm(payload.bytes, payload.contentType);
  for (const [name, value] of Object.entries(overrides)) form.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  const encoded = new Request('http://gw.invalid/', { method: 'POST', body: form });
  return { bytes: new Uint8Array(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')!, fields };
}

async function parseForm(raw: Buffer, contentType: string): Promise<FormData> {
  try {
    return await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  } catch (error) {
    throw badRequest('invalid_multipart', `The multipart/form-data body could not be read: ${(error as Error).message}`);
  }
}

/** Text fields as they are (the first of a repeated name); files as `{filename, bytes, type}` only. */
function formFields(form: FormData): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    if (name in fields) continue;
    fields[name] = typeof value === 'string' ? value : { filename: value.name, bytes: value.size, type: value.type };
  }
  return fields;
}

function checkFields(route: PassthroughRoute, fields: Record<string, unknown>): void {
  const checked = route.schema.safeParse(fields);
  if (checked.success) return;
  const issue = checked.error.issues[0];
  const param = issue.path.map(String).join('.');
  throw badRequest('invalid_body', `${param ? `\`${param}\`: ` : ''}${issue.message}`, param || null);
}

/** The model a body names, if any. */
export function modelOf(fields: Record<string, unknown>): string | undefined {
  return typeof fields.model === 'string' && fields.model !== '' ? fields.model : undefined;
}

