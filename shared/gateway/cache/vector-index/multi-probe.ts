/**
 * Multi-probe locality-sensitive hashing over `tables` hash tables of `bitsPerTable` SimHash bits each (the
 * signs of rotated coordinates, rotation.ts). An entry is written to one bucket per table: the bucket its own
 * bits name. A lookup reads its own bucket of every table and then the neighbouring buckets a near entry is
 * most likely to sit in: those reached by flipping the bits whose coordinates are closest to zero, where a
 * neighbour at cosine s falls on the other side with probability Φ(−s·|z|/(√(1−s²)/√D)). Probes are ordered by
 * the sum of the squared coordinates they flip (Lv et al., "Multi-probe LSH", 2007), across all tables, so a
 * lookup spends its fixed number of reads where the neighbour most likely is.
 */
export interface MultiProbeShape {
  tables: number;
  bitsPerTable: number;
  /** Buckets one lookup reads, own buckets included (at least `tables`). */
  probes: number;
}

export interface Probe {
  table: number;
  /** The bucket's signature, lowercase hex. */
  signature: string;
  /** Sum of the squared coordinates of the flipped bits: 0 for the query's own bucket. */
  score: number;
}

/** The signature of each table for rotated coordinates starting at `offset`. */
export function signatures(rotated: Float64Array, offset: number, shape: Pick<MultiProbeShape, 'tables' | 'bitsPerTable'>): string[] {
  return Array.from({ length: shape.tables }, (_, table) => hex(bitsOf(rotated, offset + table * shape.bitsPerTable, shape.bitsPerTable), shape.bitsPerTable));
}

/** The `probes` buckets a lookup reads, most likely first; the first `tables` are the query's own buckets. */
export function probeSequence(rotated: Float64Array, offset: number, shape: MultiProbeShape): Probe[] {
  if (shape.bitsPerTable < 1 || shape.bitsPerTable > 32) throw new RangeError('bitsPerTable must be 1..32');
  const tables = Array.from({ length: shape.tables }, (_, table) => {
    const start = offset + table * shape.bitsPerTable;
    const order = Array.from({ length: shape.bitsPerTable }, (_, bit) => bit).sort((a, b) => Math.abs(rotated[start + a]) - Math.abs(rotated[start + b]));
    return { own: bitsOf(rotated, start, shape.bitsPerTable), order, costs: order.map((bit) => rotated[start + bit] ** 2) };
  });
  const probes: Probe[] = tables.map((table, index) => ({ table: index, signature: hex(table.own, shape.bitsPerTable), score: 0 }));
  // Flip sets as ascending positions into each table's `order`; a set's successors are its "shift" (last
  // position + 1) and its "expand" (add last + 1): every set is reached once, never before a cheaper one.
  const frontier = tables.map((table, index) => ({ table: index, positions: [0], score: table.costs[0] }));
  while (probes.length < shape.probes && frontier.length > 0) {
    let cheapest = 0;
    for (let i = 1; i < frontier.length; i++) if (frontier[i].score < frontier[cheapest].score) cheapest = i;
    const [set] = frontier.splice(cheapest, 1);
    const table = tables[set.table];
    let mask = 0;
    for (const position of set.positions) mask |= 1 << table.order[position];
    probes.push({ table: set.table, signature: hex((table.own ^ mask) >>> 0, shape.bitsPerTable), score: set.score });
    const last = set.positions[set.positions.length - 1];
    if (last + 1 < shape.bitsPerTable) {
      frontier.push({ table: set.table, positions: [...set.positions.slice(0, -1), last + 1], score: set.score - table.costs[last] + table.costs[last + 1] });
      frontier.push({ table: set.table, positions: [...set.positions, last + 1], score: set.score + table.costs[last + 1] });
    }
  }
  return probes;
}

function bitsOf(rotated: Float64Array, start: number, count: number): number {
  let bits = 0;
  for (let bit = 0; bit < count; bit++) if (rotated[start + bit] >= 0) bits |= 1 << bit;
  return bits >>> 0;
}

const hex = (bits: number, width: number) => bits.toString(16).padStart(Math.ceil(width / 4), '0');
