import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import { isResourceDefinition } from '../../shared/control-plane/resource/define-resource.js';
import { resourceOperations } from '../../shared/control-plane/resource/derive-openapi.js';
import { openApiOperationSchema, type ParsedOpenApiOperation } from './operation.js';

/** A schema module found under shared/: its zod exports become components, its operations become paths. */
export interface SchemaModule {
  /** Stable, human name (the resource folder), used to disambiguate component names. */
  name: string;
  /** Prepended to the component names of this module's exports. */
  componentPrefix: string;
  schemas: Array<{ exportName: string; schema: z.ZodType }>;
  operations: ParsedOpenApiOperation[];
}

/** Modules outside shared/control-plane whose schemas belong in the document when they exist. */
const OPTIONAL_SCHEMA_MODULES = [{ name: 'gateway-config', file: 'shared/gateway/config/schema.ts', componentPrefix: 'GatewayConfig' }];

/**
 * Finds every `shared/control-plane/<resource>/schemas.ts` (and what documents the resource's routes: the
 * operations derived from the definitions its `resource.ts` exports, and its `openapi.ts`), plus the optional
 * modules above, in a fixed order so the document is the same on every machine.
 */
export async function loadSchemaModules(root: string): Promise<SchemaModule[]> {
  const modules: SchemaModule[] = [];
  const controlPlane = join(root, 'shared/control-plane');
  const resources = readdirSync(controlPlane, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  for (const resource of resources) {
    const schemasFile = join(controlPlane, resource, 'schemas.ts');
    const operationsFile = join(controlPlane, resource, 'openapi.ts');
    const definitionFile = join(controlPlane, resource, 'resource.ts');
    if (!existsSync(schemasFile) && !existsSync(operationsFile) && !existsSync(definitionFile)) continue;
    modules.push({
      name: resource,
      componentPrefix: '',
      schemas: existsSync(schemasFile) ? zodExports(await import(pathToFileURL(schemasFile).href)) : [],
      operations: [
        ...(existsSync(definitionFile) ? parseOperations(resource, { openApiOperations: derivedOperations(await import(pathToFileURL(definitionFile).href)) }) : []),
        ...(existsSync(operationsFile) ? parseOperations(resource, await import(pathToFileURL(operationsFile).href)) : []),
      ],
    });
  }
  for (const optional of OPTIONAL_SCHEMA_MODULES) {
    const file = join(root, optional.file);
    if (!existsSync(file)) continue;
    modules.push({ name: optional.name, componentPrefix: optional.componentPrefix, schemas: zodExports(await import(pathToFileURL(file).href)), operations: [] });
  }
  return modules;
}

/** The operations of every resource definition a `resource.ts` exports (shared/control-plane/resource/). */
function derivedOperations(moduleExports: Record<string, unknown>): unknown[] {
  return Object.keys(moduleExports)
    .sort()
    .flatMap((exportName) => {
      const value = moduleExports[exportName];
      return isResourceDefinition(value) ? resourceOperations(value) : [];
    });
}

function zodExports(moduleExports: Record<string, unknown>): SchemaModule['schemas'] {
  return Object.keys(moduleExports)
    .sort()
    .filter((exportName) => moduleExports[exportName] instanceof z.ZodType)
    .map((exportName) => ({ exportName, schema: moduleExports[exportName] as z.ZodType }));
}

export function parseOperations(source: string, moduleExports: Record<string, unknown>): ParsedOpenApiOperation[] {
  const declared = moduleExports.openApiOperations;
  if (declared === undefined) return [];
  const result = z.array(openApiOperationSchema).safeParse(declared);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new Error(`${source}: openApiOperations.${issue.path.join('.')}: ${issue.message}`);
}
