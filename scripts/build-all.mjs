// `npm run build`: builds every workspace that has a build script (ESM + CJS + .d.ts with tsup), then
// records which sources the dist/ folders came from (scripts/build-record.mjs), so that `npm run pack:all`
// packs them without building again. Nothing is recorded when a build fails.
/* global process */
import { spawnSync } from 'node:child_process';
import { recordBuild, root, sourcesHash } from './build-record.mjs';

const sources = sourcesHash(); // before the build: a source edited while it runs makes the record stale
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const build = spawnSync(npm, ['run', 'build', '--workspaces', '--if-present'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
recordBuild(sources);
