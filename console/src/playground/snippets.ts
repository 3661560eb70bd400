/**
 * The playground's request as code a user can paste: curl, TypeScript with `@gw-gateway/sdk` and Python with
 * `gw_sdk` (docs/sdks.md). Credentials are never written into a snippet: the gw key is `$GW_API_KEY` /
 * `process.env.GW_API_KEY` / `os.environ["GW_API_KEY"]`, and a provider token likewise.
 */
export type Route = { kind: 'virtual_key' | 'provider' | 'config'; value: string };

export interface PlaygroundRequest {
  /** gw's root (`https://…/prod`), without `/v1`. */
  root: string;
  route: Route;
  body: Record<string, unknown>;
  traceId?: string;
}

const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
const json = (value: unknown) => JSON.stringify(value, null, 2);

/** The gw headers the route needs, as the SDK parameter names (camelCase) and the HTTP headers. */
function routeParameters(route: Route): { header: string; ts: string; py: string } {
  if (route.kind === 'virtual_key') return { header: 'x-gw-virtual-key', ts: 'virtualKey', py: 'virtual_key' };
  if (route.kind === 'config') return { header: 'x-gw-config', ts: 'config', py: 'config' };
  return { header: 'x-gw-provider', ts: 'provider', py: 'provider' };
}

export function curlSnippet(request: PlaygroundRequest): string {
  const { header } = routeParameters(request.route);
  const lines = [`curl ${quote(`${request.root}/v1/chat/completions`)}`, `-H 'content-type: application/json'`, `-H "x-gw-api-key: $GW_API_KEY"`, `-H ${quote(`${header}: ${request.route.value}`)}`];
  if (request.traceId) lines.push(`-H ${quote(`x-gw-trace-id: ${request.traceId}`)}`);
  lines.push(`-d ${quote(JSON.stringify(request.body))}`);
  return lines.join(' \\\n  ');
}

export function typescriptSnippet(request: PlaygroundRequest): string {
  const { ts } = routeParameters(request.route);
  const { stream, ...body } = request.body;
  const options = [`  apiKey: process.env.GW_API_KEY!,`, `  baseURL: ${JSON.stringify(`${request.root}/v1`)},`, `  ${ts}: ${JSON.stringify(request.route.value)},`];
  if (request.traceId) options.push(`  traceId: ${JSON.stringify(request.traceId)},`);
  const call = `const stream = await client.chat.completions.create(${json({ ...body, stream: true })});`;
  return [
    `import { createClient } from '@gw-gateway/sdk';`,
    ``,
    `const client = createClient({\n${options.join('\n')}\n});`,
    stream === false ? `const completion = await client.chat.completions.create(${json(body)});\nconsole.log(completion.choices[0].message.content);` : `${call}\nfor await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');`,
  ].join('\n');
}

/** Python literals from JSON: true/false/null become True/False/None (strings are left alone). */
function pythonLiteral(value: unknown, indent = ''): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number' || typeof value === 'string') return JSON.stringify(value);
  const inner = `${indent}    `;
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[\n${value.map((item) => inner + pythonLiteral(item, inner)).join(',\n')},\n${indent}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return entries.length === 0 ? '{}' : `{\n${entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${pythonLiteral(item, inner)}`).join(',\n')},\n${indent}}`;
}

export function pythonSnippet(request: PlaygroundRequest): string {
  const { py } = routeParameters(request.route);
  const { stream: _stream, ...body } = request.body;
  const options = [`    api_key=os.environ["GW_API_KEY"],`, `    base_url=${JSON.stringify(`${request.root}/v1`)},`, `    ${py}=${JSON.stringify(request.route.value)},`];
  if (request.traceId) options.push(`    trace_id=${JSON.stringify(request.traceId)},`);
  const args = Object.entries(body).map(([key, value]) => `    ${key}=${pythonLiteral(value, '    ')},`);
  return [
    `import os`,
    `from gw_sdk import Gw`,
    ``,
    `gw = Gw(\n${options.join('\n')}\n)`,
    `for chunk in gw.chat.completions.create(\n${args.join('\n')}\n    stream=True,\n):`,
    `    print(chunk["choices"][0]["delta"].get("content") or "", end="")`,
  ].join('\n');
}
