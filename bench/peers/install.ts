// The peer OData clients of bench/odata-peers.ts and the generators of bench/codegen.ts live in bench/peers/
// with their own package.json and lock, out of the workspace install (CI's `npm ci` + `npm test` never sees
// them). This installs them on first use and generates the SAP Cloud SDK client from the test server's
// $metadata, as an SDK user would.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** bench/peers/, whether this runs from source (bench/peers/) or compiled (bench/.out/). */
export const peersDir = fileURLToPath(new URL(import.meta.url.includes('/bench/.out/') ? '../peers/' : './', import.meta.url));
/** Where the generated SAP client goes: inside node_modules, so lint, typecheck and git leave it alone. */
export const generatedDir = join(peersDir, 'node_modules', '.sluice-generated');

/** Runs `npm ci` in bench/peers/ unless its node_modules matches the committed lock. */
export function ensurePeers(): void {
  const installed = join(peersDir, 'node_modules', '.package-lock.json');
  const lock = join(peersDir, 'package-lock.json');
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) return;
  console.log('odata-peers: installing the peer clients (npm ci --prefix bench/peers)');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const res = spawnSync(npm, ['ci', '--prefix', peersDir, '--no-audit', '--no-fund'], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (res.status !== 0) throw new Error(`npm ci --prefix bench/peers failed (exit ${res.status ?? res.signal})`);
}

/** A module from bench/peers/node_modules. */
export function peerRequire(id: string): unknown {
  return createRequire(join(peersDir, 'package.json'))(id);
}

/**
 * Generates the SAP Cloud SDK client for the service at `v4` with `@sap-cloud-sdk/generator` and returns
 * the path of its index.js. The generator's own `--transpile` step type-checks its output, and generator
 * 4.5.1's output fails that against bignumber.js 11, which the 4.8 runtime requires ("TS2749: 'BigNumber'
 * refers to a value, but is being used as a type here", service.ts); so the generated TypeScript is
 * turned into CommonJS with TypeScript's transpileModule (types stripped, nothing else changed).
 */
export async function generateSapClient(v4: string): Promise<string> {
  const metadata = await (await fetch(`${v4}$metadata`)).text();
  const input = join(generatedDir, 'input');
  const output = join(generatedDir, 'client');
  rmSync(generatedDir, { recursive: true, force: true });
  mkdirSync(input, { recursive: true });
  writeFileSync(join(input, 'demo.edmx'), metadata);
  const cli = join(peersDir, 'node_modules', '@sap-cloud-sdk', 'generator', 'dist', 'cli.js');
  const res = spawnSync(process.execPath, [cli, '-i', input, '-o', output, '--skipValidation', '--overwrite'], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`SAP generator failed (exit ${res.status}): ${res.stderr || res.stdout}`);
  const ts = peerRequire('typescript') as {
    transpileModule(text: string, opts: { compilerOptions: Record<string, unknown> }): { outputText: string };
    ModuleKind: { CommonJS: number };
    ScriptTarget: { ES2021: number };
  };
  const dir = join(output, 'demo');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const { outputText } = ts.transpileModule(readFileSync(join(dir, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2021, esModuleInterop: true },
    });
    writeFileSync(join(dir, file.replace(/\.ts$/, '.js')), outputText);
  }
  // CommonJS, while bench/peers/package.json says "type": "module" for the bench's own helpers here.
  writeFileSync(join(generatedDir, 'package.json'), '{ "type": "commonjs" }\n');
  return join(dir, 'index.js');
}
