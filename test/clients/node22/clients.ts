// Client releases that declare Node >= 22, resolved from this folder's own node_modules (installed by
// scripts/install-node22-clients.mjs from the root postinstall). Tests import them from here so the project's own
// dependencies stay installable without EBADENGINE warnings on Node 20, where gw's tests run them too.
export * as openai7Module from 'openai';
export { default as OpenAI7 } from 'openai';
export { generateText as generateText7, jsonSchema as jsonSchema7, stepCountIs as stepCountIs7, streamText as streamText7, tool as tool7 } from 'ai';
export { createOpenAI as createOpenAI4 } from '@ai-sdk/openai';

import { readFileSync } from 'node:fs';

/** The version installed here of one of this folder's dependencies. */
export function installedNode22ClientVersion(name: 'openai' | 'ai' | '@ai-sdk/openai'): string {
  const manifest = new URL(`./node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}
