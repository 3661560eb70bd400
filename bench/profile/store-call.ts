/**
 * What one store call costs the caller's process (issue #34): `npx tsx bench/profile/store-call.ts [calls]`, and
 * on Node 24 as Lambda runs it: `<node 24> --import tsx bench/profile/store-call.ts [calls]` (the bench caches one
 * under node_modules/.cache/gw-bench/). Findings: bench/results/issue-34/store-call.md.
 *
 * Starts the embedded store as the local runtime does (dynalite in a child process, in memory), so its CPU stays
 * out of this process, and makes the calls the hot path makes through gw's own repositories and its one store
 * client (shared/store/dynamo-client.ts: the real AWS SDK v3 over HTTP, SigV4 and all):
 * - `counter`: a rate-limit policy's admission, `CounterRepository.incrementBelow` (a conditional `UpdateItem ADD`);
 * - `cache-hit`: the response cache's exact lookup, `ResponseCacheStore.get` of a stored entry (a `GetItem`).
 * Each shape runs N calls one after another and N calls 16 at a time, and reports this process's CPU per call
 * (`process.cpuUsage`, user + system, every thread), median of ROUNDS (env, default 9) rounds.
 *
 * `--ab <variant>,…`: store-client variants in the same run, run by run in an order rotated every round (the
 * machine is shared and noisy: compare within a run). `gw` is the client gw builds; `before` is it without issue
 * #34's cuts; the others change one thing each (see VARIANTS). `--canned`: answered from memory instead of the
 * store (see cannedResponses), for the SDK's own work without the socket's noise. `--cpu-prof` (a node flag, before
 * the script) writes a profile of the run: `npx tsx bench/profile/summarize.ts <file> [top] [from-µs]`, with the
 * µs the line `measuring from` prints, leaves the start-up out.
 */
import { Sha256 } from '@smithy/core/checksum';
import { HttpResponse } from '@smithy/core/protocols';
import { settings } from '../../shared/settings.js';

const CALLS = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 2_000);
const ROUNDS = Number(process.env.ROUNDS ?? 9);
const CONCURRENCY = 16;
const AB = argumentOf('--ab')?.split(',') ?? ['gw'];
const CANNED = process.argv.includes('--canned');

Object.assign(process.env, {
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_REGION: 'us-east-1',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  POWERTOOLS_DEV: 'false',
  GW_LOCAL_STORE: 'child',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});

function argumentOf(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

type Call = (i: number) => Promise<unknown>;

/** N calls, `concurrency` at a time (1: one after another); the CPU this process used per call, in µs. */
async function cpuPerCall(call: Call, calls: number, concurrency: number): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < calls) await call(next++);
  };
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / calls;
}

type StoreClient = ReturnType<typeof import('../../shared/store/dynamo-client.js').createStoreClient>;
type ClientFactory = typeof import('../../shared/store/dynamo-client.js').createStoreClient;

/** gw's store client with one change each: what an A/B run compares with `gw`. */
const VARIANTS: Record<string, (create: ClientFactory) => StoreClient> = {
  // A second client built the same way: the noise floor of an A/B.
  same: (create) => create(),
  standard: (create) => create({ retryMode: 'standard' }),
  // The SDK's own SHA-256 (an HMAC key from raw bytes every time) instead of KeyedSha256.
  'sdk-sha256': (create) => create({ sha256: Sha256 }),
  // Both cuts of issue #34 left out: the client as it was before them.
  before: (create) => create({ sha256: Sha256 }, { fastConfig: false }),
  // The client's config left in V8's dictionary mode, as the SDK builds it: what withFastProperties saves.
  'dictionary-config': (create) => create({}, { fastConfig: false }),
  // No user-agent header at all: the most the user-agent middleware could save.
  'no-ua': (create) => {
    const client = create();
    client.middlewareStack.remove('getUserAgentMiddleware');
    return client;
  },
  // The default user agent's sections resolved once, not per call.
  'ua-memo': (create) => {
    const client = create();
    const config = client.config as unknown as { defaultUserAgentProvider: () => Promise<unknown> };
    const resolve = config.defaultUserAgentProvider;
    let sections: Promise<unknown> | undefined;
    config.defaultUserAgentProvider = () => (sections ??= resolve());
    return client;
  },
};

function variant(name: string, create: ClientFactory): StoreClient {
  const build = VARIANTS[name];
  if (!build) throw new Error(`unknown variant ${name}: one of gw, ${Object.keys(VARIANTS).join(', ')}`);
  return build(create);
}

/**
 * `--canned`: the client's HTTP handler answers each operation with the bytes the store answered its first call,
 * from memory: what is left is the SDK's and gw's own work per call, without the socket, the kernel and the
 * store's wake-up, whose noise on a shared machine hides differences of a few µs.
 */
function cannedResponses(client: StoreClient): StoreClient {
  type Handler = { handle(request: { headers: Record<string, string> }, options?: unknown): Promise<{ response: HttpResponse }> };
  const config = client.config as unknown as { requestHandler: Handler };
  const real = config.requestHandler;
  const answers = new Map<string, { statusCode: number; headers: Record<string, string>; body: Uint8Array }>();
  const canned: Handler = Object.create(real as object) as Handler;
  canned.handle = async (request, options) => {
    const target = request.headers['x-amz-target'];
    let answer = answers.get(target);
    if (!answer) {
      const { response } = await real.handle(request, options);
      const chunks: Buffer[] = [];
      for await (const chunk of response.body as AsyncIterable<Buffer>) chunks.push(chunk);
      answer = { statusCode: response.statusCode, headers: response.headers, body: Buffer.concat(chunks) };
      answers.set(target, answer);
    }
    return { response: new HttpResponse({ statusCode: answer.statusCode, headers: { ...answer.headers }, body: answer.body.slice() }) };
  };
  config.requestHandler = canned;
  return client;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const { startEmbeddedStore, ensureTables } = await import('../../infra/local/embedded-store.js');
  const store = await startEmbeddedStore(':memory:');
  process.env.GW_DYNAMODB_ENDPOINT = store.endpoint;
  const current = settings();
  const { TABLES, tableName } = await import('../../shared/store/table-definitions.js');
  await ensureTables(store.endpoint, current.AWS_REGION, TABLES.map((definition) => ({ definition, name: tableName(current, definition) })));
  const { CounterRepository, counterKey } = await import('../../shared/store/counter-repository.js');
  const { ResponseCacheStore } = await import('../../shared/gateway/cache/cache-store.js');
  const { createStoreClient, dynamoDocumentClient } = await import('../../shared/store/dynamo-client.js');

  const workspace = '6ccac8c9-d363-4324-9aac-e0d11afc6858';
  const cacheKey = 'b'.repeat(64);
  const windowEnd = Date.now() + 3_600_000;
  const clients = new Map(AB.map((name) => [name, name === 'gw' ? dynamoDocumentClient() : variant(name, createStoreClient)]));
  if (CANNED) for (const client of clients.values()) cannedResponses(client);
  // Each variant gets its own repositories, whose store client is swapped for the variant's (a private field).
  const shapes = AB.map((variant) => {
    const counters = new CounterRepository();
    const cache = new ResponseCacheStore();
    for (const repository of [counters, cache] as object[]) {
      // A renamed field would leave every variant on gw's own client and make the A/B compare nothing.
      if (!('client' in repository)) throw new Error(`${repository.constructor.name} has no \`client\` field to swap: update store-call.ts`);
      Object.assign(repository, { client: clients.get(variant) });
    }
    const calls: Record<string, Call> = {
      // 64 groups, as a policy grouped by a key sees a handful of callers; the limit is never reached.
      counter: (i) => counters.incrementBelow({ pk: counterKey('policy-bench', 'rate', `group-${i % 64}`, 'w1'), windowEnd }, 1, 1e12),
      'cache-hit': async (i) => {
        const body = await cache.get(workspace, cacheKey);
        if (body === undefined) throw new Error(`cache miss on call ${i}: the entry should be there`);
      },
    };
    return { variant, calls, cache };
  });
  const body = JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there, friend!' }, finish_reason: 'stop' }], usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 } });
  await shapes[0].cache.put(workspace, cacheKey, body, 3_600);

  const say = (text: string) => process.stderr.write(`${text}\n`);
  // Warm-up: sockets, JIT, the SDK's lazily resolved config.
  for (const { calls } of shapes) for (const call of Object.values(calls)) await cpuPerCall(call, Math.min(CALLS, 500), CONCURRENCY);
  say(`measuring from ${process.hrtime.bigint() / 1000n} (µs: the from-µs argument of summarize.ts, to leave start-up out)`);
  const results = new Map<string, number[]>();
  // Variants alternate run by run for each shape, in an order rotated every round, so a change of the machine's
  // load hits them alike.
  for (let round = 0; round < ROUNDS; round++) {
    for (const shape of Object.keys(shapes[0].calls)) {
      for (const concurrency of [1, CONCURRENCY]) {
        for (let k = 0; k < shapes.length; k++) {
          const { variant, calls } = shapes[(round + k) % shapes.length];
          const name = `${shape} ×${concurrency} ${variant}`;
          results.set(name, [...(results.get(name) ?? []), await cpuPerCall(calls[shape], CALLS, concurrency)]);
        }
      }
    }
  }
  await store.close();
  say(`store calls${CANNED ? ' (--canned: answered from memory, no HTTP)' : ''}, ${CALLS} per run, ${ROUNDS} rounds, Node ${process.version}: process CPU per call (µs), median (rounds)`);
  for (const [name, values] of [...results].sort(([a], [b]) => a.localeCompare(b))) {
    say(`${name.padEnd(32)} ${median(values).toFixed(0).padStart(5)}  (${values.map((value) => value.toFixed(0)).join(', ')})`);
  }
}

void main();
