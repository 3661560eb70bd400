import { describe, expect, it } from 'vitest';
import { responsesToCanonical } from '../../../shared/dialects/responses/request.js';
import { canonicalToResponse } from '../../../shared/dialects/responses/response.js';

const tools = [
  { type: 'custom', name: 'apply_patch', description: 'Edit files (free-form).' },
  { type: 'namespace', name: 'collab', description: 'Helper agents.', tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object', properties: { message: { type: 'string' } } } }] },
];

describe('Responses tools on a translated target (Codex’s namespace and free-form tools)', () => {
  it('a namespace’s tools and a custom tool become chat functions; their calls in input map to the same names', () => {
    const chat = responsesToCanonical(
      {
        model: 'm',
        tools,
        tool_choice: { type: 'function', name: 'spawn_agent', namespace: 'collab' },
        input: [
          { type: 'message', role: 'user', content: 'go' },
          { type: 'function_call', call_id: 'c1', name: 'spawn_agent', namespace: 'collab', arguments: '{"message":"x"}' },
          { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' },
          { type: 'function_call_output', call_id: 'c1', output: 'ok' },
          { type: 'custom_tool_call_output', call_id: 'c2', output: 'Done!' },
        ],
      },
      'anthropic',
    );
    const names = (chat.tools as Array<{ function: { name: string; description?: string; parameters: unknown } }>).map((tool) => tool.function);
    expect(names.map((fn) => fn.name)).toEqual(['apply_patch', 'collab__spawn_agent']);
    expect(names[0].parameters).toMatchObject({ properties: { input: { type: 'string' } }, required: ['input'] });
    expect(names[1].description).toContain('Helper agents.');
    expect(chat.tool_choice).toEqual({ type: 'function', function: { name: 'collab__spawn_agent' } });
    const messages = chat.messages as Array<Record<string, unknown>>;
    expect(messages[1].tool_calls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'collab__spawn_agent', arguments: '{"message":"x"}' } },
      { id: 'c2', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' } },
    ]);
    expect(messages.slice(2)).toEqual([{ role: 'tool', tool_call_id: 'c1', content: 'ok' }, { role: 'tool', tool_call_id: 'c2', content: 'Done!' }]);
  });

  it('the model’s calls come back as the client’s own items: namespaced function_call, custom_tool_call with its string', () => {
    const completion = {
      model: 'm',
      choices: [{ finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'collab__spawn_agent', arguments: '{"message":"x"}' } },
        { id: 'c2', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' } },
      ] } }],
      usage: { prompt_tokens: 1, completion_tokens: 1 },
    };
    const output = canonicalToResponse(completion, { model: 'm', tools }).output as Array<Record<string, unknown>>;
    expect(output[0]).toMatchObject({ type: 'function_call', namespace: 'collab', name: 'spawn_agent', call_id: 'c1', arguments: '{"message":"x"}' });
    expect(output[1]).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', call_id: 'c2', input: '*** Begin Patch' });
  });
});
