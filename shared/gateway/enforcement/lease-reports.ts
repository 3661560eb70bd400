import { logger } from '../../observability/logger.js';
import { subtractUsd } from '../../observability/pricing/usd.js';
import type { LeaseOp } from '../../store/lease-records.js';
import { plus, recordLater, type RecordWork } from './charge-buffer.js';
import type { AmountLease, Charge } from './types.js';

/**
 * What a lease holder writes to its record on the counter item (issue #48; shared/store/lease-records.ts), run by
 * the charge buffer's flush: while it holds the lease, a report of what it used since the last one
 * (`ADD lh :-used`; used = the record's amount less what is free in memory, reservations in flight counted as
 * used until they settle, negative when an over-reserving estimate settled back); once given back, the give-back
 * (`ADD count :-unused REMOVE lh, le`). At most one report per counter per flush, in the same write as the
 * counter's charge where it can carry it, so a crash loses at most what was used since the last flush.
 *
 * When the record is gone, another process reclaimed it (lease-reclaim.ts): it gave back the record's amount as
 * this holder last wrote it, which includes what the holder used since its last report. The holder charges that
 * part back (record − unused) as a plain charge, gives nothing back twice and drops the lease.
 */

const works = new WeakMap<AmountLease, RecordWork>();

/** Has the next flush write the lease's record: its report while held, its give-back once returned. */
export function writeRecordLater(lease: AmountLease, urgent = false): void {
  if (lease.closed) return;
  // Most reservations come from a lease whose record write is already due: the write reads the lease when it
  // runs, so it covers them too, and asking again would only cost an entry lookup per request.
  if (lease.recordDue && !urgent) return;
  lease.recordDue = true;
  let work = works.get(lease);
  if (!work) {
    work = { run: (charge) => writeRecord(lease, charge) };
    works.set(lease, work);
  }
  recordLater(lease.account.charge(0), lease.account.deps, work, urgent);
}

async function writeRecord(lease: AmountLease, charge: Charge | undefined): Promise<Charge | undefined> {
  // Cleared before the lease is read: a reservation from here on asks for a write of its own.
  lease.recordDue = false;
  // A renewal on its way adds to the record and to what is free: a give-back must count it.
  if (lease.renewing) await lease.renewing.catch(() => undefined);
  if (lease.closed) return charge;
  const { account } = lease;
  let op: LeaseOp;
  if (lease.returned) {
    op = { kind: 'give-back', id: lease.record, unused: lease.unused ?? 0 };
  } else {
    const used = subtractUsd(lease.held, lease.available);
    if (used === 0) return charge;
    op = { kind: 'report', id: lease.record, used };
  }
  const carried = account.records.merges ? (charge?.amount ?? 0) : 0;
  let written: boolean;
  try {
    written = await account.records.write(op, carried);
  } catch (error) {
    // The record keeps what it held: the next flush tries again (and a dead holder's record is reclaimed anyway).
    logger.warn('could not write a lease record; the next flush tries again', { counter: account.records.name, error: error as Error });
    writeRecordLater(lease);
    return charge;
  }
  if (written) {
    if (op.kind === 'report') lease.held = subtractUsd(lease.held, op.used);
    else close(lease);
    return carried === 0 ? charge : undefined;
  }
  // Reclaimed: the reclaimer gave back `held`, part of which this process used. Nothing was written: the
  // counter's charge is still due, plus what was used.
  const unused = op.kind === 'give-back' ? op.unused : lease.available;
  const used = subtractUsd(lease.held, unused);
  close(lease);
  logger.warn('a lease of this process was reclaimed by another process (it was held past its expiry); what it used is charged back', { counter: account.records.name, lease: lease.record, charged: used });
  return used === 0 ? charge : plus(charge, account.charge(used));
}

/** The record is gone: the lease is over, its free part no longer this process's. */
function close(lease: AmountLease): void {
  lease.closed = true;
  lease.returned = true;
  lease.held = 0;
  lease.available = 0;
  lease.unused = 0;
}
