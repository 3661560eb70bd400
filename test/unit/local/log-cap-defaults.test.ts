import { describe, expect, it } from 'vitest';
import { defaultLogCap, writesPerCapCheck } from '../../../infra/local/reliability.js';

describe('the local request-log cap when GW_LOCAL_LOG_MAX_RECORDS is unset', () => {
  it('keeps fewer records in memory than on disk', () => {
    expect(defaultLogCap(':memory:')).toBe(5_000);
    expect(defaultLogCap('.data')).toBe(20_000);
    expect(defaultLogCap('/var/lib/gw')).toBe(20_000);
  });

  it('checks the cap every tenth of it in write calls, never more often than every 100 nor less than every 2,000', () => {
    expect(writesPerCapCheck(5_000)).toBe(500);
    expect(writesPerCapCheck(20_000)).toBe(2_000);
    expect(writesPerCapCheck(1_000_000)).toBe(2_000);
    expect(writesPerCapCheck(3)).toBe(100);
  });
});
