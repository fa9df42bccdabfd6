// `npm run pack:all`: packs every publishable package (each packages/* that is not private) into
// dist-tarballs/ (gitignored), each built first by its `prepack`. One npm process packs them all; older
// tarballs there are removed first. The README's Install section says how to install them.
/* global URL, process, console */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist-tarballs');
const packages = readdirSync(join(root, 'packages')).sort().filter((dir) => {
  const file = join(root, 'packages', dir, 'package.json');
  return existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).private !== true;
});
mkdirSync(out, { recursive: true });
for (const name of readdirSync(out)) if (name.endsWith('.tgz')) rmSync(join(out, name));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
execFileSync(npm, ['pack', '--silent', '--pack-destination', out, ...packages.map((dir) => `--workspace=packages/${dir}`)], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
const made = readdirSync(out).filter((name) => name.endsWith('.tgz')).sort();
console.log(`dist-tarballs/: ${made.join(' ')}`);
