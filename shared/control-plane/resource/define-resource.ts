import type { z } from 'zod';
import type { Principal } from '../../auth/principal.js';
import type { Scope } from '../../auth/scopes.js';
import type { FeatureFlag } from '../feature-flags.js';
import type { ControlPlaneRequest, RouteRegistrar } from '../handler-types.js';
import type { Page, PageRequest } from '../pagination.js';
import type { OperationDoc } from './operation-doc.js';

/**
 * One control-plane resource, defined once: its path, scopes, schemas, audit names and service. The routes
 * (derive-routes.ts) and the OpenAPI operations (derive-openapi.ts) are derived from it; what differs between
 * resources is written in the definition, by hand (extra routes, list filters, audit details, descriptions).
 * docs/architecture.md, "Control-plane resources: one definition", shows a whole one.
 */

/** Where a call acts: the caller, and the workspace it acts on (its own, or the one an admin key named). */
export interface ResourceScope {
  principal: Principal;
  workspaceId: string;
}

/**
 * How a call finds its workspace:
 * - `query`: `?workspace_id=` (admin keys, id or slug), else the caller's;
 * - `query-or-body`: the same, but a create body's `workspace_id` comes first;
 * - `organisation`: the resource belongs to the organisation; the service decides visibility from the principal.
 */
export type WorkspaceSource = 'query' | 'query-or-body' | 'organisation';

/** What the derived routes call. `Stored` is what the service keeps (a record); `present` turns it into the view. */
export interface CrudService<Stored, Create, Update, Filter> {
  create(at: ResourceScope, body: Create): Promise<Stored>;
  list(at: ResourceScope, page: PageRequest, filter: Filter): Promise<Page<unknown>>;
  /** `query` is the request's query string, for reads that take options (e.g. `?version=` of a versioned resource). */
  get(at: ResourceScope, id: string, query: Readonly<Record<string, string>>): Promise<Stored>;
  update(at: ResourceScope, id: string, body: Update): Promise<Stored>;
  delete(at: ResourceScope, id: string): Promise<Stored>;
}

/** The schemas of the resource, exported from its schemas.ts (which names the components of docs/openapi.yaml). */
export interface ResourceSchemas<Create extends z.ZodType, Update extends z.ZodType> {
  create: Create;
  update: Update;
  view: z.ZodType;
  list: z.ZodType;
  deleted: z.ZodType;
  /** `{ <idParam>: … }`: its one key names the path parameter. */
  idPath: z.ZodObject;
  listQuery: z.ZodObject;
  /** `?workspace_id=` of the routes on one record (workspace resources). */
  workspaceQuery?: z.ZodObject;
}

export interface ResourceDefinition<Stored extends { id: string } = { id: string }, Create extends z.ZodType = z.ZodType, Update extends z.ZodType = z.ZodType, Filter = unknown> {
  /** `virtual_key`: the `object` of a deleted response, the audit `resource_type`, and the audit action prefix. */
  kind: string;
  /** `/v1/virtual-keys`; a record is at `<path>/{<idParam>}`. */
  path: string;
  /** Ids (or slugs) outside this pattern cannot exist: they are a 404 before any store read. */
  idPattern?: RegExp;
  /** Names in messages and docs: `virtual key` / `virtual keys`, and `VirtualKey` / `VirtualKeys` for operationIds. */
  names: { singular: string; plural: string; operation: string; operations: string };
  tag: string;
  scopes: { read: Scope; create: Scope; update: Scope; delete: Scope };
  /** Set when only organisation admin keys may change the resource: the operation named in the 403. */
  writesNeedOrganisationAdmin?: string;
  workspace: WorkspaceSource;
  /** Every route answers 404 `feature_disabled` while the flag is OFF. */
  featureFlag?: FeatureFlag;
  /** The body may carry a credential: a JSON syntax error is reported without quoting the input. */
  secretBearingBody?: boolean;
  /** Methods that update a record (PATCH unless said otherwise), in the order they are registered and documented. */
  updateMethods?: ReadonlyArray<'PATCH' | 'PUT'>;
  schemas: ResourceSchemas<Create, Update>;
  service: () => CrudService<Stored, z.infer<Create>, z.infer<Update>, Filter>;
  present: (stored: Stored) => unknown;
  /** The list route's filter, from the query string (limit and cursor are read by pagination.ts). */
  listFilter?: (query: Record<string, string>) => Filter;
  audit: {
    /** The workspace a change is filed under; the scope's workspace unless said otherwise. */
    workspaceOf?: (stored: Stored, at: ResourceScope) => string;
    created: (stored: Stored) => Record<string, unknown>;
    /** Field names only by default: values may be credentials. */
    updated?: (body: z.infer<Update>, stored: Stored) => Record<string, unknown>;
    deleted?: (stored: Stored) => Record<string, unknown>;
  };
  /** A workspace holding records of this resource is not empty: deleting it needs `force`. */
  workspaceContent?: { name: string; hasAny: (workspaceId: string) => Promise<boolean> };
  /** The documentation of the derived operations: what cannot be derived (summaries, descriptions), and overrides. */
  docs: { create: OperationDoc; list: OperationDoc; get: OperationDoc; update: OperationDoc; delete: OperationDoc };
  /** The derived statuses: 409 on create and update (a slug or name conflict), 503 where the secret store is written. */
  errors?: { conflict?: boolean; secretStore?: boolean };
  /** Routes of the resource that are not CRUD, written by hand with the same helpers. */
  extraRoutes?: (register: RouteRegistrar, helpers: ResourceHelpers<Stored, Create, Update, Filter>) => void;
  /** Their documentation (an OpenApiOperation each; see scripts/openapi/operation.ts). */
  extraOperations?: readonly unknown[];
}

/** What hand-written routes of a resource share with the derived ones. */
export interface ResourceHelpers<Stored, Create extends z.ZodType, Update extends z.ZodType, Filter> {
  service: () => CrudService<Stored, z.infer<Create>, z.infer<Update>, Filter>;
  scopeOf: (call: ControlPlaneRequest, bodyWorkspace?: string) => Promise<ResourceScope>;
  checkedId: (call: ControlPlaneRequest) => string;
}

// A registry-wide symbol, so a definition is recognised even by a second copy of this module (a test's, a script's).
const DEFINITION = Symbol.for('gw.control-plane.resource-definition');

/** Declares a resource; scripts/openapi finds definitions exported from `<resource>/resource.ts` by this mark. */
export function defineResource<Stored extends { id: string }, Create extends z.ZodType, Update extends z.ZodType, Filter = undefined>(
  definition: ResourceDefinition<Stored, Create, Update, Filter>,
): ResourceDefinition<Stored, Create, Update, Filter> {
  return Object.defineProperty(definition, DEFINITION, { value: true });
}

export function isResourceDefinition(value: unknown): value is ResourceDefinition {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DEFINITION] === true;
}

/** The path parameter's name: the one key of `schemas.idPath`. */
export function idParamOf(definition: Pick<ResourceDefinition, 'schemas'>): string {
  const [name] = Object.keys(definition.schemas.idPath.shape);
  return name;
}
