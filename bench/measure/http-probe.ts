import { Agent, request, type IncomingHttpHeaders } from 'node:http';

/** One request the probe sends: method POST unless said otherwise, body already serialised. */
export interface ProbeRequest {
  url: URL;
  method?: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface TimedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** From just before the request was written to the first body byte (or the end, for an empty body). */
  firstByteMs: number;
  /** From just before the request was written to the last body byte. */
  lastByteMs: number;
  body: Buffer;
}

/** A keep-alive agent with one socket: sequential requests reuse one connection, as a client SDK would. */
export function keepAliveAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 1, keepAliveMsecs: 30_000 });
}

const NS_PER_MS = 1_000_000;

/** Sends one request and times it with `process.hrtime` (monotonic, nanoseconds). */
export function timedRequest(agent: Agent, probe: ProbeRequest, timeoutMs: number): Promise<TimedResponse> {
  return new Promise<TimedResponse>((resolve, reject) => {
    const headers: Record<string, string | number> = { ...probe.headers };
    if (probe.body) headers['content-length'] = probe.body.length;
    const started = process.hrtime.bigint();
    const outgoing = request(probe.url, { method: probe.method ?? 'POST', agent, headers }, (response) => {
      const parts: Buffer[] = [];
      let firstByte: bigint | undefined;
      response.on('data', (part: Buffer) => {
        firstByte ??= process.hrtime.bigint();
        parts.push(part);
      });
      response.once('end', () => {
        const ended = process.hrtime.bigint();
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          firstByteMs: Number((firstByte ?? ended) - started) / NS_PER_MS,
          lastByteMs: Number(ended - started) / NS_PER_MS,
          body: Buffer.concat(parts),
        });
      });
      response.once('error', reject);
    });
    outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms from ${probe.url.href}`)));
    outgoing.once('error', reject);
    outgoing.end(probe.body);
  });
}

/** Sends a probe request once, untimed (setup and feature detection). */
export async function sendOnce(probe: ProbeRequest): Promise<{ status: number; headers: Headers; json: unknown; text: string }> {
  const response = await fetch(probe.url, {
    method: probe.method ?? 'POST',
    headers: probe.headers,
    body: probe.body,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** A JSON call for setup through the API (not timed). */
export async function jsonCall(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; headers: Headers; json: unknown }> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: response.status, headers: response.headers, json };
}
