import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { logger } from '../../observability/logger.js';
import { settings } from '../../settings.js';
import { dynamoDocumentClient } from '../../store/dynamo-client.js';
import { MAIN_TABLE, tableName } from '../../store/table-definitions.js';
import type { Charge, EnforcementDependencies } from './types.js';
import type { WorkspaceBudget } from '../../store/workspace-budget-repository.js';
import { merged } from '../../merged.js';
import { budgetExhausted, chargeWorkspaceBudget, type BudgetChargeNote } from './workspace-budget.js';

export type { Charge } from './types.js';

/** gsi2 partitions of the main table: charges that failed and wait for a replay, reservations in flight. */
const PENDING_PARTITION = 'CHARGES#PENDING';
const RESERVED_PARTITION = 'CHARGES#RESERVED';
const JOURNAL_FILE = 'charge-journal.jsonl';
const REPLAY_PAGE = 100;

/** Applies charges; returns those that failed (each charge is a single-item atomic write). */
export async function applyCharges(charges: readonly Charge[], deps: EnforcementDependencies): Promise<Charge[]> {
  const results = await Promise.allSettled(charges.map((charge) => applyCharge(charge, deps)));
  const failed: Charge[] = [];
  results.forEach((result, index) => {
    if (result.status === 'rejected') {
      failed.push(charges[index]);
      logger.warn('a charge failed; it is journaled for a replay', { error: result.reason as Error });
    }
  });
  return failed;
}

async function applyCharge(charge: Charge, deps: EnforcementDependencies): Promise<void> {
  if (charge.kind === 'counter') {
    await deps.counters.add(charge.key, charge.amount);
    return;
  }
  const now = deps.now();
  let exhausted: WorkspaceBudget | undefined;
  const noted = (note: BudgetChargeNote) => {
    const budget = deps.snapshots.noteBudgetCharge(note);
    if (budget && budget.status !== 'exhausted' && budgetExhausted(budget, now)) exhausted = budget;
  };
  await chargeWorkspaceBudget(deps.budgets, charge.workspaceId, charge.amount, new Date(now), noted, charge.period);
  // The status is for people and the restorer's queue (admission decides by the numbers): set on a fresh read.
  if (exhausted && (await deps.budgets.markExhausted(charge.workspaceId))) deps.snapshots.updateBudget(merged(exhausted, { status: 'exhausted' as const }));
}

/**
 * Keeps charges that could not be written so a later replay applies them: locally (GW_CHARGE_JOURNAL_DIR set)
 * as a line appended to a file journal under the data directory, which survives the store being down; on AWS
 * as a pending-charge item in the main table, replayed by the restore-budgets scheduled function.
 */
export async function journalCharges(charges: readonly Charge[]): Promise<void> {
  if (charges.length === 0) return;
  const directory = settings().GW_CHARGE_JOURNAL_DIR;
  if (directory) {
    mkdirSync(directory, { recursive: true });
    appendFileSync(join(directory, JOURNAL_FILE), `${JSON.stringify(serialise(charges))}\n`);
    return;
  }
  const id = randomUUID();
  try {
    await putRecord(PENDING_PARTITION, id, new Date().toISOString(), charges);
  } catch (error) {
    // The last resort: the amounts are in the log, so an operator can still apply them by hand.
    logger.error('a failed charge could not be journaled either', { error: error as Error, charges: serialise(charges) });
  }
}

/**
 * The give-back of a request's reservations, stored at admission and deleted when the request settles. A
 * request whose process died never settles: once `expiresAt` passes, the replay gives its reservations back.
 */
export async function recordReservation(requestId: string, expiresAt: number, giveBack: readonly Charge[]): Promise<void> {
  await putRecord(RESERVED_PARTITION, requestId, new Date(expiresAt).toISOString(), giveBack);
}

export async function forgetReservation(requestId: string): Promise<void> {
  await dynamoDocumentClient().send(new DeleteCommand({ TableName: mainTable(), Key: recordKey(RESERVED_PARTITION, requestId) }));
}

export interface ReplayResult {
  journaled: number;
  pending: number;
  expiredReservations: number;
}

/**
 * Applies what is waiting: the local file journal, pending-charge items, and the reservations of requests
 * that expired without settling. Each record is claimed by deleting it first (of two replays, one gets it);
 * charges that fail again are journaled again. Run on start and periodically (restore-budgets).
 */
export async function replayCharges(now: Date, deps: EnforcementDependencies): Promise<ReplayResult> {
  const journaled = await replayFileJournal(deps);
  const pending = await replayPartition(PENDING_PARTITION, `${now.toISOString()}#~`, deps);
  const expiredReservations = await replayPartition(RESERVED_PARTITION, `${now.toISOString()}#~`, deps);
  return { journaled, pending, expiredReservations };
}

async function replayFileJournal(deps: EnforcementDependencies): Promise<number> {
  const directory = settings().GW_CHARGE_JOURNAL_DIR;
  const file = directory ? join(directory, JOURNAL_FILE) : undefined;
  if (!file || !existsSync(file)) return 0;
  // Take the file over first, so lines appended while the replay runs go to a new journal.
  const claimed = `${file}.${process.pid}.replaying`;
  renameSync(file, claimed);
  let applied = 0;
  for (const line of readFileSync(claimed, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let charges: Charge[];
    try {
      charges = deserialise(JSON.parse(line) as SerialisedCharge[]);
    } catch {
      logger.error('skipped an unreadable line of the charge journal', { line });
      continue;
    }
    const failed = await applyCharges(charges, deps);
    applied += charges.length - failed.length;
    await journalCharges(failed);
  }
  writeFileSync(claimed, '');
  renameSync(claimed, `${file}.replayed`);
  return applied;
}

async function replayPartition(partition: string, before: string, deps: EnforcementDependencies): Promise<number> {
  const client = dynamoDocumentClient();
  const page = await client.send(
    new QueryCommand({
      TableName: mainTable(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :partition AND gsi2sk <= :before',
      ExpressionAttributeValues: { ':partition': partition, ':before': before },
      Limit: REPLAY_PAGE,
    }),
  );
  let applied = 0;
  for (const item of page.Items ?? []) {
    const claimed = await client
      .send(new DeleteCommand({ TableName: mainTable(), Key: { pk: item.pk, sk: item.sk }, ConditionExpression: 'attribute_exists(pk)', ReturnValues: 'ALL_OLD' }))
      .then((result) => result.Attributes)
      .catch(() => undefined);
    if (!claimed) continue;
    const charges = deserialise(claimed.charges as SerialisedCharge[]);
    const failed = await applyCharges(charges, deps);
    applied += charges.length - failed.length;
    await journalCharges(failed);
  }
  return applied;
}

type SerialisedCharge = { kind: 'counter'; pk: string; window_end: number | null; amount: number } | { kind: 'budget'; workspace_id: string; amount: number; epoch?: string; gated?: boolean };

function serialise(charges: readonly Charge[]): SerialisedCharge[] {
  return charges.map((charge) =>
    charge.kind === 'counter'
      ? { kind: 'counter', pk: charge.key.pk, window_end: Number.isFinite(charge.key.windowEnd) ? charge.key.windowEnd : null, amount: charge.amount }
      : { kind: 'budget', workspace_id: charge.workspaceId, amount: charge.amount, ...(charge.period ? { epoch: charge.period.epoch, gated: charge.period.gated } : {}) },
  );
}

function deserialise(charges: readonly SerialisedCharge[]): Charge[] {
  return charges.map((charge) =>
    charge.kind === 'counter'
      ? { kind: 'counter', key: { pk: charge.pk, windowEnd: charge.window_end ?? Number.POSITIVE_INFINITY }, amount: Number(charge.amount) }
      : // A record written before budget counters had periods charges the current period.
        { kind: 'budget', workspaceId: charge.workspace_id, amount: Number(charge.amount), ...(charge.epoch === undefined ? {} : { period: { epoch: charge.epoch, gated: charge.gated === true } }) },
  );
}

function recordKey(partition: string, id: string): { pk: string; sk: string } {
  return { pk: `${partition}#${id}`, sk: 'CHARGES' };
}

async function putRecord(partition: string, id: string, dueAt: string, charges: readonly Charge[]): Promise<void> {
  await dynamoDocumentClient().send(
    new PutCommand({
      TableName: mainTable(),
      Item: { gsi2pk: partition, gsi2sk: `${dueAt}#${id}`, charges: serialise(charges), created_at: new Date().toISOString(), ...recordKey(partition, id) },
    }),
  );
}

function mainTable(): string {
  return tableName(settings(), MAIN_TABLE);
}
