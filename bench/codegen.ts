// sluice generate against @sap-cloud-sdk/generator and @odata2ts/odata2ts (bench/peers/, installed on first
// use, run as child processes as their users run them) on the same documents: the vendored real ones
// (TripPin, ODataDemo, two SAP S/4HANA Cloud APIs) and SYNTHETIC EDMX made here in the shape of Microsoft
// Graph's v1.0 CSDL (thousands of entity and complex types, hundreds of enums, bound operations, annotations):
// Graph's own document (tens of MB) could not be fetched in the session that wrote this, and no npm package
// ships it. For each: generation time, bytes written, and `tsc --noEmit --extendedDiagnostics` (strict, skipLibCheck) of a
// small program using the output: time, heap, peak RSS, and the part the generated types add (the program minus
// the same program without them: sluice's untyped client, a peer's runtime packages alone). Peers on the 12 MB document only with
// BENCH_CODEGEN_PEERS_LARGE=1 (minutes each; BENCH_CODEGEN_PEER_TIMEOUT seconds, default 600). BENCH_CODEGEN_DOCS
// (slugs, comma-separated) runs only some documents.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generate } from '@sluice/codegen';
import { peerBaselineProgram, peerProgram, peerWork, runPeer, tscBest, type GenRun, type Generator, type TscRun } from './codegen-peers.js';
import { ensurePeers } from './peers/install.js';

export const name = 'codegen';

const root = fileURLToPath(new URL(import.meta.url.includes('/bench/.out/') ? '../../' : '../', import.meta.url));
const dir = `${root}bench/.out/codegen/`;
const ENTITY_TYPES = Number(process.env.BENCH_CODEGEN_TYPES ?? 3000);
/** The smaller synthetic document, which the peers are given too. */
const PEER_TYPES = Number(process.env.BENCH_CODEGEN_PEER_TYPES ?? 300);
const PEERS_LARGE = process.env.BENCH_CODEGEN_PEERS_LARGE === '1';
const PEER_TIMEOUT_MS = Number(process.env.BENCH_CODEGEN_PEER_TIMEOUT ?? 600) * 1000;
const rootTsc = `${root}node_modules/typescript/bin/tsc`;
/**
 * tsc runs per program on documents under 1 MB and for the untyped baselines (the fastest counts: the generated
 * types' part of a small program is well under a second, less than one run's spread on a busy machine); one run
 * on larger documents. BENCH_CODEGEN_TSC_RUNS changes it.
 */
const TSC_RUNS = Number(process.env.BENCH_CODEGEN_TSC_RUNS ?? 3);
const runsFor = (mb: number): number => (mb < 1 ? TSC_RUNS : 1);

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

interface Doc { label: string; slug: string; text: string; peers: boolean; program?: (set: string) => string }

/** The program tsc checks for sluice's output: a client typed by the generated Service, one query. */
function sluiceProgram(slug: string, set: string): string {
  return [
    "import { createODataClient } from '@sluice/odata';",
    `import type { Service } from './${slug}.js';`,
    "const od = createODataClient<Service>({ serviceURL: 'http://127.0.0.1:9/svc/' });",
    `export const rows = (): Promise<unknown> => od.from(${JSON.stringify(set)}).top(5).list();`,
    '',
  ].join('\n');
}

/** The program of the large synthetic output: selects, filters, expands, a bound action, a singleton. */
function largeProgram(slug: string): string {
  return [
    "import { createODataClient } from '@sluice/odata';",
    `import type { Service } from './${slug}.js';`,
    "const od = createODataClient<Service>({ serviceURL: 'http://127.0.0.1:9/svc/', version: '4.0' });",
    'export async function use(): Promise<unknown[]> {',
    "  return [await od.from('set1').select('id', 'prop1').filter((f) => f.eq('prop1', 1)).expand('owner').top(5).list(),",
    "    await od.from('set2').key('a').action('synthetic.graph.act2', { value: 1 }).execute(), await od.singleton('me').get()];",
    '}', '',
  ].join('\n');
}

// sluice's program compiles against the declaration files of the published packages (dist/, built by run()),
// as an application does, like the peers' programs against theirs; with the same `types: []` as theirs (no
// global @types package unless a declaration file references it: @sluice/core's and @sluice/odata's reference
// none, the peers' runtimes reference @types/node).
const SLUICE_TSC = {
  target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext',
  types: [], baseUrl: root,
  paths: { '@sluice/core': ['packages/core/dist/index.d.ts'], '@sluice/odata': ['packages/odata/dist/index.d.ts'] },
};

/** Builds @sluice/core and @sluice/odata (tsup, with their .d.ts files). */
function buildDeclarations(): void {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const res = spawnSync(npm, ['run', 'build', '-w', '@sluice/core', '-w', '@sluice/odata'], { cwd: root, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`building @sluice/core and @sluice/odata failed: ${(res.stderr || res.stdout).slice(-2000)}`);
}
const PEER_TSC = { target: 'ES2022', module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true, types: [] };

const ratio = (a: number, b: number): string => (b > 0 ? (a / b).toFixed(2) : '-');
const ms = (n: number): string => `${n >= 10_000 ? (n / 1000).toFixed(1) + ' s' : n.toFixed(0) + ' ms'}`;
const kb = (n: number): string => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} MB` : `${(n / 1e3).toFixed(0)} kB`);
const tscCell = (t: TscRun): string => `${t.seconds.toFixed(1)} s, ${t.peakRssMB.toFixed(0)} MB${t.errors > 0 ? ` (${t.errors} errors, ${t.firstError.slice(0, 6)})` : ''}`;

interface PeerRun { gen: GenRun; tsc?: TscRun; baseline?: TscRun | undefined }
interface Row { doc: Doc; mb: number; sluiceMs: number; sluiceBytes: number; sluiceTsc: TscRun; peers: Partial<Record<Generator, PeerRun>> }

/** What the generated types add to a tsc run: seconds and peak RSS over the program without them. */
const added = (t: TscRun, base: TscRun | undefined): string => (base === undefined ? '-' : `+${(t.seconds - base.seconds).toFixed(1)} s, +${(t.peakRssMB - base.peakRssMB).toFixed(0)} MB, +${(t.types - base.types).toLocaleString('en')} types`);

/** Untyped baselines of the peers, by their program's text (the same runtime packages give the same program). */
const peerBaselines = new Map<string, TscRun>();

function sluiceRun(doc: Doc): Omit<Row, 'peers'> {
  generate(doc.text, { source: doc.slug }); // warm-up
  const t0 = performance.now();
  const output = generate(doc.text, { source: doc.slug });
  const sluiceMs = performance.now() - t0;
  writeFileSync(`${dir}${doc.slug}.ts`, output);
  const set = /entitySets: \{\n\s+"?([^":]+)"?:/.exec(output)?.[1] ?? '';
  writeFileSync(`${dir}use-${doc.slug}.ts`, doc.program ? doc.program(set) : sluiceProgram(doc.slug, set));
  const sluiceTsc = tscBest(runsFor(Buffer.byteLength(doc.text) / 1e6), dir, `${dir}use-${doc.slug}.ts`, SLUICE_TSC, rootTsc);
  return { doc, mb: Buffer.byteLength(doc.text) / 1e6, sluiceMs, sluiceBytes: Buffer.byteLength(output), sluiceTsc };
}

function peerRun(doc: Doc, generator: Generator): PeerRun {
  const gen = runPeer(generator, doc.slug, doc.text, PEER_TIMEOUT_MS);
  console.log(`codegen: ${generator} on ${doc.slug}: ${gen.ok ? `${ms(gen.ms)}, ${kb(gen.bytes)}` : gen.why}`);
  if (!gen.ok) return { gen };
  const run = tscBest(runsFor(Buffer.byteLength(doc.text) / 1e6), peerWork, peerProgram(doc.slug, generator, gen.entry), PEER_TSC, rootTsc);
  const untyped = peerBaselineProgram(doc.slug, generator, gen.entry);
  let baseline: TscRun | undefined;
  if (untyped !== undefined) {
    const text = readFileSync(untyped, 'utf8');
    baseline = peerBaselines.get(text) ?? tscBest(TSC_RUNS, peerWork, untyped, PEER_TSC, rootTsc);
    peerBaselines.set(text, baseline);
  }
  return { gen, tsc: run, baseline };
}

export async function run(): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const fixtures = `${root}packages/codegen/test/fixtures/`;
  const file = (path: string): string => readFileSync(`${fixtures}${path}`, 'utf8');
  const docs: Doc[] = [
    { label: 'TripPin (real, v4)', slug: 'trippin', text: file('trippin/trippin.xml'), peers: true },
    { label: 'ODataDemo (real, v2)', slug: 'odata-demo-v2', text: file('odata-demo-v2/odata-v2.xml'), peers: true },
    { label: 'S/4HANA API_ENTERPRISE_PROJECT_SRV (real, v2)', slug: 's4-enterprise-project', text: file('s4hana/S4HC_API_ENTERPRISE_PROJECT_SRV_0002.edmx'), peers: true },
    { label: 'S/4HANA CE_SALESORDER_0001 (real, OData 4.01)', slug: 's4-sales-order', text: file('s4hana/S4HC_CE_SALESORDER_0001.edmx'), peers: true },
    { label: 'S/4HANA API_ENTPROJECTPROFILECODE (real, v4)', slug: 's4-profile-code', text: file('s4hana/S4HC_ENTPROJECTPROFILECODE_0001.edmx'), peers: true },
    // Namespace-qualified names: the SAP generator does not resolve the schema alias (`graph.type0`) of entity sets.
    { label: `SYNTHETIC Graph-like, ${PEER_TYPES.toLocaleString('en')} entity types`, slug: `synthetic-${PEER_TYPES}`, text: syntheticEdmx(PEER_TYPES).replace(/"graph\./g, '"synthetic.graph.'), peers: true },
    { label: `SYNTHETIC Graph-like, ${ENTITY_TYPES.toLocaleString('en')} entity types`, slug: `synthetic-${ENTITY_TYPES}`, text: syntheticEdmx(ENTITY_TYPES).replace(/"graph\./g, '"synthetic.graph.'), peers: PEERS_LARGE, program: () => largeProgram(`synthetic-${ENTITY_TYPES}`) },
  ];
  // BENCH_CODEGEN_DOCS=slug,slug runs only those documents.
  const only = process.env.BENCH_CODEGEN_DOCS?.split(',');
  if (only) docs.splice(0, docs.length, ...docs.filter((d) => only.includes(d.slug)));
  ensurePeers();
  buildDeclarations();
  // The same client code untyped, without generated types: what the client's own declarations cost alone.
  writeFileSync(`${dir}use-untyped.ts`, "import { createODataClient } from '@sluice/odata';\nconst od = createODataClient({ serviceURL: 'http://127.0.0.1:9/svc/' });\nexport const rows = (): Promise<unknown> => od.from('People').top(5).list();\n");
  const baseline = tscBest(TSC_RUNS, dir, `${dir}use-untyped.ts`, SLUICE_TSC, rootTsc);
  const rows: Row[] = [];
  for (const doc of docs) {
    const row: Row = { ...sluiceRun(doc), peers: {} };
    console.log(`codegen: sluice on ${doc.slug}: ${ms(row.sluiceMs)}, ${kb(row.sluiceBytes)}, tsc ${tscCell(row.sluiceTsc)} (types ${added(row.sluiceTsc, baseline)})`);
    if (doc.peers) for (const g of ['sap', 'odata2ts'] as const) row.peers[g] = peerRun(doc, g);
    rows.push(row);
  }
  const peerCells = (r: Row, g: Generator): string => {
    const p = r.peers[g];
    if (p === undefined) return 'not run | - | -';
    if (!p.gen.ok) return `failed: ${p.gen.why} | - | -`;
    return `${ms(p.gen.ms)} | ${kb(p.gen.bytes)} | ${p.tsc ? `${tscCell(p.tsc)}; types ${added(p.tsc, p.baseline)}` : '-'}`;
  };
  // sluice against SAP: output bytes, whole tsc time, and the tsc time the generated types add (each over its own untyped baseline).
  const ratios = (r: Row): string => {
    const sap = r.peers.sap;
    if (sap === undefined || !sap.gen.ok || sap.tsc === undefined) return '- | - | -';
    const typesOnly = sap.baseline === undefined ? '-'
      : `${ratio(r.sluiceTsc.seconds - baseline.seconds, sap.tsc.seconds - sap.baseline.seconds)} (types created: ${ratio(r.sluiceTsc.types - baseline.types, sap.tsc.types - sap.baseline.types)})`;
    return `${ratio(r.sluiceBytes, sap.gen.bytes)} | ${ratio(r.sluiceTsc.seconds, sap.tsc.seconds)} | ${typesOnly}`;
  };
  return [
    '## sluice generate against the SAP Cloud SDK generator and odata2ts',
    '',
    'Each generator on the same documents: generation time, bytes written, and `tsc --noEmit` (strict, skipLibCheck, TypeScript ' +
      `${readVersion()}) of a small program using the output, with its time and the peak RSS of the tsc process. sluice generates in-process ` +
      '(after a warm-up run; per MB of EDMX in the second column); the peers run as their CLI in a child process, as their users run them, so ' +
      'their time includes Node start-up. sluice writes types only (an application bundle gains 0 bytes); the peers write TypeScript that an ' +
      'application compiles and ships. The sluice program creates a client typed by the generated `Service` and makes one query, against the declaration ' +
      `files of @sluice/core and @sluice/odata as published (the same program untyped, without generated types: ${tscCell(baseline)}). A peer's ` +
      'program imports everything its generated entry module exports (SAP: the service `index.ts`; odata2ts: the `*Service.ts` of `--mode service`); ' +
      'its untyped baseline imports only the runtime packages the generated code imports. Every program compiles with `types: []` (a declaration ' +
      'file that references `@types/node` loads it). "types" is what the generated types add: the program minus its untyped baseline. ' +
      'The last three columns are sluice over SAP: output bytes, whole tsc time, tsc time the generated types add. On documents under 1 MB ' +
      `each tsc time is the fastest of ${TSC_RUNS} runs (and each baseline's); the count of types tsc created does not depend on the machine's load. ` +
      'The large documents are SYNTHETIC (bench/codegen.ts, shaped like Microsoft Graph\'s v1.0 CSDL: entity types of 22 properties with ' +
      'descriptions, half as many complex types, a tenth as many enums, a bound action and an overloaded bound function per type, open and ' +
      'abstract types, contained navigation; namespace-qualified names, as the SAP generator does not resolve schema aliases).',
    '',
    '| document | EDMX | sluice: generation (per MB) | sluice: output | sluice: tsc | SAP generator | SAP output | SAP: tsc | odata2ts | odata2ts output | odata2ts: tsc | sluice/SAP output | sluice/SAP tsc | sluice/SAP tsc of the types |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.doc.label} | ${kb(r.mb * 1e6)} | ${ms(r.sluiceMs)} (${(r.sluiceMs / 1000 / r.mb).toFixed(2)} s) | ${kb(r.sluiceBytes)} | ${tscCell(r.sluiceTsc)}; types ${added(r.sluiceTsc, baseline)} | ${peerCells(r, 'sap')} | ${peerCells(r, 'odata2ts')} | ${ratios(r)} |`),
  ].join('\n');
}

function readVersion(): string {
  return (JSON.parse(readFileSync(`${root}node_modules/typescript/package.json`, 'utf8')) as { version: string }).version;
}
