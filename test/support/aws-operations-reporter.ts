import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Reporter, TestModule, TestRunEndReason, TestSpecification, Vitest } from 'vitest/node';

/**
 * Frames the test run's AWS-operation record (shared/store/recording/): clears the folder when a run starts and
 * writes `run.json` when it ends, saying whether every test file ran. scripts/check-grants.ts (run by `npm test`
 * after vitest) checks "every recorded operation is granted" after any run, and "every grant was used" only after
 * a complete, passing one, since a subset of the tests cannot show a grant is unused.
 */
export const AWS_OPERATIONS_DIR = '.test-results/aws-ops';

export interface RunSummary {
  reason: TestRunEndReason | 'running';
  filesRun: number;
  filesTotal: number;
  complete: boolean;
}

export default class AwsOperationsReporter implements Reporter {
  private vitest: Vitest | undefined;
  private filesTotal = 0;
  private readonly directory = resolve(process.env.GW_RECORD_AWS_OPERATIONS_DIR ?? AWS_OPERATIONS_DIR);

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  async onTestRunStart(specifications: ReadonlyArray<TestSpecification>): Promise<void> {
    this.filesTotal = (await this.vitest?.globTestSpecifications())?.length ?? specifications.length;
    rmSync(this.directory, { recursive: true, force: true });
    mkdirSync(this.directory, { recursive: true });
    this.write({ reason: 'running', filesRun: specifications.length, filesTotal: this.filesTotal, complete: false });
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, _errors: unknown, reason: TestRunEndReason): void {
    const filesRun = testModules.length;
    this.write({ reason, filesRun, filesTotal: this.filesTotal, complete: reason === 'passed' && filesRun >= this.filesTotal });
  }

  private write(summary: RunSummary): void {
    mkdirSync(this.directory, { recursive: true });
    writeFileSync(join(this.directory, 'run.json'), `${JSON.stringify(summary, null, 2)}\n`);
  }
}
