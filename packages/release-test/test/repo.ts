// The repository as the release checks see it: its root, its own files, its publishable packages.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the repository root. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/[\\/]$/, '');

/** Folders that are generated or installed, never written by us (by name anywhere, or by path). */
const SKIPPED = new Set(['node_modules', '.git', 'dist', 'coverage']);
const SKIPPED_PATHS = new Set(['docs/api', 'bench/.out']);

/** Every file of the repository below `dir` (repository-relative, `/`-separated), generated folders left out. */
export function repoFiles(dir = ROOT): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(ROOT, path).split(sep).join('/');
    if (SKIPPED.has(entry.name) || SKIPPED_PATHS.has(rel)) continue;
    if (entry.isDirectory()) out.push(...repoFiles(path));
    else if (entry.isFile()) out.push(rel);
  }
  return out;
}

export interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  repository?: { type?: string; url?: string; directory?: string };
  engines?: Record<string, string>;
  files?: string[];
  main?: string;
  module?: string;
  types?: string;
  bin?: string | Record<string, string>;
  exports?: unknown;
  sideEffects?: boolean;
  publishConfig?: { access?: string };
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export interface WorkspacePackage {
  /** Folder name under `packages/`. */
  dir: string;
  /** Absolute path of the package folder. */
  path: string;
  json: PackageJson;
}

/** Every workspace under `packages/`. */
export function workspaces(): WorkspacePackage[] {
  const base = join(ROOT, 'packages');
  return readdirSync(base)
    .filter((dir) => existsSync(join(base, dir, 'package.json')) && statSync(join(base, dir)).isDirectory())
    .sort()
    .map((dir) => ({ dir, path: join(base, dir), json: JSON.parse(readFileSync(join(base, dir, 'package.json'), 'utf8')) as PackageJson }));
}

/** The packages that get published: every workspace that is not `private`. Found anew each run. */
export function publishablePackages(): WorkspacePackage[] {
  return workspaces().filter((p) => p.json.private !== true);
}

/** Every file path a package.json promises (`main`, `module`, `types`, `bin`, every `exports` target). */
export function promisedFiles(json: PackageJson): string[] {
  const out = new Set<string>();
  const add = (p: unknown): void => {
    if (typeof p === 'string') out.add(p.replace(/^\.\//, ''));
    else if (p !== null && typeof p === 'object') for (const v of Object.values(p)) add(v);
  };
  add(json.main);
  add(json.module);
  add(json.types);
  add(json.bin);
  add(json.exports);
  return [...out].filter((p) => !p.includes('*')).sort();
}
