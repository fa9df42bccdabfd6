// `npm run pack:all`: packs every publishable package (each packages/* that is not private) into
// dist-tarballs/ (gitignored). The packages are built first (`npm run build`) unless their dist/ folders are
// current: built, as they are now, from the sources as they are now (scripts/build-record.mjs), as after CI's
// build step. One npm process packs them all; older tarballs there are removed first. The README's Install
// section says how to install them.
/* global process, console */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { distIsCurrent, publishable, root } from './build-record.mjs';

const out = join(root, 'dist-tarballs');
const packages = publishable();
if (distIsCurrent()) console.log('dist/ folders built from the current sources: packing without building again');
else execFileSync(process.execPath, [join(root, 'scripts/build-all.mjs')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
mkdirSync(out, { recursive: true });
for (const name of readdirSync(out)) if (name.endsWith('.tgz')) rmSync(join(out, name));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// The build above is each package's `prepack`: not run a second time.
execFileSync(npm, ['pack', '--silent', '--ignore-scripts', '--pack-destination', out, ...packages.map((dir) => `--workspace=packages/${dir}`)], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
const made = readdirSync(out).filter((name) => name.endsWith('.tgz')).sort();
console.log(`dist-tarballs/: ${made.join(' ')}`);
