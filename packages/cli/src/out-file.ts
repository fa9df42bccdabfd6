// `--out <file>`: the target is checked before anything is read, and temporary files that killed
// exports left beside it are recognised by name and removed once their process is gone.
import { constants } from 'node:fs';
import { access, readdir, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from './errors.js';

const PARTIAL = '.sluice-partial-';

/** The temporary file of an export to `path`: `<name>.sluice-partial-<host>-<pid>`, beside it. */
export function partialFileName(path: string, pid = process.pid): string {
  return join(dirname(path), `${basename(path)}${PARTIAL}${hostname()}-${pid}`);
}

/** Whether the process `pid` runs on this machine (one of another user counts). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary files that exports to `path` on this host left when they were killed
 * (SIGKILL, a crash, power loss): those whose process no longer runs. Resolves with their names.
 */
export async function removeStalePartials(path: string): Promise<string[]> {
  const dir = dirname(path);
  const prefix = `${basename(path)}${PARTIAL}${hostname()}-`;
  const names = await readdir(dir).catch(() => [] as string[]);
  const stale = names.filter((name) => {
    if (!name.startsWith(prefix)) return false;
    const pid = name.slice(prefix.length);
    return /^[1-9]\d*$/.test(pid) && Number(pid) !== process.pid && !alive(Number(pid));
  });
  await Promise.all(stale.map((name) => unlink(join(dir, name)).catch(() => undefined)));
  return stale;
}

/** A file-system error about the temporary file of `path`, told in terms of `path` itself. */
export function outFileError(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const folder = dirname(resolve(path));
  if (code === 'ENOENT' || code === 'ENOTDIR') return new UsageError(`--out ${path}: the folder ${folder} does not exist`);
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return new UsageError(`--out ${path}: the folder ${folder} is not writable`, 'sluice writes a temporary file beside the target and renames it; choose a folder you can write to');
  return error;
}

/**
 * Checks `--out` before the first request: its folder exists and can be written (the temporary file
 * goes there), and the target, if it exists, is a regular file that may be written. A read-only target
 * is refused rather than replaced. Removes stale temporary files of earlier, killed exports.
 */
export async function checkOutFile(path: string): Promise<string[]> {
  if (path === '') throw new UsageError('--out needs a file name');
  const folder = dirname(resolve(path));
  const dir = await stat(folder).catch(() => undefined);
  if (dir === undefined || !dir.isDirectory()) throw outFileError(path, { code: 'ENOENT' });
  const target = await stat(path).catch(() => undefined);
  if (target?.isDirectory()) throw new UsageError(`--out ${path} is a folder`, 'give a file name, such as --out ' + join(path, 'export.ndjson'));
  if (target !== undefined && !target.isFile()) {
    throw new UsageError(`--out ${path} is not a regular file`, 'to write to a device or a pipe, leave --out out and redirect stdout');
  }
  // No write bit at all (chmod a-w) is refused for root too, who could write it anyway.
  if (target !== undefined && ((target.mode & 0o222) === 0 || !(await access(path, constants.W_OK).then(() => true, () => false)))) {
    throw new UsageError(`--out ${path} is read-only (mode ${(target.mode & 0o777).toString(8)}); sluice does not replace it`, `make it writable (chmod u+w ${path}) or remove it first`);
  }
  if (!(await access(folder, constants.W_OK | constants.X_OK).then(() => true, () => false))) throw outFileError(path, { code: 'EACCES' });
  return removeStalePartials(path);
}
