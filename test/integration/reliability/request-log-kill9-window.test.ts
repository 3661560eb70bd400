import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getJson, GW_PROCESS_KEY, useGwProcesses, type GwProcess } from '../../support/gw-process.js';
import { rowsOfStoppedLogFile } from '../../support/request-logs.js';

// Issue #42, kill -9: the record of an answered request was written by the after-path, after the answer, so a
// kill -9 right after answering lost the last answers' records. Now each answer's marker is journaled before its
// last byte leaves gw (a JSON body before it is sent, a stream before its end), and the next start writes a record
// from every marker whose full record never came. The kill here lands while requests are in flight, the moment
// the client holds the Nth whole answer.

const { started, folder, upstream } = useGwProcesses();

/**
 * Sends chats 16 at a time (every other one streamed, bodies over the inline size so the after-path stores them as
 * files) until `count` whole answers are in; kills gw with SIGKILL the moment the last of them is read, with the
 * others in flight. Returns the trace ids of the answers the client holds.
 */
async function answerThenKill(url: string, gw: GwProcess, count: number): Promise<string[]> {
  const answered: string[] = [];
  let next = 0;
  let killed = false;
  const content = 'x'.repeat(20_000);
  const worker = async () => {
    while (!killed) {
      const index = next++;
      const traceId = `answered-${index}`;
      const stream = index % 2 === 1;
      try {
        const response = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-gw-api-key': GW_PROCESS_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream().url, authorization: 'Bearer sk-x', 'x-gw-trace-id': traceId },
          body: JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content }] }),
        });
        const text = await response.text();
        if (killed) return;
        expect(response.status).toBe(200);
        if (stream) expect(text).toContain('data: [DONE]');
        answered.push(traceId);
        if (answered.length >= count) {
          killed = true;
          gw.kill('SIGKILL');
        }
      } catch (error) {
        // A request in flight when the kill landed: no answer, nothing owed.
        if (!killed) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return answered;
}

async function recordsInFile(path: string, prefix: string): Promise<{ traceIds: Set<string>; rows: number }> {
  const rows = await rowsOfStoppedLogFile(path, 'SELECT trace_id FROM requests WHERE starts_with(trace_id, ?)', [prefix]);
  return { traceIds: new Set(rows.map((row) => String(row.trace_id))), rows: rows.length };
}

type DeepHealth = { checks: { log_engine?: { status: string; last_run?: { replayed: number; lost: number; unrecorded: number } } } };

describe('request logs and a kill -9 right after answering', () => {
  it('every answer the client holds has its record after the restart, each once (answered requests lost to a crash before their after-path)', async () => {
    const data = folder('gw-kill9-window-');
    const first = await started({ GW_DATA_DIR: data });
    const answered = await answerThenKill(first.url, first.gw, 300);
    await first.gw.exited;

    const second = await started({ GW_DATA_DIR: data, POWERTOOLS_LOG_LEVEL: 'WARN' });
    const health = await getJson<DeepHealth>(`${second.url}/health?deep=true`);
    expect(health.body.checks.log_engine).toMatchObject({ status: 'ok', last_run: { lost: 0 } });
    const unrecorded = health.body.checks.log_engine!.last_run!.unrecorded;
    // The start-up line says how many records were made from markers, with the number the health reports.
    if (unrecorded > 0) expect(second.gw.output()).toContain(`${unrecorded} record(s) from the last run were not written`);
    second.gw.kill('SIGTERM');
    expect(await second.gw.exited).toBe(0);

    const { traceIds, rows } = await recordsInFile(join(data, 'logs.duckdb'), 'answered-');
    expect(answered.filter((traceId) => !traceIds.has(traceId))).toEqual([]);
    // Exactly once: a marker whose record came is never written as a second row. (Requests cut in flight by the
    // kill may have a record too: gw had released their answer, the client had not read it whole.)
    expect(rows).toBe(traceIds.size);
  }, 180_000);
});
