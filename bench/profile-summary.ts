// Not a suite of `npm run bench`: groups the samples of a V8 CPU profile (`node --cpu-prof`) by where the time went.
//   node bench/.out/profile-summary.js <file.cpuprofile> [top]
// Prints self time per group (garbage collection, JSON.parse, the stream scanner, socket reads, ...) and the `top`
// functions by self time, each as a share of all samples. V8 samples wall-clock time: JSON.parse and decoding that a
// builtin inlines are counted in their caller (the bundled `parseRun`, `handLoop`).
import { readFileSync } from 'node:fs';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** The group of a function: by name for V8's own entries and builtins, by file for JavaScript. */
function groupOf(fn: string, url: string): string {
  if (fn === '(garbage collector)') return 'garbage collection';
  if (fn === '(idle)') return 'idle';
  if (fn === '(program)') return 'V8 and native, not attributed (program)';
  if (fn === 'parse' && url === '') return 'JSON.parse';
  // Request heads written to the socket: V8 samples wall-clock time, so a write that wakes the server (and loses the CPU
  // to it) shows here far beyond its CPU cost on a loaded machine.
  if (fn === 'writeLatin1String') return 'socket writes (request heads)';
  if (url === '') return `native: ${fn || '(anonymous)'}`;
  if (url.includes('node:internal/streams') || url.includes('node:stream')) return 'node streams';
  if (url.includes('node:net') || url.includes('node:internal/stream_base')) return 'socket reads (node:net)';
  if (url.includes('node:')) return `node internals (${url.replace(/^node:(internal\/)?/, '').split('/')[0]})`;
  if (url.includes('undici')) return `undici (${url.split('/').at(-1)})`;
  const file = url.split('/').at(-1) ?? url;
  return `js: ${file}`;
}

const [file, top = '25'] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: profile-summary <file.cpuprofile> [top]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + dt);
  total += dt;
}
const groups = new Map<string, number>();
const fns = new Map<string, number>();
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const g = groupOf(functionName, url);
  groups.set(g, (groups.get(g) ?? 0) + us);
  const key = `${functionName || '(anonymous)'} ${url.split('/').at(-1) ?? ''}:${lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + us);
}
const idle = groups.get('idle') ?? 0;
const busy = total - idle;
const pct = (us: number): string => `${((us / busy) * 100).toFixed(1)}%`;
console.log(`${(busy / 1000).toFixed(0)} ms busy of ${(total / 1000).toFixed(0)} ms sampled (idle left out of the shares)`);
console.log('\nby group:');
for (const [g, us] of [...groups].filter(([g]) => g !== 'idle').sort((a, b) => b[1] - a[1])) console.log(`  ${pct(us).padStart(6)}  ${g}`);
console.log(`\ntop ${top} functions by self time:`);
for (const [f, us] of [...fns].filter(([f]) => !f.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, Number(top))) console.log(`  ${pct(us).padStart(6)}  ${f}`);
