import { InvalidSettingsError } from '../../shared/settings.js';

/**
 * A start-up problem of the local runtime that the user fixes (a busy port, an address that is not this machine's,
 * a data directory another gw holds): `npm start` prints its message, one line that says what to do, and no stack.
 */
export class LocalStartupError extends Error {
  constructor(message: string) {
    super(message.startsWith('gw: ') ? message : `gw: ${message}`);
    this.name = 'LocalStartupError';
  }
}

/** The one line `npm start` prints for an error it expects at start-up; undefined for a real crash (printed in full). */
export function startupErrorLine(error: unknown): string | undefined {
  if (error instanceof LocalStartupError) return error.message;
  if (error instanceof InvalidSettingsError) return `gw: invalid settings: ${error.issues.join('; ')}`;
  return undefined;
}

const UNUSABLE_HOST_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL', 'EAI_NONAME', 'EINVAL']);

/** A listen error caused by HOST itself (no such address, or not one of this machine's), as a startup error. */
export function unusableHostError(error: NodeJS.ErrnoException, host: string): LocalStartupError | undefined {
  if (!error.code || !UNUSABLE_HOST_CODES.has(error.code)) return undefined;
  const why = error.code === 'EADDRNOTAVAIL' ? 'it is not an address of this machine' : 'it is not a valid address or known host name';
  return new LocalStartupError(`cannot listen on HOST=${host}: ${why} (${error.code}). Use 127.0.0.1 (the default), 0.0.0.0 for every interface, or an address of this machine`);
}
