import type { z } from 'zod';
import type { OpenApiOperation } from '../openapi-operation.js';
import type { Principal } from '../../auth/principal.js';
import { isScope, type Scope } from '../../auth/scopes.js';
import type { FeatureFlag } from '../feature-flags.js';
import type { ControlPlaneRequest, RouteRegistrar } from '../handler-types.js';
import type { Page, PageRequest } from '../pagination.js';
import type { OperationDoc } from './operation-doc.js';

/**
 * One control-plane resource, defined once: its path, scopes, schemas, audit names and service. The routes
 * (derive-routes.ts) and the OpenAPI operations (derive-openapi.ts) are derived from it; what differs between
 * resources is written in the definition, by hand (extra routes, list filters, audit details, descriptions).
 * docs/architecture.md, "Control-plane resources: one definition", shows one (abridged).
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
  /** Absent where the definition leaves `delete` out of its operations (a policy is archived, never deleted). */
  delete?(at: ResourceScope, id: string): Promise<Stored>;
}

/** The schemas of the resource, exported from its schemas.ts (which names the components of docs/openapi.yaml). */
export interface ResourceSchemas<Create extends z.ZodType, Update extends z.ZodType> {
  create: Create;
  update: Update;
  view: z.ZodType;
  /** One page (documentation only: an undocumented resource may have none yet). */
  list?: z.ZodType;
  /** What a delete answers (resources without delete have none). */
  deleted?: z.ZodType;
  /** `{ <idParam>: … }`: its one key names the path parameter. */
  idPath: z.ZodObject;
  listQuery: z.ZodObject;
  /** `?workspace_id=` of the routes on one record (workspace resources). */
  workspaceQuery?: z.ZodObject;
}

/** The derived operations; a definition may leave some out (a policy is archived, never deleted). */
export type ResourceOperation = 'create' | 'list' | 'get' | 'update' | 'delete';
export const RESOURCE_OPERATIONS: readonly ResourceOperation[] = ['create', 'list', 'get', 'update', 'delete'];

/**
 * `POST <path>/{id}/<verb>` on one record (a policy's archive): scope-checked, audited as `<kind>.<verb>`, answered
 * with the presented record, and documented like the derived operations (`doc` adds the words and overrides).
 */
export interface ResourceAction<Stored, Service> {
  verb: string;
  scope: Scope;
  run: (service: Service, at: ResourceScope, id: string, call: ControlPlaneRequest) => Promise<{ stored: Stored; details?: Record<string, unknown> }>;
  /** What the action answers, when it is not the view (a rotation's new raw key); the definition's `present` otherwise. */
  present?: (stored: Stored) => unknown;
  doc: OperationDoc;
}

export interface ResourceDefinition<
  Stored extends { id: string } = { id: string },
  Create extends z.ZodType = z.ZodType,
  Update extends z.ZodType = z.ZodType,
  Filter = unknown,
  Service extends CrudService<Stored, z.infer<Create>, z.infer<Update>, Filter> = CrudService<Stored, z.infer<Create>, z.infer<Update>, Filter>,
> {
  /** `virtual_key`: the `object` of a deleted response, the audit `resource_type`, and the audit action prefix. */
  kind: string;
  /** `/v1/virtual-keys`; a record is at `<path>/{<idParam>}`. */
  path: string;
  /** Ids (or slugs) outside this pattern cannot exist: they are a 404 before any store read. */
  idPattern?: RegExp;
  /** Names in messages and docs, derived from `kind` unless given (see namesOf). */
  names?: Partial<ResourceNames>;
  tag: string;
  /** `readWriteScopes('virtual_keys')` for the usual `<resource>:read` + `<resource>:write`, the default (from `kind`). */
  scopes?: ResourceScopes;
  /**
   * Set when only organisation admin keys may change the resource: the operation named in the 403 (checked after
   * the scope), for every change, or per operation (`{ create: 'Creating a workspace' }`: the others need no admin).
   */
  writesNeedOrganisationAdmin?: string | Partial<Record<'create' | 'update' | 'delete', string>>;
  /**
   * Replaces the derived check of an operation (scope, then organisation admin for writes) where a resource has
   * always checked otherwise: another message, another order. Runs first, like the check it replaces.
   */
  authorize?: Partial<Record<ResourceOperation, (principal: Principal) => void>>;
  workspace: WorkspaceSource;
  /** Every route answers 404 `feature_disabled` while the flag is OFF. */
  featureFlag?: FeatureFlag;
  /** The same, for a resource switched by several flags (all must be ON); documented in this order. */
  featureFlags?: readonly FeatureFlag[];
  /**
   * Leaves the derived operations out of docs/openapi.yaml, where the resource has not been documented yet: the
   * document then lists its routes as `x-gw-undocumented`, from the router, as before it had a definition.
   */
  undocumented?: true;
  /** The derived operations the resource has (all five unless said otherwise), registered and documented. */
  operations?: readonly ResourceOperation[];
  /** Record actions: `POST <path>/{id}/<verb>`, registered after the derived routes. */
  actions?: ReadonlyArray<ResourceAction<Stored, Service>>;
  /** The body may carry a credential: a JSON syntax error is reported without quoting the input. */
  secretBearingBody?: boolean;
  /** Methods that update a record (PATCH unless said otherwise), in the order they are registered and documented. */
  updateMethods?: ReadonlyArray<'PATCH' | 'PUT'>;
  schemas: ResourceSchemas<Create, Update>;
  /** Built once, on the first request (settings and stores are read only then). */
  service: () => Service;
  present: (stored: Stored) => unknown;
  /** What a create answers, when it is not the view (e.g. `{ id, object }`); `present` otherwise. */
  presentCreated?: (stored: Stored) => unknown;
  /** The list route's filter, from the query string (limit and cursor are read by pagination.ts); the call for the rest. */
  listFilter?: (query: Record<string, string>, call: ControlPlaneRequest) => Filter;
  audit: {
    /** The workspace a change is filed under; the scope's workspace unless said otherwise. */
    workspaceOf?: (stored: Stored, at: ResourceScope) => string;
    created: (stored: Stored) => Record<string, unknown>;
    /** Field names only by default: values may be credentials. */
    updated?: (body: z.infer<Update>, stored: Stored) => Record<string, unknown>;
    deleted?: (stored: Stored) => Record<string, unknown>;
    /**
     * The workspace a call on one record names, for its audit event when it fails (the event is filed under the
     * caller's workspace with this one as `target_workspace_id`), e.g. `(call) => call.params.id` for workspaces.
     */
    failureWorkspace?: (call: ControlPlaneRequest) => string;
  };
  /** A workspace holding records of this resource is not empty: deleting it needs `force`. */
  workspaceContent?: { name: string; hasAny: (workspaceId: string) => Promise<boolean> };
  /** The documentation of the derived operations it has: what cannot be derived (summaries, descriptions), and overrides. */
  docs: Partial<Record<ResourceOperation, OperationDoc>>;
  /** The derived statuses: 409 on create and update (a slug or name conflict), 503 where the secret store is written. */
  errors?: { conflict?: boolean; secretStore?: boolean };
  /** Routes of the resource that are not CRUD, written by hand with the same helpers. */
  extraRoutes?: (register: RouteRegistrar, helpers: ResourceHelpers<Service>) => void;
  /** Their documentation (see shared/control-plane/openapi-operation.ts). */
  extraOperations?: readonly OpenApiOperation[];
}

/** The derived operations a definition has. */
export function operationsOf(definition: Pick<ResourceDefinition, 'operations'>): readonly ResourceOperation[] {
  return definition.operations ?? RESOURCE_OPERATIONS;
}

/** The definition's scopes: its own, else `<kind>s:read` + `<kind>s:write` (`api_key` → `api_keys:read|write`). */
export function scopesOf(definition: Pick<ResourceDefinition, 'kind' | 'scopes'>): ResourceScopes {
  if (definition.scopes) return definition.scopes;
  const prefix = `${definition.kind}s`;
  // A kind whose plural names no scope (policy → policys) must say its scopes: never a check on a scope nobody has.
  if (!isScope(`${prefix}:read`) || !isScope(`${prefix}:write`)) throw new Error(`${definition.kind}: no ${prefix}:read|write scopes; give the definition its scopes`);
  return readWriteScopes(prefix as ReadWritePrefix);
}

/** The feature flags gating every route of a definition (`featureFlag` or `featureFlags`). */
export function flagsOf(definition: Pick<ResourceDefinition, 'featureFlag' | 'featureFlags'>): readonly FeatureFlag[] {
  return definition.featureFlags ?? (definition.featureFlag ? [definition.featureFlag] : []);
}

/** What hand-written routes of a resource share with the derived ones. */
export interface ResourceHelpers<Service> {
  service: () => Service;
  scopeOf: (call: ControlPlaneRequest, bodyWorkspace?: string) => Promise<ResourceScope>;
  checkedId: (call: ControlPlaneRequest) => string;
}

// A registry-wide symbol, so a definition is recognised even by a second copy of this module (a test's, a script's).
const DEFINITION = Symbol.for('gw.control-plane.resource-definition');

/** Declares a resource; scripts/openapi finds definitions exported from `<resource>/resource.ts` by this mark. */
export function defineResource<
  Stored extends { id: string },
  Create extends z.ZodType,
  Update extends z.ZodType,
  Filter,
  Service extends CrudService<Stored, z.infer<Create>, z.infer<Update>, Filter> = CrudService<Stored, z.infer<Create>, z.infer<Update>, Filter>,
>(definition: ResourceDefinition<Stored, Create, Update, Filter, Service>): ResourceDefinition<Stored, Create, Update, Filter, Service> {
  return Object.defineProperty(definition, DEFINITION, { value: true });
}

export function isResourceDefinition(value: unknown): value is ResourceDefinition {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DEFINITION] === true;
}

export interface ResourceScopes {
  read: Scope;
  create: Scope;
  update: Scope;
  delete: Scope;
}

/** `virtual_keys` for `virtual_keys:read` and `virtual_keys:write`: the prefixes that have both scopes. */
type PrefixOfReadScope<S> = S extends `${infer Prefix}:read` ? (`${Prefix}:write` extends Scope ? Prefix : never) : never;
type ReadWritePrefix = PrefixOfReadScope<Scope>;

/** Reads need `<prefix>:read` (lists also take `<prefix>:list`); every change needs `<prefix>:write`. */
export function readWriteScopes(prefix: ReadWritePrefix): ResourceScopes {
  const write = `${prefix}:write` as Scope;
  return { read: `${prefix}:read` as Scope, create: write, update: write, delete: write };
}

export interface ResourceNames {
  /** In messages and response descriptions: `virtual key`, `virtual keys`. */
  singular: string;
  plural: string;
  /** In operationIds: `createVirtualKey`, `listVirtualKeys`. */
  operation: string;
  operations: string;
}

/** `virtual_key` → `virtual key` / `virtual keys` / `VirtualKey` / `VirtualKeys`; what the definition names wins. */
export function namesOf(definition: Pick<ResourceDefinition, 'kind' | 'names'>): ResourceNames {
  const words = definition.kind.split('_');
  const singular = definition.names?.singular ?? words.join(' ');
  const operation = definition.names?.operation ?? words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
  return { singular, plural: definition.names?.plural ?? `${singular}s`, operation, operations: definition.names?.operations ?? `${operation}s` };
}

/** The path parameter's name: the one key of `schemas.idPath`. */
export function idParamOf(definition: Pick<ResourceDefinition, 'schemas'>): string {
  const [name] = Object.keys(definition.schemas.idPath.shape);
  return name;
}
