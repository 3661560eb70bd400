import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { redactText, type KnownCredentials } from '../observability/redact.js';
import { guardedFetch } from './outbound.js';
import type { McpServerMetadata, McpToolDescription } from './types.js';

/** A handshake that takes longer than this is a failed sync, so a registration never hangs on a dead server. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** Stored with the record (a DynamoDB item holds at most 400 KB): tools beyond this are left out of the cache. */
const MAX_CACHED_TOOLS_BYTES = 256 * 1024;
const GW_CLIENT_INFO = { name: 'gw-mcp-gateway', version: '1.0.0' };

/**
 * Connects to an MCP server over Streamable HTTP with the official MCP client (the `initialize` handshake),
 * reads every page of `tools/list`, and closes the session again. Credentials travel only in `headers`.
 */
export async function fetchServerMetadata(url: string, headers: Record<string, string>, timeoutMs = HANDSHAKE_TIMEOUT_MS): Promise<McpServerMetadata> {
  const signal = AbortSignal.timeout(timeoutMs);
  const client = new Client(GW_CLIENT_INFO);
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch: guardedFetch(timeoutMs) });
  try {
    await client.connect(transport, { signal, timeout: timeoutMs });
    // Without a cursor the client walks every page of tools/list itself.
    const { tools } = await client.listTools(undefined, { signal, timeout: timeoutMs, cacheMode: 'bypass' });
    return describe(client, tools as McpToolDescription[]);
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}

function describe(client: Client, tools: McpToolDescription[]): McpServerMetadata {
  const server = (client.getServerVersion() ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const metadata: McpServerMetadata = {
    title: text(server.title),
    description: text(server.description),
    icons: Array.isArray(server.icons) ? server.icons : undefined,
    server_name: text(server.name),
    server_version: text(server.version),
    website_url: text(server.websiteUrl),
    protocol_version: client.getNegotiatedProtocolVersion(),
    instructions: client.getInstructions(),
    capabilities: client.getServerCapabilities() as Record<string, unknown> | undefined,
    tools: withinBudget(tools),
  };
  return JSON.parse(JSON.stringify(metadata)) as McpServerMetadata;
}

function withinBudget(tools: McpToolDescription[]): McpToolDescription[] {
  let size = 0;
  const kept: McpToolDescription[] = [];
  for (const tool of tools) {
    size += JSON.stringify(tool).length;
    if (size > MAX_CACHED_TOOLS_BYTES) break;
    kept.push(tool);
  }
  return kept;
}

/**
 * A failure of the handshake, said in a line that carries no header value: the server's credential (`known`) and
 * any credential-shaped text are masked before the line is cut, so no part of one survives at the cut.
 */
export function describeSyncFailure(error: unknown, known?: KnownCredentials): string {
  let message = error instanceof Error ? error.message : String(error);
  // The client's HTTP errors keep the status apart from the message.
  const status = (error as { data?: { status?: unknown } } | null)?.data?.status;
  if (typeof status === 'number') message = `${message.replace(/:\s*$/, '')} (HTTP ${status})`;
  return redactText(message.replace(/Bearer\s+\S+/gi, 'Bearer ***'), known).slice(0, 500);
}
