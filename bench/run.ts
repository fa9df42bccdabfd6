// Runs the benchmarks and writes bench/RESULTS.md. `npm run bench` compiles them (bench/tsup.config.ts)
// and runs all; `npm run bench -- core` runs those whose name contains "core". Each suite is a module exporting `name` and `run()`, which
// returns a Markdown section (measurements in one run, reported as ratios where peers are compared).
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';

export interface BenchSuite {
  name: string;
  run(): Promise<string>;
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
  './cli-export.ts',
  './redis.ts',
];

const filter = process.argv[2];
const sections: string[] = [];
for (const file of suites) {
  const suite = (await import(import.meta.url.endsWith('.js') ? file.replace(/\.ts$/, '.js') : file)) as BenchSuite;
  if (filter && !suite.name.includes(filter)) continue;
  console.log(`# ${suite.name}`);
  const section = await suite.run();
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
].join('\n');
const results = new URL(import.meta.url.includes('/bench/.out/') ? '../RESULTS.md' : './RESULTS.md', import.meta.url);
if (!filter) await writeFile(results, header + '\n' + sections.join('\n\n') + '\n');
