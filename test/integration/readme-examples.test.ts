import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../support/gateway.js';
import { useGatewayWithUpstream } from '../support/harness.js';
import { openAIMockHandler } from '../support/mock-openai.js';
import type { MockUpstream } from '../support/mock-upstream.js';

// README's newcomer examples run verbatim in bash with curl, as a reader pastes them after `export GW_API_KEY=…`:
// only the address changes (the test gateway's port), and the provider is redirected to a mock with one more
// header, x-gw-custom-host (which README documents as overriding every target's host).

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

/** The first ```bash block after a README heading. */
function firstBashBlockAfter(heading: string): string {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf(`\n${heading}\n`);
  expect(start, `README has the heading ${heading}`).toBeGreaterThanOrEqual(0);
  const block = /```bash\n([\s\S]*?)```/.exec(readme.slice(start));
  expect(block, `a bash block after ${heading}`).not.toBeNull();
  return block![1];
}

async function runVerbatim(script: string): Promise<{ status: number; body: Record<string, unknown> }> {
  expect(script).toContain('http://127.0.0.1:8787');
  const runnable = `${script.replaceAll('http://127.0.0.1:8787', gateway.url).trimEnd()} -H "x-gw-custom-host: $MOCK_URL" -s -w '\\n%{http_code}'\n`;
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', runnable], {
    env: { PATH: process.env.PATH, GW_API_KEY: gateway.apiKey, OPENAI_API_KEY: 'sk-readme', MOCK_URL: upstream.url },
  });
  const lines = stdout.trimEnd().split('\n');
  return { status: Number(lines.at(-1)), body: JSON.parse(lines.slice(0, -1).join('\n')) as Record<string, unknown> };
}

describe('README examples run verbatim', () => {
  it('First request', async () => {
    const answer = await runVerbatim(firstBashBlockAfter('## First request'));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ object: 'chat.completion' });
  });

  it('the multi-line x-gw-config fallback example', async () => {
    const script = firstBashBlockAfter('## Configs: fallback, load balancing, conditional routing, retries');
    expect(script).toContain('x-gw-config');
    const answer = await runVerbatim(script);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ object: 'chat.completion', model: 'gpt-4o' });
  });
});
