import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * scripts/check-grants.ts on recordings written by hand, as the AWS-shaped suite's Lambda sandboxes now write
 * them (test/aws-shaped/support/deployed-stack.ts passes them the run's recording folder; before, the suite alone
 * left 0 operations to check, issue #43): a call no statement of the function allows fails the script, naming it.
 * Class: a missing grant that the grant check cannot see.
 */
const run = promisify(execFile);
const directories: string[] = [];

afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** A recordings folder of a partial run (as after the AWS-shaped suite alone) holding these operations. */
function recordings(operations: Array<Record<string, string>>): string {
  const directory = mkdtempSync(join(tmpdir(), 'gw-check-grants-'));
  directories.push(directory);
  writeFileSync(join(directory, 'run.json'), JSON.stringify({ reason: 'passed', filesRun: 1, filesTotal: 300, complete: false }));
  writeFileSync(join(directory, '4242.jsonl'), operations.map((operation) => JSON.stringify(operation)).join('\n') + '\n');
  return directory;
}

async function checkGrants(directory: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'scripts/check-grants.ts'], { env: { ...process.env, GW_RECORD_AWS_OPERATIONS_DIR: directory }, timeout: 240_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe('scripts/check-grants.ts on a partial run’s recordings', () => {
  it('fails on a deliberately ungranted call, naming the function, action and resource, and passes without it', async () => {
    const granted = { fn: 'gateway', service: 'dynamodb', action: 'GetItem', resource: 'table/main' };
    const ungranted = { fn: 'gateway', service: 'firehose', action: 'DescribeDeliveryStream', resource: 'deliverystream/gw-requests' };
    const failing = await checkGrants(recordings([granted, ungranted]));
    expect(failing.code, failing.output).toBe(1);
    expect(failing.output).toContain('firehose:DescribeDeliveryStream');
    expect(failing.output).toContain('2 distinct operations recorded by function');

    const passing = await checkGrants(recordings([granted]));
    expect(passing.code, passing.output).toBe(0);
    expect(passing.output).toContain('every recorded operation is granted');
  }, 300_000);
});
