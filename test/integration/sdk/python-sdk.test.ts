import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

/** Runs `python3 -m unittest` in sdk/python with the given arguments and environment; resolves with its output. */
function unittest(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-m', 'unittest', ...args, '-v'], { cwd: 'sdk/python', env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the Python SDK (python3 -m unittest, standard library only)', () => {
  it('builds headers offline as the gateway expects them', async () => {
    const { code, output } = await unittest(['discover', '-s', 'tests', '-t', '.']);
    expect(output).toMatch(/Ran \d+ tests/);
    expect(output, output).toMatch(/\nOK\s*$/);
    expect(code).toBe(0);
  });

  it('talks to the running local gw: chat (streamed too), prompts, policies, logs, typed errors', async () => {
    const { code, output } = await unittest(['discover', '-s', 'tests', '-t', '.', '-p', 'live_*.py'], {
      GW_BASE_URL: `${gateway.url}/v1`,
      GW_API_KEY: gateway.apiKey,
      MOCK_PROVIDER_URL: upstream.url,
    });
    expect(output).toMatch(/Ran 8 tests/);
    expect(output, output).toMatch(/\nOK\s*$/);
    expect(code).toBe(0);
  }, 60_000);
});
