import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FrameNames, type CpuProfile } from './summarize.js';

/**
 * gw's busy time by stage of the request (issue #48's anatomy): each sample goes to the stage of the nearest frame
 * on its stack that says what the work is for (a socket write called from the edge is the edge's; a hash called
 * from the AWS SDK is a store call's), start-up left out. Works on the main thread's profile and on the DuckDB
 * log worker's (`--cpu-prof` writes one file per thread). Wall-clock samples: synchronous system calls look bigger
 * than the CPU they cost; thread-cpu.ts has the kernel's count per thread.
 * `npx tsx bench/profile/stages.ts <file.cpuprofile>`
 */

type Rule = [stage: string, test: (name: string, origin: string) => boolean];

const ends = (name: string, ...files: string[]) => files.some((file) => name.includes(`/${file}:`) || name.includes(` ${file}:`));

const RULES: Rule[] = [
  // Module loading and top-level module code (line 1): the process starting, or a module loaded on first use.
  ['start-up', (name) => /^(compileSourceTextModule|wrapSafe|compileForInternalLoader|dlopen|openDuckDb|startLocalServer|start) /.test(name) || /^\(anonymous\) .*:1$|^__exportStar /.test(name)],
  ['request log: DuckDB appends and commits (worker)', (name, origin) => origin.startsWith('@duckdb') || ends(name, 'transactional-writer.ts')],
  ['request log: journal read and JSON parse (worker)', (name) => ends(name, 'journal.ts') && name.startsWith('readJournal') || name.startsWith('readTail')],
  ['request log: row building (worker)', (name) => ends(name, 'batch-columns.ts', 'columns.ts')],
  ['request log: journal file calls (the writes on the main thread)', (name) => ends(name, 'journal.ts', 'journal-sink.ts')],
  ['request log: record, redaction, bodies (main)', (name) => ends(name, 'request-record.ts', 'request-log.ts', 'redact.ts', 'log-bodies.ts', 'log-record.ts', 'serialised-body.ts', 'answer-marker.ts', 'body-capture.ts')],
  ['log lines and metrics', (name, origin) => ends(name, 'request-line.ts', 'metrics.ts', 'logger.ts') || origin.startsWith('@aws-lambda-powertools')],
  ['store calls through the AWS SDK', (name, origin) => /^@(smithy|aws-sdk|aws-crypto)\//.test(origin) || ends(name, 'aws-operation-recorder.ts')],
  ['enforcement: admission, leases, settlement', (name) => name.includes('/enforcement/')],
  ['pricing', (name, origin) => name.includes('/pricing/') || origin.startsWith('@pydantic/genai-prices')],
  ['upstream call: gw pool and Node HTTP client', (name, origin) => ends(name, 'http-pool.ts', 'upstream-client.ts', 'attempt-upstream.ts') || ['node:_http_client', 'node:_http_agent'].includes(origin)],
  ['edge: node:http server, body read, answer write', (name, origin) => ends(name, 'node-edge.ts', 'write-body.ts', 'ready-gate.ts') || ['node:_http_server', 'node:_http_incoming'].includes(origin)],
  ['cache lookup', (name) => name.includes('/cache/')],
  ['gw pipeline: auth, context, routing, config, attempt', (_name, origin) => /^(shared|infra|functions)\//.test(origin)],
];

export function stagesOf(file: string): { busyMs: number; startUpMs: number; stages: Array<[string, number]> } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const names = new FrameNames();
  const stageOfNode = new Map<number, string>();
  const stageOf = (id: number): string => {
    const known = stageOfNode.get(id);
    if (known) return known;
    let stage = 'Node internals with no gw caller (microtasks, timers, sockets)';
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const frame = names.resolve(nodes.get(at)!.callFrame);
      const rule = RULES.find(([, test]) => test(frame.name, frame.origin));
      if (rule) {
        stage = rule[0];
        break;
      }
    }
    stageOfNode.set(id, stage);
    return stage;
  };
  const totals = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const micros = profile.timeDeltas[i] ?? 0;
    const node = nodes.get(profile.samples[i]);
    if (!node || micros <= 0 || node.callFrame.functionName === '(idle)') continue;
    const fn = node.callFrame.functionName;
    const stage = fn === '(garbage collector)' ? 'garbage collector' : fn === '(program)' ? '(program): native work V8 cannot attribute' : stageOf(node.id);
    totals.set(stage, (totals.get(stage) ?? 0) + micros);
  }
  const startUpMs = (totals.get('start-up') ?? 0) / 1000;
  totals.delete('start-up');
  const busy = [...totals.values()].reduce((sum, micros) => sum + micros, 0);
  return { busyMs: busy / 1000, startUpMs, stages: [...totals].sort((a, b) => b[1] - a[1]).map(([stage, micros]) => [stage, micros / busy]) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const file of process.argv.slice(2)) {
    const { busyMs, startUpMs, stages } = stagesOf(file);
    console.log(`${file}: ${Math.round(busyMs)} ms busy after start-up (${Math.round(startUpMs)} ms of start-up left out)`);
    for (const [stage, share] of stages) console.log(`${(100 * share).toFixed(1).padStart(6)} %  ${stage}`);
  }
}
