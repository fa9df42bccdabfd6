import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJSON, startODataServer, startServer, type ODataTestServer, type TestServer } from '@sluice/testkit';
import { documentedFiles, extractBlocks, type CodeBlock } from './code-blocks.js';
import { checkAgainstInstalled, exampleFiles } from './docs-check.js';
import { oneCommand, shCommands } from './install-recipe.js';
import { unexportedPublicTypes } from './public-types.js';
import { promisedFiles, publishablePackages, ROOT, type WorkspacePackage } from './repo.js';

// Installs the packages the way a user does: the README's `npm run pack:all` (every package packed into
// dist-tarballs/), the tarballs into an empty project (our packages from the tarballs alone; third-party
// dependencies from the registry), then ESM, CommonJS and TypeScript consumers use them, and every docs
// example compiles against them. Packed once per run; the README's install commands run as written.

const run = promisify(execFile);
const packages = publishablePackages();
const fixtures = join(ROOT, 'packages/release-test/test/fixtures');
const install = shCommands('README.md', 'Install');

interface Packed {
  pkg: WorkspacePackage;
  tarball: string;
  /** Paths inside the tarball, without the leading `package/`. */
  files: string[];
}

let work: string;
let app: string;
let packed: Packed[] = [];
let odata: ODataTestServer;
let tokens: TestServer;

/**
 * The docs and examples compiled against the installed packages (docs-check.ts), in one TypeScript program that
 * also holds every package's `.d.ts` entry, which the public-types check reads: built once, by the first test
 * that needs it.
 */
let checked: (ReturnType<typeof checkAgainstInstalled> & { blocks: CodeBlock[]; examples: string[]; entries: string[] }) | undefined;
function docsCheck(): NonNullable<typeof checked> {
  if (checked) return checked;
  const blocks: CodeBlock[] = [];
  for (const file of documentedFiles()) blocks.push(...extractBlocks(file, readFileSync(join(ROOT, file), 'utf8')).blocks);
  const examples = exampleFiles();
  const entries = packed.filter((p) => p.pkg.json.types !== undefined).map((p) => join(app, 'node_modules', p.pkg.json.name, p.pkg.json.types!));
  checked = { ...checkAgainstInstalled(app, blocks, examples, entries), blocks, examples, entries };
  return checked;
}

async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run('npm', args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } });
  return stdout;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sluice-tarballs-'));
  const tarballs = join(ROOT, 'dist-tarballs');
  // The README's pack command (one npm process packs every package, built first unless `npm run build` built
  // them from the current sources, as CI's build step did: scripts/build-record.mjs).
  await run('bash', ['-c', oneCommand(install, 'npm run pack:all', 'README.md Install')], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const made = readdirSync(tarballs);
  packed = await Promise.all(packages.map(async (pkg) => {
    const base = `${pkg.json.name.replace(/^@/, '').replace('/', '-')}-${pkg.json.version}.tgz`;
    const tarball = join(tarballs, base);
    if (!made.includes(base)) throw new Error(`npm pack made no ${base} (made: ${made.join(', ')})`);
    const { stdout } = await run('tar', ['-tzf', tarball]);
    return { pkg, tarball, files: stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, '')) };
  }));

  app = join(work, 'app');
  mkdirSync(app);
  // Every @sluice/* dependency, direct or between our packages, resolves to a tarball (overrides), and
  // should npm still ask a registry for our scope, it asks a closed port and fails at once.
  const ours = Object.fromEntries(packed.map((p) => [p.pkg.json.name, `file:${p.tarball}`]));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'tarball-consumer', version: '0.0.0', private: true, dependencies: ours, overrides: ours }, null, 2));
  // prefer-offline: third-party packages come from npm's cache when it holds them, without asking the registry.
  writeFileSync(join(app, '.npmrc'), '@sluice:registry=http://127.0.0.1:9/\nfetch-retries=0\nfund=false\naudit=false\nprefer-offline=true\n');
  await npm(['install', '--no-audit', '--no-fund', '--loglevel=error'], app);
  for (const name of ['use-packages.mjs', 'consumer.ts']) cpSync(join(fixtures, name), join(app, name));
  // The same consumer as an ES module: under node16 `.ts` here is CommonJS (require types), `.mts` ESM (import types).
  cpSync(join(fixtures, 'consumer.ts'), join(app, 'consumer.mts'));
  // Every published library's types, loaded and checked (packages found anew, so new ones are covered).
  const typed = packed.filter((p) => p.pkg.json.types !== undefined);
  writeFileSync(join(app, 'every-package.ts'), typed.map((p, i) => `export * as package${i} from '${p.pkg.json.name}';\n`).join(''));

  odata = await startODataServer({ products: 20, pageSize: 10 });
  tokens = await startServer((_req, res) => sendJSON(res, 200, { access_token: 'tarball-token', token_type: 'Bearer', expires_in: 3600 }));
}, 600_000);

afterAll(async () => {
  await odata?.close();
  await tokens?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('packages installed from their tarballs', () => {
  it('packs every publishable package (found anew: every packages/* that is not private)', () => {
    expect(packed.map((p) => p.pkg.json.name)).toEqual(expect.arrayContaining(['@sluice/core', '@sluice/oauth', '@sluice/odata']));
  });

  it('each tarball holds every file its package.json promises, its README and LICENSE, and no sources or tests', () => {
    const problems: string[] = [];
    for (const { pkg, files } of packed) {
      for (const file of [...promisedFiles(pkg.json), 'package.json', 'README.md', 'LICENSE']) {
        if (!files.includes(file)) problems.push(`${pkg.json.name}: ${file} missing`);
      }
      for (const file of files) if (/^(?:src|test)\//.test(file)) problems.push(`${pkg.json.name}: ${file} should not be published`);
    }
    expect(problems).toEqual([]);
  });

  it('no published .d.ts carries an @internal member', () => {
    const found: string[] = [];
    for (const { pkg, files } of packed) {
      for (const file of files.filter((f) => /\.d\.c?ts$/.test(f))) {
        const text = readFileSync(join(app, 'node_modules', pkg.json.name, file), 'utf8');
        if (text.includes('@internal')) found.push(`${pkg.json.name}/${file}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('public signatures name only exported types (none whose members the build stripped as @internal)', () => {
    const { entries, program } = docsCheck();
    expect(entries.length).toBeGreaterThan(3);
    expect(unexportedPublicTypes(entries, program), 'export the type, or take a public one (ODataClient rather than an internal host)').toEqual([]);
  }, 300_000);

  it('installs our packages from the tarballs only, with one copy of @sluice/core', () => {
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string }> };
    const ours = Object.entries(lock.packages).filter(([path]) => /(?:^|\/)node_modules\/@sluice\//.test(path));
    expect(ours.map(([path]) => path).sort()).toEqual(packed.map((p) => `node_modules/${p.pkg.json.name}`).sort());
    for (const [path, entry] of ours) expect(entry.resolved, path).toMatch(/^file:/);
  });

  for (const [format, file] of [['esm', 'index.js'], ['cjs', 'index.cjs']] as const) {
    it(`${format}: core + oauth + odata read the OData service with a token, and errors keep their class and name`, async () => {
      const { stdout } = await run(process.execPath, ['use-packages.mjs', format, odata.v4, `${tokens.origin}/token`], { cwd: app });
      const result = JSON.parse(stdout) as { entries: string[]; products: number; errorName: string; isHttpError: boolean; isSluiceError: boolean; status: number; stack: string };
      expect(result).toMatchObject({ entries: [file, file, file], products: 3, errorName: 'HttpError', isHttpError: true, isSluiceError: true, status: 404 });
      // The error's stack leads back to the line of the caller's script that awaited the request.
      expect(result.stack).toMatch(/^HttpError: GET /);
      expect(result.stack).toMatch(/use-packages\.mjs:\d+:\d+/);
      const reads = odata.requests.filter((r) => r.url.includes('/Products'));
      expect(reads.length).toBeGreaterThan(0);
      expect(reads.every((r) => r.headers.authorization === 'Bearer tarball-token')).toBe(true);
    }, 60_000);
  }

  it('each published executable starts (--version)', async () => {
    for (const { pkg } of packed) {
      const bins = typeof pkg.json.bin === 'string' ? { [pkg.json.name.split('/').pop()!]: pkg.json.bin } : pkg.json.bin ?? {};
      for (const name of Object.keys(bins)) {
        const { stdout } = await run(join(app, 'node_modules/.bin', name), ['--version'], { cwd: app });
        expect(stdout.trim(), `${name} --version`).toContain(pkg.json.version);
      }
    }
  }, 60_000);

  for (const mode of ['node16', 'bundler'] as const) {
    it(`a typed consumer compiles with module ${mode} (strict, exactOptionalPropertyTypes, library types checked)`, async () => {
      const compilerOptions = {
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        noEmit: true,
        target: 'ES2022',
        lib: ['ES2023'],
        module: mode === 'node16' ? 'Node16' : 'ESNext',
        moduleResolution: mode === 'node16' ? 'Node16' : 'Bundler',
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
      };
      const config = join(app, `tsconfig.${mode}.json`);
      const files = mode === 'node16' ? ['consumer.ts', 'consumer.mts', 'every-package.ts'] : ['consumer.ts', 'every-package.ts'];
      writeFileSync(config, JSON.stringify({ compilerOptions, files }, null, 2));
      const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
      const result = await run(process.execPath, [tsc, '-p', config], { cwd: app }).catch((err: { stdout?: string }) => err);
      expect('stdout' in result ? result.stdout : '').toBe('');
      expect(existsSync(join(app, 'node_modules/@sluice/core/dist/index.d.ts'))).toBe(true);
    }, 180_000);
  }

  it('every ts block of the READMEs and docs, and every file of examples/, compiles against the installed tarballs (NodeNext, strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess)', () => {
    const { blocks, examples, problems } = docsCheck();
    expect(blocks.length).toBeGreaterThan(5);
    expect(examples).toContain('examples/odata-tour.ts');
    expect(problems.map((p) => `${p.file}:${p.line}: ${p.message}`)).toEqual([]);
  }, 300_000);
});

describe("the README's Install section, run word for word", () => {
  // Our scope asks a closed port, should npm look for it in a registry: the tarballs must resolve each other.
  // Third-party packages come from npm's cache when it holds them (prefer-offline): the commands stay as written.
  const env = { ...process.env, SLUICE: ROOT, 'npm_config_@sluice:registry': 'http://127.0.0.1:9/', npm_config_fetch_retries: '0', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_prefer_offline: 'true' };

  it('its npm install line puts core, oauth and odata into an empty project, which reads the OData service with them', async () => {
    const project = join(work, 'my-app');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-app', version: '1.0.0', private: true, type: 'module' }));
    await run('bash', ['-c', oneCommand(install, 'npm install "$SLUICE"', 'README.md Install')], { cwd: project, env, maxBuffer: 64 * 1024 * 1024 });
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string }> };
    const ours = Object.entries(lock.packages).filter(([path]) => /(?:^|\/)node_modules\/@sluice\//.test(path));
    expect(ours.map(([path]) => path).sort()).toEqual(['node_modules/@sluice/core', 'node_modules/@sluice/oauth', 'node_modules/@sluice/odata']);
    for (const [path, entry] of ours) expect(entry.resolved, path).toMatch(/^file:/);
    const script = "import { createODataClient } from '@sluice/odata'; import { oauth2 } from '@sluice/oauth';\n" +
      "const od = createODataClient({ serviceURL: process.argv[1] }); console.log(typeof oauth2, (await od.from('Products').top(2).list()).length);";
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, odata.v4], { cwd: project });
    expect(stdout.trim()).toBe('function 2');
  }, 180_000);

  it('its npm install -g line (the CLI README gives the same) installs a sluice command that runs', async () => {
    const line = oneCommand(install, 'npm install -g', 'README.md Install');
    expect(shCommands('packages/cli/README.md').filter((c) => c.startsWith('npm install -g "$SLUICE"'))).toEqual([line]);
    const prefix = join(work, 'global');
    await run('bash', ['-c', line], { cwd: work, env: { ...env, npm_config_prefix: prefix }, maxBuffer: 64 * 1024 * 1024 });
    const { stdout } = await run(join(prefix, 'bin/sluice'), ['url', odata.v4, 'Products', '--top', '1']);
    expect(stdout.trim()).toBe(`${odata.v4}Products?$top=1`);
  }, 180_000);
});
