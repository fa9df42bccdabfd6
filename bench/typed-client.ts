// Typed clients: what `createODataClient<Service>()` costs the compiler on a service of thousands of entity types.
// Writes a synthetic spec of 2,000 entity types (20 properties, a to-one and a to-many navigation and a bound
// action each; 2,000 entity sets, 100 unbound actions and functions) as `sluice generate` would, then runs
// `tsc --noEmit --extendedDiagnostics` on programs that use it (5 sets, 200 sets) and on the same program
// untyped (`od.from<Row>('Set0')`), and reports check time, total time, memory and type count.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const name = 'typed-client';

const ENTITY_TYPES = Number(process.env.BENCH_TYPED_TYPES ?? 2000);
const root = fileURLToPath(new URL(import.meta.url.includes('/bench/.out/') ? '../../' : '../', import.meta.url));
const dir = `${root}bench/.out/typed-client/`;

const KINDS: Array<[string, string]> = [
  ['Edm.String', 'string'], ['Edm.Int32', 'number'], ['Edm.Decimal', 'string'], ['Edm.Int64', 'string'], ['Edm.Boolean', 'boolean'],
  ['Edm.DateTimeOffset', 'string'], ['Edm.Guid', 'string'], ['Edm.Double', 'number'],
];

/** The synthetic service spec, as a generated module. */
export function syntheticSpec(n: number): string {
  const out: string[] = ["import type { EmptyMap } from '@sluice/odata';", ''];
  for (let i = 0; i < n; i++) {
    const props: string[] = ['ID: number'];
    const edm: string[] = ["ID: 'Edm.Int32'"];
    for (let p = 0; p < 19; p++) {
      const [edmType, ts] = KINDS[(i + p) % KINDS.length]!;
      props.push(`P${p}: ${ts}${p % 3 === 0 ? ' | null' : ''}`);
      edm.push(`P${p}: '${edmType}'`);
    }
    out.push(`export interface E${i} { ${props.join('; ')} }`);
    out.push(`export interface S${i} {`,
      `  props: E${i}; key: { ID: number }; edm: { ${edm.join('; ')} }`,
      `  nav: { Next: { target: S${(i + 1) % n}; many: false }; Items: { target: S${(i * 7 + 3) % n}; many: true } }`,
      `  computed: 'P5'; immutable: 'ID' | 'P5'`,
      `  actions: { 'NS.Act${i}': { params: { Value: number }; returns: E${i} } }; functions: EmptyMap; collectionActions: EmptyMap; collectionFunctions: EmptyMap`,
      '}');
  }
  const sets = Array.from({ length: n }, (_, i) => `Set${i}: S${i}`).join('; ');
  const ops = Array.from({ length: 100 }, (_, i) => `Op${i}: { params: { A: string; B?: number | null }; returns: E${i % n} }`).join('; ');
  out.push('export interface Service {', `  entitySets: { ${sets} }`, '  singletons: EmptyMap', `  actions: { ${ops} }`, `  functions: { ${ops} }`, '}', '');
  return out.join('\n');
}

function usage(sets: number, typed: boolean, deep: boolean): string {
  const lines = typed
    ? ["import { createODataClient } from '@sluice/odata';", "import type { Service } from './service.js';", '',
      "const od = createODataClient<Service>({ serviceURL: 'http://127.0.0.1:9/svc/', version: '4.0' });"]
    : ["import { createODataClient } from '@sluice/odata';", '', 'interface Row { ID: number; P0: string | null; P1: number; P2: string }',
      "const od = createODataClient({ serviceURL: 'http://127.0.0.1:9/svc/', version: '4.0' });"];
  lines.push('export async function use(): Promise<unknown[]> {', '  const out: unknown[] = [];');
  for (let k = 0; k < sets; k++) {
    const i = (k * 9973) % ENTITY_TYPES;
    const from = typed ? `od.from('Set${i}')` : `od.from<Row>('Set${i}')`;
    lines.push(`  out.push(await ${from}.select('ID', 'P0', 'P1').filter((f) => f.and(f.gt('ID', 1), f.isNull('P0'))).orderBy('ID desc').expand('Next').top(5).list());`);
    lines.push(`  out.push(await ${from}.key(1).nav('Next').navMany('Items').select('ID').list());`);
    lines.push(`  out.push(await ${from}.create({ ID: 1 }));`);
    // Paths through three to-one hops, any() over a to-many one reached through a to-one one, nested expand options.
    if (deep) lines.push(`  out.push(await ${from}.filter((f) => f.and(f.eq('Next/Next/ID', 2), f.isNotNull('Next/Next/Next/P0'), f.any('Next/Items', 'x', (x) => x.gt('Next/ID', 3)))).orderBy('Next/Next/ID desc').expand('Next', { select: ['ID', 'P1'], expand: { Items: { select: ['ID'] } } }).list());`);
    lines.push(typed ? `  out.push(await ${from}.key(1).action('NS.Act${i}', { Value: 1 }).execute());` : `  out.push(await ${from}.key(1).action('NS.Act${i}').parameter('Value', 1).execute());`);
  }
  lines.push(typed ? "  out.push(await od.action('Op7', { A: 'x' }).execute());" : "  out.push(await od.action('Op7').parameter('A', 'x').execute());");
  lines.push('  return out;', '}', '');
  return lines.join('\n');
}

interface Figures { check: number; total: number; memory: number; types: number }

function tsc(main: string): Figures {
  const config = {
    compilerOptions: {
      target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true,
      types: ['node'], typeRoots: [`${root}node_modules/@types`], baseUrl: root,
      paths: { '@sluice/core': ['packages/core/src/index.ts'], '@sluice/odata': ['packages/odata/src/index.ts'] },
    },
    files: [main],
  };
  writeFileSync(`${dir}tsconfig.json`, JSON.stringify(config));
  const run = spawnSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', `${dir}tsconfig.json`, '--extendedDiagnostics'], { encoding: 'utf8' });
  const text = run.stdout + run.stderr;
  if (run.status !== 0) throw new Error(`tsc failed on ${main}:\n${text.slice(0, 2000)}`);
  const num = (label: string): number => Number(new RegExp(`^${label}:\\s+([\\d.]+)`, 'm').exec(text)?.[1] ?? NaN);
  return { check: num('Check time'), total: num('Total time'), memory: num('Memory used') / 1024, types: num('Types') };
}

export async function run(): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const spec = syntheticSpec(ENTITY_TYPES);
  writeFileSync(`${dir}service.ts`, spec);
  const rows: string[] = [];
  const programs = [
    ['untyped, 5 sets', 5, false, false], ['typed, 5 sets', 5, true, false], ['typed, 200 sets', 200, true, false],
    ['untyped, 200 sets, deep paths and nested expand', 200, false, true], ['typed, 200 sets, deep paths and nested expand', 200, true, true],
  ] as const;
  for (const [label, sets, typed, deep] of programs) {
    const file = `${dir}use-${typed ? 'typed' : 'untyped'}-${sets}${deep ? '-deep' : ''}.ts`;
    writeFileSync(file, usage(sets, typed, deep));
    const f = tsc(file);
    rows.push(`| ${label} | ${f.check.toFixed(2)} s | ${f.total.toFixed(2)} s | ${f.memory.toFixed(0)} MB | ${f.types.toLocaleString('en')} |`);
  }
  return [
    '## Typed clients: tsc on a 2,000-entity-type service',
    '',
    `A synthetic service spec (${ENTITY_TYPES.toLocaleString('en')} entity types of 20 properties, a to-one and a to-many navigation and a bound action each; ` +
      `${ENTITY_TYPES.toLocaleString('en')} entity sets; 100 unbound actions and functions; ${(spec.length / 1e6).toFixed(1)} MB of TypeScript), ` +
      'and a program using it: per set a select/filter/orderBy/expand read, a key/nav/navMany read, a create and a bound action; ' +
      'the "deep" rows add per set a read filtered and ordered through three to-one hops, with `any()` over a to-many navigation reached through a to-one one and an `expand` with nested `select` and `expand`. ' +
      '`tsc --noEmit --extendedDiagnostics` (strict), sluice compiled from source in each run. ' +
      'The untyped row is the same program with `od.from<Row>(...)`, without the spec.',
    '',
    '| program | check time | total time | memory | types |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
