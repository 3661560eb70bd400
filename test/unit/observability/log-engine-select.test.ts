import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../../shared/settings.js';
import { settingIssues } from '../../support/settings-refusal.js';

// Which engine holds request logs. This file's process asks for the AWS engine, which is not part of this build
// (shared/observability/engine/aws/ comes with the AWS side): it must say so, not fall back silently.
process.env.GW_LOG_ENGINE = 'aws';

describe('the log engine selection', () => {
  it('reads GW_LOG_ENGINE as duckdb or aws, unset meaning the runtime decides', () => {
    expect(parseSettings({}).GW_LOG_ENGINE).toBeUndefined();
    expect(parseSettings({ GW_LOG_ENGINE: 'duckdb' }).GW_LOG_ENGINE).toBe('duckdb');
    expect(settingIssues({ GW_LOG_ENGINE: 'clickhouse' })).toEqual([expect.stringContaining('GW_LOG_ENGINE')]);
  });

  it('opens the AWS engine for GW_LOG_ENGINE=aws: the Firehose sink and the Athena engine, once per process', async () => {
    const { logEngineKind, logEngines } = await import('../../../shared/observability/engine/select.js');
    expect(logEngineKind()).toBe('aws');
    const engines = await logEngines();
    expect(engines.engine.dialect).toBe('trino');
    expect(engines.sink.constructor.name).toBe('FirehoseSink');
    expect(await logEngines()).toBe(engines);
  });
});
