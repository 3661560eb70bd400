import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';

const run = promisify(execFile);
let gateway: TestGateway;
let upstream: MockUpstream;
let env: Record<string, string>;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

/** The fenced code block that follows `<!-- example: name -->` in README.md, exactly as a reader copies it. */
function readmeExample(name: string): string {
  const readme = readFileSync('README.md', 'utf8');
  const match = new RegExp(`<!-- example: ${name} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``).exec(readme);
  if (!match) throw new Error(`README.md has no "${name}" example`);
  return match[1];
}

beforeAll(async () => {
  const created = await gateway.post('/v1/virtual-keys', { name: 'readme', provider: 'openai', credential: 'sk-readme-provider', custom_host: upstream.url });
  expect(created.status).toBe(201);
  const virtualKey = ((await created.json()) as { id: string }).id;
  env = { ...process.env, GW_API_KEY: gateway.apiKey, GW_VIRTUAL_KEY: virtualKey, GW_BASE_URL: gateway.url } as Record<string, string>;
});

describe('README "Use from your code" examples, run verbatim', () => {
  it('TypeScript', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-readme-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    // The one change: the published package name points at the SDK's source in this repo.
    const code = readmeExample('typescript').replace("'@gw-gateway/sdk'", JSON.stringify(resolve('sdk/js/src/index.ts')));
    writeFileSync(join(dir, 'example.mts'), code);
    const { stdout } = await run(process.execPath, [resolve('node_modules/tsx/dist/cli.mjs'), join(dir, 'example.mts')], { env });
    expect(stdout.trim()).toBe('Hello from the mock provider!');
    const sent = upstream.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk-readme-provider');
    expect(JSON.parse(sent.body).user).toBe('alice');
  }, 60_000);

  it('Python', async () => {
    const { stdout } = await run('python3', ['-c', readmeExample('python')], { env: { ...env, PYTHONPATH: resolve('sdk/python') } });
    expect(stdout.trim()).toBe('Hello from the mock provider!');
    expect(JSON.parse(upstream.requests.at(-1)!.body).user).toBe('alice');
  });

  it('curl', async () => {
    const { stdout } = await run('bash', ['-c', readmeExample('curl')], { env });
    const body = JSON.parse(stdout) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0].message.content).toBe('Hello from the mock provider!');
    expect(JSON.parse(upstream.requests.at(-1)!.body).user).toBe('alice');
  });
});
