import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../../shared/http/sse.js';
import { eventMessage } from '../../fixtures/bedrock/event-stream.js';
import { anthropicStream } from '../../support/mock-anthropic.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';

type Json = Record<string, unknown>;

/**
 * The OpenAI Codex CLI through gw to every kind of translated target (Anthropic, Bedrock, Vertex AI, Gemini): the
 * captured request (test/fixtures/openai/codex-responses-request.json: where it came from is written in it) is
 * replayed as Codex sends it, the target calls a namespaced multi-agent tool, and the loop goes on with the call's
 * output as Codex would send it next, until the model answers in text.
 */
const captured = JSON.parse(readFileSync(new URL('../../fixtures/openai/codex-responses-request.json', import.meta.url), 'utf8')) as { path: string; headers: Record<string, string>; body: Json };

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(agentTurnMock, (started) => ({ gateway, upstream } = started));

const FINAL_TEXT = 'The helper found the off-by-one in sum().';

/**
 * One mock that answers like each provider: a call of the first namespaced tool offered (flattened by gw into
 * `<namespace>__<name>`) until a tool result comes back, then text. The wire format follows the path gw called.
 */
function agentTurnMock(request: RecordedRequest): ScriptedResponse {
  const body = (request.json ?? {}) as Json;
  if (request.path.includes('converse-stream')) return bedrockTurn(body);
  if (request.path.includes(':streamGenerateContent')) return geminiTurn(body);
  return anthropicTurn(body);
}

function anthropicTurn(body: Json): ScriptedResponse {
  const names = ((body.tools as Json[] | undefined) ?? []).map((tool) => String(tool.name));
  const last = (body.messages as Json[]).at(-1)!;
  const answered = Array.isArray(last.content) && (last.content as Json[]).some((block) => block.type === 'tool_result');
  const content = answered ? [{ type: 'text', text: FINAL_TEXT }] : [{ type: 'tool_use', id: 'toolu_codex_1', name: namespaced(names), input: { message: 'Find why sum fails' } }];
  return { chunks: anthropicStream('msg_codex', String(body.model), content, answered ? 'end_turn' : 'tool_use', { input_tokens: 40, output_tokens: 12 }) };
}

function bedrockTurn(body: Json): ScriptedResponse {
  const names = (((body.toolConfig as Json | undefined)?.tools as Json[] | undefined) ?? []).map((tool) => String((tool.toolSpec as Json).name));
  const last = (body.messages as Json[]).at(-1)!;
  const answered = (last.content as Json[]).some((block) => block.toolResult !== undefined);
  const events: Uint8Array[] = [eventMessage('messageStart', { role: 'assistant' })];
  if (answered) {
    events.push(eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: FINAL_TEXT } }));
  } else {
    events.push(eventMessage('contentBlockStart', { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'tooluse_codex_1', name: namespaced(names) } } }));
    events.push(eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '{"message":"Find why sum fails"}' } } }));
  }
  events.push(eventMessage('contentBlockStop', { contentBlockIndex: 0 }));
  events.push(eventMessage('messageStop', { stopReason: answered ? 'end_turn' : 'tool_use' }));
  events.push(eventMessage('metadata', { usage: { inputTokens: 40, outputTokens: 12, totalTokens: 52 }, metrics: { latencyMs: 5 } }));
  return { headers: { 'content-type': 'application/vnd.amazon.eventstream' }, chunks: events };
}

function geminiTurn(body: Json): ScriptedResponse {
  const names = ((body.tools as Json[] | undefined) ?? []).flatMap((tool) => ((tool.functionDeclarations as Json[] | undefined) ?? []).map((fn) => String(fn.name)));
  const last = (body.contents as Json[]).at(-1)!;
  const answered = (last.parts as Json[]).some((part) => part.functionResponse !== undefined);
  const parts = answered ? [{ text: FINAL_TEXT }] : [{ functionCall: { name: namespaced(names), args: { message: 'Find why sum fails' } } }];
  const chunk = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 12, totalTokenCount: 52 }, modelVersion: 'gemini-2.5-pro' };
  return { headers: { 'content-type': 'text/event-stream' }, chunks: [`data: ${JSON.stringify(chunk)}\r\n\r\n`] };
}

function namespaced(names: string[]): string {
  return names.find((name) => name.includes('__')) ?? 'no_namespaced_tool_offered';
}

/** How each target kind is named, as Codex's `http_headers` / `env_http_headers` would send it. */
const TARGETS: Array<{ kind: string; model: string; searches?: true; headers: () => Record<string, string> }> = [
  // Anthropic runs web search as its own server tool (web-search-translation.test.ts); the others have none.
  { kind: 'anthropic', model: 'claude-sonnet-4-5', searches: true, headers: () => ({ 'x-gw-provider': 'anthropic', 'x-gw-custom-host': `${upstream.url}/v1`, authorization: 'Bearer sk-ant-provider' }) },
  {
    kind: 'bedrock',
    model: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
    headers: () => ({
      'x-gw-provider': 'bedrock',
      'x-gw-custom-host': upstream.url,
      'x-gw-aws-access-key-id': 'AKIDEXAMPLE',
      'x-gw-aws-secret-access-key': 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      'x-gw-aws-region': 'us-east-1',
    }),
  },
  {
    kind: 'vertex-ai',
    model: 'gemini-2.5-pro',
    headers: () => ({ 'x-gw-provider': 'vertex-ai', 'x-gw-vertex-project-id': 'my-project', 'x-gw-vertex-region': 'us-central1', 'x-gw-custom-host': upstream.url, authorization: 'Bearer ya29.test-token' }),
  },
  { kind: 'google', model: 'gemini-2.5-pro', headers: () => ({ 'x-gw-provider': 'google', 'x-gw-custom-host': `${upstream.url}/v1beta`, authorization: 'Bearer AIzaSy-test-key' }) },
];

async function sendAsCodex(headers: Record<string, string>, body: Json): Promise<Response> {
  return fetch(`${gateway.url}${captured.path}`, { method: 'POST', headers: { ...captured.headers, 'x-gw-api-key': gateway.apiKey, ...headers }, body: JSON.stringify(body) });
}

async function events(response: Response): Promise<Json[]> {
  const decoder = new SseDecoder();
  const parsed = [...decoder.push(new Uint8Array(await response.arrayBuffer())), ...decoder.end()];
  return parsed.map((event) => JSON.parse(event.data) as Json);
}

/** The items Codex keeps from a streamed turn: each `response.output_item.done` item. */
function doneItems(stream: Json[]): Json[] {
  return stream.filter((event) => event.type === 'response.output_item.done').map((event) => event.item as Json);
}

describe('Codex CLI (Responses API) to every translated target', () => {
  it.each(TARGETS)('$kind: namespace tools become function tools, web_search translated or dropped under the header, the tool loop completes', async ({ model, searches, headers }) => {
    const dropHeader = { 'x-gw-drop-unsupported-params': 'true' };
    const body: Json = { ...captured.body, model };
    upstream.requests.length = 0;

    const first = await sendAsCodex({ ...headers(), ...dropHeader }, body);
    expect(first.status, await first.clone().text()).toBe(200);
    expect(first.headers.get('x-gw-dropped-params')).toBe(searches ? null : 'tools.web_search');
    const firstEvents = await events(first);
    expect(firstEvents.at(-1)?.type).toBe('response.completed');
    expect(firstEvents.map((event) => event.sequence_number)).toEqual(firstEvents.map((_, index) => index));
    const call = doneItems(firstEvents).find((item) => item.type === 'function_call')!;
    // The model called the flattened name; Codex gets its own tool back: the namespace and the name inside it.
    expect(call).toMatchObject({ type: 'function_call', namespace: 'collab', name: 'spawn_agent', arguments: '{"message":"Find why sum fails"}' });

    // What the provider was offered: the namespace's tools as functions, apply_patch as a one-string function.
    const offered = JSON.stringify(upstream.requests[0].json);
    for (const name of ['exec_command', 'update_plan', 'apply_patch', 'collab__spawn_agent', 'collab__wait']) expect(offered).toContain(`"${name}"`);
    if (searches) expect(offered).toContain('"web_search_20250305"');
    else expect(offered).not.toContain('web_search');
    expect(offered).not.toContain('client_metadata');

    // Codex's next turn: the history, an earlier reasoning item with encrypted content, the call and its output.
    const next = {
      ...body,
      input: [
        ...(body.input as Json[]),
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAAABo-encrypted-by-openai' },
        ...doneItems(firstEvents),
        { type: 'function_call_output', call_id: call.call_id, output: '{"agent_id":"agent-1"}' },
      ],
    };
    const second = await sendAsCodex({ ...headers(), ...dropHeader }, next);
    expect(second.status, await second.clone().text()).toBe(200);
    const secondEvents = await events(second);
    expect(secondEvents.at(-1)?.type).toBe('response.completed');
    const message = doneItems(secondEvents).find((item) => item.type === 'message')!;
    expect(JSON.stringify(message.content)).toContain(FINAL_TEXT);
    // The call went back to the provider under the flattened name it was offered.
    expect(JSON.stringify(upstream.requests[1].json)).toContain('collab__spawn_agent');
  });

  it('without the drop header, web_search on a target with no search of its own is a 400 unsupported_tool that names the tool and the header', async () => {
    const bedrock = TARGETS.find((target) => target.kind === 'bedrock')!;
    const response = await sendAsCodex(bedrock.headers(), { ...captured.body, model: bedrock.model });
    expect(response.status).toBe(400);
    const error = ((await response.json()) as { error: { code: string; message: string; param: string } }).error;
    expect(error.code).toBe('unsupported_tool');
    expect(error.param).toBe('tools.4.type');
    expect(error.message).toContain("'web_search'");
    expect(error.message).toContain('x-gw-drop-unsupported-params');
  });

  it('to Anthropic, Codex’s default set-up (multi-agent tools and web search) needs no header at all', async () => {
    const response = await sendAsCodex(TARGETS[0].headers(), { ...captured.body, model: TARGETS[0].model });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get('x-gw-dropped-params')).toBeNull();
    expect((await events(response)).at(-1)?.type).toBe('response.completed');
  });

  it('with web search disabled (`-c web_search=disabled`), the default multi-agent set-up needs no header at all', async () => {
    const tools = (captured.body.tools as Json[]).filter((tool) => tool.type !== 'web_search');
    const response = await sendAsCodex(TARGETS[0].headers(), { ...captured.body, model: TARGETS[0].model, tools });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get('x-gw-dropped-params')).toBeNull();
    expect((await events(response)).at(-1)?.type).toBe('response.completed');
  });
});
