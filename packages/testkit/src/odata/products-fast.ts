// Fast path for the benchmark case: whole Products rows (no $select/$expand) written straight from
// the row index with one template per row. Must render exactly what the generic writers render;
// the test suite compares both.
import { categoryOf, guidOf, priceCentsOf, releaseMsOf, stockOf } from './data.js';
import { centsText, isoOf } from './model.js';

const RATING_TEXT = Array.from({ length: 50 }, (_, n) => String(n / 10));

/** JSON text of the Name and Description of product i (`s` is i as text), already escaped. */
function texts(i: number, s: string): [string, string] {
  const name = i % 7 === 0 ? `"O'Brien ${s}"` : `"Product ${s}"`;
  const desc = i % 5 === 0 ? 'null' : i % 3 === 0 ? `"Description of \\"${s}\\" – ünïcødé"` : `"Description of product ${s}"`;
  return [name, desc];
}

/** v4 JSON of product `i` with every property; Int64/Decimal quoted when `ieee`. */
export function productJsonV4(i: number, ieee: boolean): string {
  const s = String(i);
  const [name, desc] = texts(i, s);
  const price = centsText(priceCentsOf(i));
  const stock = stockOf(i);
  return `{"ID":${s},"Name":${name},"Description":${desc},"Price":${ieee ? `"${price}"` : price},` +
    `"Stock":${ieee ? `"${stock}"` : stock},"Rating":${RATING_TEXT[(i * 37) % 50] as string},"Active":${i % 3 !== 0},` +
    `"ReleaseDate":"${isoOf(releaseMsOf(i))}","Guid":"${guidOf(i)}","CategoryID":${categoryOf(i)}}`;
}

/** v2 verbose JSON of product `i` with every property and the deferred Category link; `root` is JSON-safe. */
export function productJsonV2(i: number, root: string): string {
  const s = String(i);
  const [name, desc] = texts(i, s);
  const uri = `${root}Products(${s})`;
  return `{"__metadata":{"id":"${uri}","uri":"${uri}","type":"Demo.Product"},"ID":${s},"Name":${name},` +
    `"Description":${desc},"Price":"${centsText(priceCentsOf(i))}","Stock":"${stockOf(i)}",` +
    `"Rating":"${RATING_TEXT[(i * 37) % 50] as string}","Active":${i % 3 !== 0},"ReleaseDate":"\\/Date(${releaseMsOf(i)})\\/",` +
    `"Guid":"${guidOf(i)}","CategoryID":${categoryOf(i)},"Category":{"__deferred":{"uri":"${uri}/Category"}}}`;
}
