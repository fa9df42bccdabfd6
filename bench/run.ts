// Runs the benchmarks and writes bench/RESULTS.md. `npm run bench` compiles them (bench/tsup.config.ts)
// and runs all; `npm run bench -- core` runs those whose name contains "core" (several names: any of them). Each suite is a module exporting `name` and `run()`, which
// returns a Markdown section (measurements in one run, reported as ratios where peers are compared), or the
// section with ratios for the chart (bench/results.svg, drawn from the suites that ran; see bench/chart.ts).
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { ratioChart, ratiosFromTable, type ChartRatio } from './chart.js';

export interface BenchSuite {
  name: string;
  run(): Promise<string | { markdown: string; ratios?: ChartRatio[] }>;
}

const suites: string[] = [
  './core-get.ts',
  './core-resilience.ts',
  './core-observability.ts',
  './oauth.ts',
  './odata-stream.ts',
  './odata-record-size.ts',
  './odata-writes.ts',
  './odata-batch.ts',
  './odata-peers.ts',
  './typed-client.ts',
  './codegen.ts',
  './cli-export.ts',
  './partitions.ts',
  './sink.ts',
  './redis.ts',
];

const filters = process.argv.slice(2);
const filter = filters.length > 0;
const sections: string[] = [];
const ratios: ChartRatio[] = [];
for (const file of suites) {
  const suite = (await import(import.meta.url.endsWith('.js') ? file.replace(/\.ts$/, '.js') : file)) as BenchSuite;
  if (filter && !filters.some((f) => suite.name.includes(f))) continue;
  console.log(`# ${suite.name}`);
  const result = await suite.run();
  const section = typeof result === 'string' ? result : result.markdown;
  // Suites that return plain Markdown join the chart through their `client` / `CPU per …` table, if they have one.
  ratios.push(...(typeof result === 'string' ? ratiosFromTable(result, suite.name) : (result.ratios ?? [])));
  console.log(section);
  sections.push(section);
}
const header = [
  '# Benchmark results',
  '',
  `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ` +
    `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}. Loopback only; the machine is shared and noisy, so compare ` +
    'the ratios of one run, not the absolute numbers across runs.',
  '',
  '![Client CPU per operation of each peer divided by sluice\'s, from this run](results.svg)',
  '',
].join('\n');
const results = new URL(import.meta.url.includes('/bench/.out/') ? '../RESULTS.md' : './RESULTS.md', import.meta.url);
if (!filter) await writeFile(results, header + '\n' + sections.join('\n\n') + '\n');
// The chart of what ran: bench/results.svg in a full run, bench/.out/results.svg (a preview) in a filtered one.
const chart = new URL(import.meta.url.includes('/bench/.out/') ? (filter ? './results.svg' : '../results.svg') : './results.svg', import.meta.url);
const subtitle = `npm run bench, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`;
if (ratios.length > 0) await writeFile(chart, ratioChart(ratios, subtitle));
