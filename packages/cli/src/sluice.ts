// The `sluice` executable: runs the command line and exits with its code, never without a message.
import { runGuarded } from './exit-guard.js';
import { boundHeapGrowth } from './heap.js';
import { main } from './main.js';

boundHeapGrowth();
runGuarded(() => main(process.argv.slice(2)));
