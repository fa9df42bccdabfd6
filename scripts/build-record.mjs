// Which sources the packages' dist/ folders were built from, so that `npm run pack:all` packs what
// `npm run build` already built instead of building every package again (each `prepack` build takes
// tens of seconds: CI builds once and packs three times, once per Node version's release test).
//
// The record (node_modules/.cache/sluice/build.json, never committed) holds two hashes: of every file
// the build can read (every packages/* folder but dist/, node_modules/ and test/, and the root files
// below), taken before the build starts, and of every file of the publishable packages' dist/ folders,
// taken after it ended. The dist/ folders count as current only while both still match: a changed source,
// a package built alone, a dist/ edited or removed all mean a new build.
/* global URL */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
const recordFile = join(root, 'node_modules/.cache/sluice/build.json');
/** Root files a package build reads (tsup's shared config, the TypeScript settings, tool versions) or that run it. */
const ROOT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.base.json', 'tsup.package.ts', 'scripts/build-all.mjs', 'scripts/build-record.mjs'];
const SKIPPED = new Set(['dist', 'node_modules', 'test']);

/** Folder names under packages/ of the packages that get published (not `private`). */
export function publishable() {
  return readdirSync(join(root, 'packages')).sort().filter((dir) => {
    const file = join(root, 'packages', dir, 'package.json');
    return existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).private !== true;
  });
}

function filesBelow(dir, skip) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (skip.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesBelow(path, skip));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

function hashFiles(files) {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file.slice(root.length)}\0`);
    hash.update(existsSync(file) ? readFileSync(file) : '<missing>');
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Hash of everything a build of the packages can read. */
export function sourcesHash() {
  const packages = readdirSync(join(root, 'packages')).sort().map((dir) => join(root, 'packages', dir));
  return hashFiles([...ROOT_FILES.map((f) => join(root, f)), ...packages.flatMap((dir) => filesBelow(dir, SKIPPED))]);
}

/** Hash of the publishable packages' dist/ folders; undefined when one has none. */
export function distHash() {
  const dists = publishable().map((dir) => join(root, 'packages', dir, 'dist'));
  if (!dists.every((dir) => existsSync(dir))) return undefined;
  return hashFiles(dists.flatMap((dir) => filesBelow(dir, new Set())));
}

/** Whether every publishable package's dist/ was built, as it is now, from the sources as they are now. */
export function distIsCurrent() {
  if (!existsSync(recordFile)) return false;
  let record;
  try {
    record = JSON.parse(readFileSync(recordFile, 'utf8'));
  } catch {
    return false;
  }
  return record.sources === sourcesHash() && record.dist !== undefined && record.dist === distHash();
}

/** Records that the dist/ folders as they are now were built from sources whose hash, taken before the build, is `sources`. */
export function recordBuild(sources) {
  mkdirSync(dirname(recordFile), { recursive: true });
  writeFileSync(recordFile, `${JSON.stringify({ sources, dist: distHash() })}\n`);
}
