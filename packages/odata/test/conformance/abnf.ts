// Builds a parser from the OASIS OData ABNF construction rules with apg-js, at test time.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

interface ApgApi {
  errors: unknown[];
  generate(): void;
  errorsToAscii(): string;
  toObject(): unknown;
}
interface ApgLib {
  parser: new () => { parse(grammar: unknown, rule: string, chars: number[]): { success: boolean } };
  utils: { stringToChars(s: string): number[] };
}

const require = createRequire(import.meta.url);
const apg = require('apg-js') as { apgApi: new (source: string) => ApgApi; apgLib: ApgLib };

/** The vendored OData ABNF (odata-abnf-construction-rules.txt, OData 4.01): see odata-abnf/README.md. */
export const ABNF_FILE = fileURLToPath(new URL('./odata-abnf/odata-abnf-construction-rules.txt', import.meta.url));

let grammar: unknown;

function load(): unknown {
  if (grammar !== undefined) return grammar;
  if (!existsSync(ABNF_FILE)) throw new Error(`The OData ABNF is not at ${ABNF_FILE}: it is vendored in the repository under packages/odata/test/conformance/odata-abnf/`);
  const api = new apg.apgApi(readFileSync(ABNF_FILE, 'utf8'));
  api.generate();
  if (api.errors.length > 0) throw new Error(`The ABNF did not compile:\n${api.errorsToAscii()}`);
  grammar = api.toObject();
  return grammar;
}

/** Whether `text` matches ABNF rule `rule` completely. */
export function matches(rule: string, text: string): boolean {
  const parser = new apg.apgLib.parser();
  return parser.parse(load(), rule, apg.apgLib.utils.stringToChars(text)).success;
}
