// The install recipe as the README writes it: the release test runs these commands word for word.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './repo.js';

/**
 * The commands of the ```sh blocks of `file` (repository-relative), in order: one per line, `#` comments
 * and blank lines left out. With `section`, only the blocks under that `## ` heading.
 */
export function shCommands(file: string, section?: string): string[] {
  let text = readFileSync(join(ROOT, file), 'utf8');
  if (section !== undefined) {
    const start = text.indexOf(`\n## ${section}\n`);
    if (start < 0) throw new Error(`${file}: no section "## ${section}"`);
    const next = text.indexOf('\n## ', start + 1);
    text = text.slice(start, next < 0 ? undefined : next);
  }
  const out: string[] = [];
  for (const m of text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    for (const line of (m[1] ?? '').split('\n')) {
      const command = line.replace(/(^|\s)#.*$/, '').trim();
      if (command !== '') out.push(command);
    }
  }
  return out;
}

/** The one command of `commands` that starts with `prefix`; an error naming the file when there is none or more. */
export function oneCommand(commands: readonly string[], prefix: string, where: string): string {
  const found = commands.filter((c) => c.startsWith(prefix));
  if (found.length !== 1) throw new Error(`${where}: expected one command starting with "${prefix}", found ${found.length}: ${found.join(' | ')}`);
  return found[0]!;
}
