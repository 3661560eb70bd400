import type { ComponentChildren } from 'preact';
import type { Api, Json } from '../api';
import type { Names } from '../names';
import type { WriteNeed } from './capabilities';

/**
 * A control-plane resource as the console shows it: one small description per resource drives the one generic
 * view (resource-view.tsx), so every area lists, creates, opens and acts on its rows the same way and obeys the
 * caller's scopes the same way.
 */
export type FieldKind = 'text' | 'secret' | 'select' | 'list' | 'tags' | 'json' | 'checkbox' | 'number';

export interface FormField {
  name: string;
  label: string;
  kind: FieldKind;
  options?: string[];
  initial?: string;
  placeholder?: string;
  /** Left out of the body when empty (or unchecked). */
  optional?: boolean;
}

export interface RowAction {
  label: string;
  danger?: boolean;
  /** Asked with confirm() before acting. */
  confirm?: (row: Json) => string;
  /** Shown only for rows it applies to. */
  when?: (row: Json) => boolean;
  /**
   * A value the action needs first (a new credential), asked in a masked field of a small form under the list, never
   * with window.prompt(): the value goes straight into the request and the field is emptied.
   */
  input?: { label: string; secret?: boolean };
  /** The request; may return a one-time secret to show. `value` is what `input` asked for. */
  run: (api: Api, row: Json, value?: string) => Promise<unknown>;
}

export interface ResourceDescription {
  /** Section heading and table label ("MCP servers"). */
  title: string;
  /** The collection path (`/v1/mcp-servers`). */
  path: string;
  /** The scope reading needs, named when the key lacks it. */
  readScope: string;
  /** What changing this resource needs (capabilities.ts decides from GET /v1/me); none: read only. */
  write?: WriteNeed;
  /** The key of the row id (default `id`). */
  idOf?: (row: Json) => string;
  /** `names`: API keys, virtual keys, workspaces and configs by id (names.ts), so a cell can name what a row points at. */
  columns: { label: string; cell: (row: Json, names: Names) => ComponentChildren }[];
  /** `path` when creating is not a POST to the collection (users are invited at /v1/admin/users/invites). */
  create?: { label: string; fields: FormField[]; body?: (values: Json) => Json; path?: string };
  actions?: RowAction[];
  /**
   * Editing an opened row: fields prefilled from it, sent as the API defines (PATCH or PUT to the row's path). The
   * body is checked in the browser first (JSON fields parse); a 400 from gw is shown next to the form.
   */
  edit?: { method: 'PATCH' | 'PUT'; fields: (row: Json) => FormField[]; body?: (values: Json) => Json };
  /** Query filters shown above the list (name → label). */
  filters?: { name: string; label: string; placeholder?: string }[];
  /** Extra detail fetched when a row opens (e.g. an MCP server's handshake metadata), shown beside the row. */
  detail?: (api: Api, row: Json) => Promise<Json>;
  /** Reload every few seconds while a row is still working (exports in progress). */
  pending?: (row: Json) => boolean;
  /** Rows a page (gw's `limit`; default 100); Next page and Previous page follow gw's cursor. */
  pageSize?: number;
  /** How to list when the collection has no list route of gw's shape (SCIM members). */
  list?: (api: Api) => Promise<{ data: Json[]; next_cursor?: string | null }>;
  /** Runs with the created resource. */
  created?: (created: Json) => void;
  /** A note under the heading. */
  note?: string;
}

/** Turns one form field's text into its JSON value; throws a readable error for bad JSON. */
export function fieldValue(field: FormField, raw: string | boolean): unknown {
  if (field.kind === 'checkbox') return raw === true;
  const value = String(raw).trim();
  if (field.kind === 'number') return value === '' ? undefined : Number(value);
  if (field.kind === 'list') return value.split(/[\s,]+/).filter(Boolean);
  if (field.kind === 'tags') {
    const entries = value
      .split(/[,\n]+/)
      .map((pair) => pair.trim())
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at <= 0) throw new Error(`${field.label}: write tags as key=value`);
        return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      });
    return Object.fromEntries(entries);
  }
  if (field.kind === 'json') {
    if (!value) return undefined;
    try {
      return JSON.parse(value);
    } catch {
      throw new Error(`${field.label}: not valid JSON`);
    }
  }
  return value;
}

/** The create body from the form's values: empty optional fields are left out. */
export function bodyOf(fields: FormField[], values: Record<string, string | boolean>): Json {
  const body: Json = {};
  for (const field of fields) {
    const value = fieldValue(field, values[field.name] ?? field.initial ?? '');
    const empty = value === undefined || value === '' || value === false || (Array.isArray(value) && value.length === 0) || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
    if (field.optional && empty) continue;
    body[field.name] = value;
  }
  return body;
}
