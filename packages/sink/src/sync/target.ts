// `--into`: a target URL to an open database.
import { SinkError } from '../errors.js';
import { openPostgresTarget } from './postgres.js';
import type { SqlTarget } from './sql-target.js';
import { openSqliteTarget } from './sqlite.js';

/** Opens `sqlite:<path>` or `postgres://...` (`postgresql://` too); any other scheme is a {@link SinkError} `target`. */
export async function openTarget(target: string): Promise<SqlTarget> {
  if (target.startsWith('sqlite:')) {
    const path = target.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new SinkError('sqlite: needs a file path, such as sqlite:orders.db', 'target');
    return openSqliteTarget(path);
  }
  if (/^postgres(ql)?:\/\//.test(target)) {
    return openPostgresTarget(target);
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(target)?.[1];
  throw new SinkError(`unknown target ${scheme === undefined ? JSON.stringify(target.slice(0, 40)) : `scheme ${scheme}:`}: use sqlite:<file> or postgres://user@host:port/database`, 'target');
}
