import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publishablePackages, ROOT, type PackageJson } from './repo.js';

const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;
const packages = publishablePackages();

/** What a published package needs, as a list of problems (empty when it has it all). */
function problemsOf(dir: string, path: string, json: PackageJson): string[] {
  const problems: string[] = [];
  const need = (ok: boolean, what: string): void => {
    if (!ok) problems.push(what);
  };
  need(json.license === root.license, `license ${root.license}`);
  need(json.repository?.url === root.repository?.url && json.repository?.directory === `packages/${dir}`,
    `repository { url: ${root.repository?.url}, directory: packages/${dir} }`);
  need(json.engines?.node === root.engines?.node, `engines.node ${root.engines?.node}`);
  need(json.publishConfig?.access === 'public', 'publishConfig.access public');
  need(json.sideEffects === false || json.bin !== undefined, 'sideEffects: false (libraries)');
  need(typeof json.scripts?.prepack === 'string' && /\bbuild\b/.test(json.scripts.prepack), 'a prepack script that builds');
  for (const file of ['dist', 'README.md', 'LICENSE']) need(json.files?.includes(file) === true, `"${file}" in files`);
  for (const file of ['README.md', 'LICENSE']) need(existsSync(join(path, file)), `a ${file} file`);
  for (const field of ['dependencies', 'peerDependencies', 'devDependencies'] as const) {
    for (const [name, range] of Object.entries(json[field] ?? {})) {
      if (name.startsWith('@sluice/')) need(range.startsWith('^'), `${field}.${name} as a caret range, not ${range}`);
    }
  }
  // A library shares the application's one @sluice/core (so instanceof holds across packages).
  const usesCore = json.dependencies?.['@sluice/core'] !== undefined || json.peerDependencies?.['@sluice/core'] !== undefined;
  if (json.name !== '@sluice/core' && json.bin === undefined && usesCore) {
    need(json.peerDependencies?.['@sluice/core'] !== undefined && json.dependencies?.['@sluice/core'] === undefined,
      '@sluice/core as a peerDependency, not a dependency');
  }
  return problems;
}

describe('publishable packages carry what a published package needs', () => {
  it('finds the packages to publish (every packages/* that is not private)', () => {
    expect(packages.map((p) => p.json.name)).toEqual(expect.arrayContaining(['@sluice/core', '@sluice/oauth', '@sluice/odata']));
    expect(packages.map((p) => p.json.name)).not.toContain('@sluice/testkit');
  });

  it('the root names the license, repository and Node range the packages repeat', () => {
    expect(root.license).toBe('Apache-2.0');
    expect(root.repository?.url).toMatch(/^git\+https:\/\//);
    expect(root.engines?.node).toBe('>=20.18.1');
    expect(existsSync(join(ROOT, 'LICENSE'))).toBe(true);
  });

  for (const { dir, path, json } of packages) {
    it(`${json.name}`, () => {
      expect(problemsOf(dir, path, json)).toEqual([]);
    });
  }
});
