// The `sluice` executable: runs the command line and exits with its code, never without a message.
import { runGuarded } from './exit-guard.js';
import { boundHeapGrowth } from './heap.js';
import { main } from './main.js';
import { compileWasmBaselineOnly } from './wasm-tier.js';

compileWasmBaselineOnly();

let heapError: RangeError | undefined;
try {
  boundHeapGrowth();
} catch (err) {
  heapError = err as RangeError;
}
if (heapError) {
  process.stderr.write(`sluice: ${heapError.message}\n`);
  process.exitCode = 2;
} else {
  runGuarded(() => main(process.argv.slice(2)));
}
