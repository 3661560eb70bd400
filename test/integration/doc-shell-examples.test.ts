import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../support/gateway.js';
import { useGatewayWithUpstream } from '../support/harness.js';
import { anthropicMockHandler } from '../support/mock-anthropic.js';
import { openAIDialectsMockHandler } from '../support/mock-openai-dialects.js';
import type { MockUpstream, RecordedRequest } from '../support/mock-upstream.js';
import { shellExamples, type ShellExample } from '../support/shell-examples.js';

// Every fenced shell block of README.md and docs/ that talks to gw runs here, in bash with the real curl and jq,
// as a reader pastes them one after another down a page (variables one block sets are there for the next). What a
// reader would change is all that changes: gw's address (the test gateway's port), the placeholder keys (`gwk_…`
// becomes the admin key npm start printed), and the provider, which is a mock (x-gw-custom-host on each call).
// Every call must answer 2xx. A block that cannot run here carries `<!-- not-run: why -->` right before its fence
// (a real provider's wire format, an AWS account, a program such as `claude`), and the test checks it says why.

let gateway: TestGateway;
let upstream: MockUpstream;
const anthropic = anthropicMockHandler();
const openai = openAIDialectsMockHandler();
useGatewayWithUpstream((request: RecordedRequest) => (request.path.endsWith('/messages') || request.path.endsWith('/count_tokens') ? anthropic(request) : openai(request)), (started) => ({ gateway, upstream } = started));

/** Runs before each page: curl as a reader would call it, pointed at the test gateway and the mock provider. */
const PRELUDE = readFileSync('test/support/shell-example-prelude.sh', 'utf8');

/** README's client examples use a virtual key the reader made (README: "Use from your code"); here it calls the mock. */
let readerVirtualKey = '';
beforeAll(async () => {
  const created = await gateway.post('/v1/virtual-keys', { name: 'reader', provider: 'openai', credential: 'sk-reader-provider', custom_host: upstream.url });
  expect(created.status).toBe(201);
  readerVirtualKey = ((await created.json()) as { id: string }).id;
});

async function runPage(examples: ShellExample[]): Promise<void> {
  const script = [PRELUDE, ...examples.map((example) => `echo "::block ${example.where}::" >&2\n${example.script}\n`)].join('\n');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    GW_TEST_URL: gateway.url,
    GW_TEST_KEY: gateway.apiKey,
    GW_TEST_MOCK: upstream.url,
    GW_API_KEY: gateway.apiKey,
    GW_VIRTUAL_KEY: readerVirtualKey,
    OPENAI_API_KEY: 'sk-doc-openai',
    ANTHROPIC_API_KEY: 'sk-ant-doc',
    GROQ_API_KEY: 'gsk-doc',
    TOGETHER_API_KEY: 'tg-doc',
    AZURE_OPENAI_KEY: 'azure-doc-key',
  };
  // In a folder of its own (removed after): examples write files (`> body.json`) as a reader's would in theirs.
  const cwd = mkdtempSync(join(tmpdir(), 'gw-doc-example-'));
  try {
    // Examples read the repository's files by relative path (docs/examples/…), as from a clone.
    symlinkSync(join(process.cwd(), 'docs'), join(cwd, 'docs'));
    await promisify(execFile)('bash', ['-c', script], { env, cwd, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stderr = '', stdout = '' } = error as { stderr?: string; stdout?: string };
    const block = [...stderr.matchAll(/::block (\S+)::/g)].at(-1)?.[1] ?? '?';
    throw new Error(`the example at ${block} failed:\n${stderr.split(`::block ${block}::`).at(-1)}\n${stdout.slice(-2000)}`, { cause: error });
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

const examples = shellExamples();
const pages = [...new Set(examples.map((example) => example.where.split(':')[0]))];

describe('README and docs shell examples', () => {
  it('finds the examples, and every one that is not run says why', () => {
    expect(examples.length).toBeGreaterThan(40);
    for (const example of examples.filter((candidate) => candidate.notRun !== undefined)) {
      expect(example.notRun, example.where).toMatch(/^(needs a real provider|needs AWS|needs a program)\b.{10,}/);
    }
  });

  it.each(pages)('%s runs as written', async (page) => {
    const runnable = examples.filter((example) => example.where.startsWith(`${page}:`) && example.notRun === undefined);
    if (runnable.length > 0) await runPage(runnable);
  }, 120_000);
});
