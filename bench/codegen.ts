// sluice generate: generation time and output bytes per document, and what the output costs `tsc`. The
// vendored documents (TripPin, the hand-written v2/v4 ones) and one large SYNTHETIC EDMX made here, shaped
// like Microsoft Graph's v1.0 CSDL (thousands of entity and complex types, hundreds of enums, bound
// operations, annotations): Graph's own document (tens of MB) could not be fetched in the session that wrote
// this, and no npm package ships it. A program using two sets of the large output is compiled with
// `tsc --noEmit --extendedDiagnostics` (strict), sluice from source, for time and memory. The SAP Cloud SDK
// generator (bench/peers/, installed on first use) runs on the same documents as a child process, as its
// users run it; @odata2ts/odata2ts is not compared yet.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from '@sluice/codegen';
import { ensurePeers, peersDir } from './peers/install.js';

export const name = 'codegen';

const root = fileURLToPath(new URL(import.meta.url.includes('/bench/.out/') ? '../../' : '../', import.meta.url));
const dir = `${root}bench/.out/codegen/`;
const ENTITY_TYPES = Number(process.env.BENCH_CODEGEN_TYPES ?? 3000);
/** The synthetic document the SAP generator is given (it is far slower: the large one would take minutes). */
const PEER_TYPES = Number(process.env.BENCH_CODEGEN_PEER_TYPES ?? 300);

const PRIMITIVES = ['Edm.String', 'Edm.Int32', 'Edm.Decimal', 'Edm.Int64', 'Edm.Boolean', 'Edm.DateTimeOffset', 'Edm.Guid', 'Edm.Double', 'Edm.Date', 'Edm.Binary'];

/** A synthetic EDMX 4.0 document of `n` entity types, n/2 complex types, n/10 enums and a bound action per type. */
export function syntheticEdmx(n: number): string {
  const out: string[] = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">',
    '<edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml"><edmx:Include Namespace="Org.OData.Core.V1" Alias="Core"/></edmx:Reference>',
    '<edmx:DataServices><Schema Namespace="synthetic.graph" Alias="graph" xmlns="http://docs.oasis-open.org/odata/ns/edm">',
  ];
  const enums = Math.max(1, Math.floor(n / 10));
  const complex = Math.max(1, Math.floor(n / 2));
  for (let e = 0; e < enums; e++) {
    out.push(`<EnumType Name="enum${e}">${Array.from({ length: 8 }, (_, m) => `<Member Name="value${m}" Value="${m}"/>`).join('')}</EnumType>`);
  }
  for (let c = 0; c < complex; c++) {
    out.push(`<ComplexType Name="complex${c}" OpenType="true">`);
    for (let p = 0; p < 8; p++) out.push(`<Property Name="field${p}" Type="${PRIMITIVES[(c + p) % PRIMITIVES.length]}"><Annotation Term="Core.Description" String="Field ${p} of complex ${c}."/></Property>`);
    out.push('</ComplexType>');
  }
  out.push('<EntityType Name="entity" Abstract="true"><Key><PropertyRef Name="id"/></Key><Property Name="id" Type="Edm.String" Nullable="false"/></EntityType>');
  for (let i = 0; i < n; i++) {
    out.push(`<EntityType Name="type${i}" BaseType="graph.entity" OpenType="true">`);
    out.push(`<Annotation Term="Core.Description" String="Synthetic entity type ${i}, shaped like a Graph resource."/>`);
    for (let p = 0; p < 20; p++) {
      out.push(`<Property Name="prop${p}" Type="${PRIMITIVES[(i + p) % PRIMITIVES.length]}"${p % 4 === 0 ? ' Nullable="false"' : ''}><Annotation Term="Core.Description" String="Property ${p} of type ${i}."/></Property>`);
    }
    out.push(`<Property Name="status" Type="graph.enum${i % enums}"/>`, `<Property Name="details" Type="Collection(graph.complex${i % complex})"/>`);
    out.push(`<NavigationProperty Name="owner" Type="graph.type${(i + 1) % n}"/>`, `<NavigationProperty Name="members" Type="Collection(graph.type${(i * 7 + 3) % n})" ContainsTarget="true"/>`);
    out.push('</EntityType>');
    out.push(`<Action Name="act${i}" IsBound="true"><Parameter Name="bindingParameter" Type="graph.type${i}"/><Parameter Name="value" Type="Edm.Int32" Nullable="false"/><ReturnType Type="graph.type${i}"/></Action>`);
    out.push(`<Function Name="delta" IsBound="true"><Parameter Name="bindingParameter" Type="Collection(graph.type${i})"/><ReturnType Type="Collection(graph.type${i})"/></Function>`);
  }
  out.push('<EntityContainer Name="GraphService">');
  for (let i = 0; i < n; i++) out.push(`<EntitySet Name="set${i}" EntityType="graph.type${i}"/>`);
  out.push('<Singleton Name="me" Type="graph.type0"/>', '</EntityContainer></Schema></edmx:DataServices></edmx:Edmx>');
  return out.join('\n');
}

function measure(label: string, text: string): { row: string; output: string } {
  generate(text, { source: label }); // warm-up
  const start = performance.now();
  const output = generate(text, { source: label });
  const ms = performance.now() - start;
  const mb = Buffer.byteLength(text) / 1e6;
  return { row: `| ${label} | ${mb.toFixed(2)} MB | ${ms.toFixed(0)} ms | ${(ms / 1000 / mb).toFixed(2)} s | ${(Buffer.byteLength(output) / 1e6).toFixed(2)} MB |`, output };
}

/** Bytes of every file under `path`. */
function bytesIn(path: string): number {
  return readdirSync(path).reduce((sum, f) => {
    const full = join(path, f);
    return sum + (statSync(full).isDirectory() ? bytesIn(full) : statSync(full).size);
  }, 0);
}

/** sluice in-process vs `@sap-cloud-sdk/generator` as a child process (its CLI, `--skipValidation`), on one document. */
function peerRow(label: string, text: string): string {
  generate(text, { source: label });
  const start = performance.now();
  const ours = Buffer.byteLength(generate(text, { source: label }));
  const oursMs = performance.now() - start;
  const input = `${dir}sap-in/`;
  const output = `${dir}sap-out/`;
  rmSync(input, { recursive: true, force: true });
  rmSync(output, { recursive: true, force: true });
  mkdirSync(input, { recursive: true });
  writeFileSync(`${input}service.edmx`, text);
  const cli = join(peersDir, 'node_modules', '@sap-cloud-sdk', 'generator', 'dist', 'cli.js');
  const t0 = performance.now();
  const res = spawnSync(process.execPath, [cli, '-i', input, '-o', output, '--skipValidation', '--overwrite'], { encoding: 'utf8' });
  const sapMs = performance.now() - t0;
  const sap = res.status === 0 ? `${sapMs.toFixed(0)} ms | ${(bytesIn(output) / 1e3).toFixed(0)} kB` : `failed (exit ${res.status}) | -`;
  return `| ${label} | ${oursMs.toFixed(0)} ms | ${(ours / 1e3).toFixed(0)} kB | ${sap} |`;
}

function tsc(main: string): { total: number; memory: number } {
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
  const num = (l: string): number => Number(new RegExp(`^${l}:\\s+([\\d.]+)`, 'm').exec(text)?.[1] ?? NaN);
  return { total: num('Total time'), memory: num('Memory used') / 1024 };
}

export async function run(): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const fixtures = `${root}packages/codegen/test/fixtures/`;
  const rows = [
    measure('TripPin (vendored)', readFileSync(`${fixtures}trippin/trippin.xml`, 'utf8')).row,
    measure('features-v2 (hand-written, SAP style)', readFileSync(`${fixtures}handmade/features-v2.xml`, 'utf8')).row,
  ];
  const edmx = syntheticEdmx(ENTITY_TYPES);
  const large = measure(`SYNTHETIC Graph-like, ${ENTITY_TYPES.toLocaleString('en')} entity types`, edmx);
  rows.push(large.row);
  writeFileSync(`${dir}service.ts`, large.output);
  writeFileSync(`${dir}use.ts`, [
    "import { createODataClient } from '@sluice/odata';",
    "import type { Service } from './service.js';",
    "const od = createODataClient<Service>({ serviceURL: 'http://127.0.0.1:9/svc/', version: '4.0' });",
    'export async function use(): Promise<unknown[]> {',
    "  return [await od.from('set1').select('id', 'prop1').filter((f) => f.eq('prop1', 1)).expand('owner').top(5).list(),",
    "    await od.from('set2').key('a').action('synthetic.graph.act2', { value: 1 }).execute(), await od.singleton('me').get()];",
    '}', '',
  ].join('\n'));
  const t = tsc(`${dir}use.ts`);
  ensurePeers();
  const peers = [
    peerRow('TripPin', readFileSync(`${fixtures}trippin/trippin.xml`, 'utf8')),
    peerRow('ODataDemo v2', readFileSync(`${fixtures}odata-demo-v2/odata-v2.xml`, 'utf8')),
    peerRow('features-v2 (SAP style)', readFileSync(`${fixtures}handmade/features-v2.xml`, 'utf8')),
    // Namespace-qualified names: the SAP generator does not resolve the schema alias (`graph.type0`) of entity sets.
    peerRow(`SYNTHETIC, ${PEER_TYPES} entity types`, syntheticEdmx(PEER_TYPES).replace(/"graph\./g, '"synthetic.graph.')),
  ];
  return [
    '## sluice generate: generation time, output bytes, tsc',
    '',
    'Generation of the types from each document (after one warm-up run), the bytes written (types only: an application bundle gains 0 bytes). ' +
      `The large document is SYNTHETIC, made by bench/codegen.ts in the shape of Microsoft Graph's v1.0 CSDL (${ENTITY_TYPES.toLocaleString('en')} entity types ` +
      `of 22 properties with descriptions, ${Math.floor(ENTITY_TYPES / 2).toLocaleString('en')} complex types, ${Math.floor(ENTITY_TYPES / 10)} enums, a bound action and an overloaded ` +
      'bound function per type, open and abstract types, contained navigation); Graph\'s own document could not be fetched. Target: under 1 s per MB.',
    '',
    '| document | size | generation | per MB | output |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `\`tsc --noEmit\` (strict) of a program reading two sets and a singleton of the large output: ${t.total.toFixed(2)} s total, ${t.memory.toFixed(0)} MB memory (target: under 2 GB).`,
    '',
    'The same documents through `@sap-cloud-sdk/generator` 4.5.1 (its CLI as a child process, `--skipValidation`; the time includes its Node start-up, ' +
      'sluice\'s is in-process after a warm-up). Its output is TypeScript that runs (request builders, entity classes): an application ships it; sluice\'s is types only. ' +
      'It fails on features-v2, whose association `assoc_Order_Partner` has no association set ("Unable to find the association"), and on the synthetic document as written, which names types through its schema alias ("Could not find entity type \'graph.type0\'"); the synthetic row gives it namespace-qualified names.',
    '',
    '| document | sluice | sluice output | SAP generator | SAP output |',
    '|---|---|---|---|---|',
    ...peers,
  ].join('\n');
}
