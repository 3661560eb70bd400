import type { Json } from '../api';

/**
 * A logged conversation as messages: roles, text, images (named by their address, never loaded: the page's CSP
 * allows no foreign images, and a log must not make the browser call out), tool calls with their arguments and
 * tool results. It reads the OpenAI chat shape and Anthropic's content blocks; anything else is left to the raw body.
 */
interface Part {
  kind: 'text' | 'image' | 'tool call' | 'tool result' | 'other';
  text: string;
}

const str = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function partsOf(content: unknown): Part[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [{ kind: 'other', text: str(content) }];
  return content.map((block: Json): Part => {
    switch (block.type) {
      case 'text':
      case 'input_text':
      case 'output_text':
        return { kind: 'text', text: String(block.text ?? '') };
      case 'image_url':
        return { kind: 'image', text: imageName((block.image_url as Json | undefined)?.url ?? block.image_url) };
      case 'image':
      case 'input_image':
        return { kind: 'image', text: imageName((block.source as Json | undefined)?.url ?? block.image_url ?? (block.source as Json | undefined)?.media_type) };
      case 'tool_use':
        return { kind: 'tool call', text: `${String(block.name)}(${str(block.input)})` };
      case 'tool_result':
        return { kind: 'tool result', text: `${String(block.tool_use_id ?? '')}: ${partsOf(block.content).map((part) => part.text).join('\n')}` };
      default:
        return { kind: 'other', text: str(block) };
    }
  });
}

/** An image's address, shortened when it is inline data (a data URL says only its type). */
function imageName(url: unknown): string {
  const text = String(url ?? 'image');
  return text.startsWith('data:') ? `${text.slice(0, text.indexOf(';') > 0 ? text.indexOf(';') : 30)} (inline)` : text;
}

interface Message {
  role: string;
  parts: Part[];
}

function messageOf(message: Json): Message {
  const parts = partsOf(message.content);
  for (const call of (message.tool_calls as Json[] | undefined) ?? []) {
    const fn = (call.function ?? {}) as Json;
    parts.push({ kind: 'tool call', text: `${String(fn.name ?? call.type)}(${String(fn.arguments ?? '')})` });
  }
  if (message.role === 'tool') return { role: `tool ${String(message.tool_call_id ?? '')}`.trim(), parts: parts.map((part) => ({ ...part, kind: part.kind === 'text' ? 'tool result' : part.kind })) };
  return { role: String(message.role ?? 'message'), parts };
}

/** The messages of a request body and of its answer, in order. */
export function conversationOf(request: unknown, response: unknown): Message[] {
  const messages: Message[] = [];
  const body = (request ?? {}) as Json;
  if (typeof body.system === 'string') messages.push({ role: 'system', parts: [{ kind: 'text', text: body.system }] });
  else if (Array.isArray(body.system)) messages.push({ role: 'system', parts: partsOf(body.system) });
  if (typeof body.instructions === 'string') messages.push({ role: 'system', parts: [{ kind: 'text', text: body.instructions }] });
  if (Array.isArray(body.messages)) messages.push(...(body.messages as Json[]).map(messageOf));
  else if (typeof body.input === 'string') messages.push({ role: 'user', parts: [{ kind: 'text', text: body.input }] });
  else if (Array.isArray(body.input)) messages.push(...(body.input as Json[]).filter((item) => item.role).map(messageOf));
  else if (typeof body.prompt === 'string') messages.push({ role: 'prompt', parts: [{ kind: 'text', text: body.prompt }] });
  const answer = (response ?? {}) as Json;
  const choice = (answer.choices as Json[] | undefined)?.[0];
  if (choice?.message) messages.push({ ...messageOf(choice.message as Json), role: `${String((choice.message as Json).role ?? 'assistant')} (answer)` });
  else if (answer.type === 'message' && Array.isArray(answer.content)) messages.push({ role: 'assistant (answer)', parts: partsOf(answer.content) });
  else if (typeof choice?.text === 'string') messages.push({ role: 'completion (answer)', parts: [{ kind: 'text', text: choice.text }] });
  return messages;
}

export function Conversation({ request, response }: { request: unknown; response: unknown }) {
  const messages = conversationOf(request, response);
  if (messages.length === 0) return <p class="muted">No conversation in this record (bodies are kept only when the workspace logs them).</p>;
  return (
    <ol class="conversation" aria-label="Conversation">
      {messages.map((message) => (
        <li class={`msg role-${message.role.split(' ')[0]}`}>
          <strong class="role">{message.role}</strong>
          {message.parts.map((part) => (
            <div class={`part ${part.kind.replace(' ', '-')}`}>
              {part.kind === 'text' ? null : <span class="part-kind">{part.kind}: </span>}
              <span class="part-text">{part.text}</span>
            </div>
          ))}
        </li>
      ))}
    </ol>
  );
}
