/**
 * USD amounts as gw adds and subtracts them: integers of 1e-10 USD (BigInt), so a sum of many small costs, or a
 * reservation replaced by a real cost, never collects floating-point noise (0.3 − 0.1 is 0.2 here, not
 * 0.19999999999999998). Costs are priced to 1e-10 USD (cost.ts `roundUsd`), so every cost gw makes is exact in
 * these units; the store (DynamoDB numbers are decimals) then adds the short decimal strings exactly too.
 */
const SCALE_DIGITS = 10;
const SCALE = 10n ** BigInt(SCALE_DIGITS);
/** Whole amounts up to this many units are safe integers of USD: a plain number holds them exactly. */
const MAX_WHOLE_UNITS = BigInt(Number.MAX_SAFE_INTEGER) * SCALE;

/** A USD number → integer units of 1e-10 USD, read from its decimal form (rounded half away from zero past 10 digits). */
export function usdToUnits(usd: number): bigint {
  // Whole amounts (request counts and token counts of the limit counters, a zero cost) need no decimal text: the
  // leases and settlement add them on every request.
  if (Number.isSafeInteger(usd)) return BigInt(usd) * SCALE;
  if (!Number.isFinite(usd)) throw new RangeError(`not a finite USD amount: ${usd}`);
  const negative = usd < 0;
  const [whole, fraction = ''] = expandExponent(Math.abs(usd).toString()).split('.');
  const kept = fraction.slice(0, SCALE_DIGITS).padEnd(SCALE_DIGITS, '0');
  let units = BigInt(whole) * SCALE + BigInt(kept);
  if ((fraction[SCALE_DIGITS] ?? '0') >= '5') units += 1n;
  return negative ? -units : units;
}

/** Integer units → the USD number nearest to them (whose shortest decimal form is the exact amount). */
export function unitsToUsd(units: bigint): number {
  if (units % SCALE === 0n && units <= MAX_WHOLE_UNITS && units >= -MAX_WHOLE_UNITS) return Number(units / SCALE);
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  const text = `${magnitude / SCALE}.${(magnitude % SCALE).toString().padStart(SCALE_DIGITS, '0')}`;
  return (negative ? -1 : 1) * Number(text);
}

/** A decimal text (an engine's DECIMAL sum, `-12.3400000000`) → integer units, exactly, whatever its size. */
export function decimalTextToUnits(text: string): bigint {
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!match) throw new RangeError(`not a decimal amount: ${text}`);
  const fraction = match[3] ?? '';
  let units = BigInt(match[2] || '0') * SCALE + BigInt(fraction.slice(0, SCALE_DIGITS).padEnd(SCALE_DIGITS, '0'));
  if ((fraction[SCALE_DIGITS] ?? '0') >= '5') units += 1n;
  return match[1] === '-' ? -units : units;
}

/** The exact sum of USD amounts. */
export function sumUsd(amounts: Iterable<number>): number {
  let total = 0n;
  for (const amount of amounts) total += usdToUnits(amount);
  return unitsToUsd(total);
}

/** `a − b`, exactly (settlement: the real cost minus what was reserved). */
export function subtractUsd(a: number, b: number): number {
  // Whole numbers subtract exactly as numbers (a lease's request count minus one).
  if (Number.isSafeInteger(a) && Number.isSafeInteger(b) && Number.isSafeInteger(a - b)) return a - b || 0;
  return unitsToUsd(usdToUnits(a) - usdToUnits(b));
}

/** `1e-7` → `0.0000001`: Number#toString switches to exponent form for very small and very large numbers. */
function expandExponent(text: string): string {
  const match = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const digits = match[1] + (match[2] ?? '');
  const point = match[1].length + Number(match[3]);
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}
