// The `sluice` executable: runs the command line and exits with its code, never without a message.
import { runGuarded } from './exit-guard.js';
import { main } from './main.js';

runGuarded(() => main(process.argv.slice(2)));
