// Where every peer reader puts its records: counts them, finds duplicates (one bit per ID), and checks the
// Int64 `Stock` of the first 2,000 products whose stock is above 2^53 (every 11th product of the test server).
// data.js directly, not the testkit index: the child processes stay free of the OIDC and redis servers' modules.
import { stockOf } from '../../packages/testkit/src/odata/data.js';

/** Products 11, 22, ..., 22,000: their Int64 stock is 2^53 + 1 + ID, beyond a double's exact integers. */
export const INT64_CHECKED = 2000;
const LAST_CHECKED = INT64_CHECKED * 11;

/** The decimal digits of an Int64 value as a client hands it over (number, string, bigint or BigNumber). */
export function int64Text(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'bigint') return String(value);
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value).toString() : String(value);
  const big = value as { toFixed?: () => string } | null;
  return typeof big?.toFixed === 'function' ? big.toFixed() : String(value);
}

export class RecordSink {
  n = 0;
  duplicates = 0;
  int64Checked = 0;
  int64Wrong = 0;
  private readonly seen: Uint8Array;

  constructor(expected: number) {
    this.seen = new Uint8Array(expected + 2);
  }

  /** One record: its key and its Int64 stock as the client returned it. */
  add(id: number, stock: unknown): void {
    this.n++;
    if (!Number.isInteger(id) || id < 1 || id >= this.seen.length || this.seen[id] === 1) {
      this.duplicates++;
      return;
    }
    this.seen[id] = 1;
    if (id % 11 === 0 && id <= LAST_CHECKED) {
      this.int64Checked++;
      if (int64Text(stock) !== stockOf(id)) this.int64Wrong++;
    }
  }
}
