/** One XML element: local name (prefix dropped), attributes by local name, children. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Decodes the five predefined entities and numeric character references. */
export function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (m, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return ENTITIES[ref] ?? m;
  });
}

function localName(qname: string): string {
  const colon = qname.indexOf(':');
  return colon < 0 ? qname : qname.slice(colon + 1);
}

const ATTR = /([^\s=]+)\s*=\s*("([^"]*)"|'([^']*)')/g;

/**
 * A small non-validating XML reader for EDMX and SAP error bodies: elements, attributes and text;
 * comments, processing instructions, doctype and CDATA handled; namespaces reduced to local names
 * (EDMX element names do not clash across its namespaces). Throws on unbalanced tags.
 */
export function parseXml(source: string): XmlElement {
  const root: XmlElement = { name: '#document', attrs: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  let pos = 0;
  while (pos < source.length) {
    const lt = source.indexOf('<', pos);
    const top = stack[stack.length - 1]!;
    if (lt < 0) { top.text += decodeXmlText(source.slice(pos)); break; }
    if (lt > pos) top.text += decodeXmlText(source.slice(pos, lt));
    if (source.startsWith('<!--', lt)) { pos = end(source, '-->', lt) ; continue; }
    if (source.startsWith('<?', lt)) { pos = end(source, '?>', lt); continue; }
    if (source.startsWith('<![CDATA[', lt)) {
      const close = source.indexOf(']]>', lt);
      if (close < 0) throw new SyntaxError('Unterminated CDATA section');
      top.text += source.slice(lt + 9, close);
      pos = close + 3;
      continue;
    }
    if (source.startsWith('<!', lt)) { pos = end(source, '>', lt); continue; }
    const gt = source.indexOf('>', lt);
    if (gt < 0) throw new SyntaxError('Unterminated tag');
    let body = source.slice(lt + 1, gt);
    pos = gt + 1;
    if (body.startsWith('/')) {
      const name = localName(body.slice(1).trim());
      const open = stack.pop();
      if (!open || open === root || open.name !== name) throw new SyntaxError(`Unexpected closing tag </${name}>`);
      continue;
    }
    const selfClosing = body.endsWith('/');
    if (selfClosing) body = body.slice(0, -1);
    const space = body.search(/\s/);
    const name = localName(space < 0 ? body : body.slice(0, space));
    const attrs: Record<string, string> = {};
    if (space >= 0) {
      for (const m of body.slice(space).matchAll(ATTR)) attrs[localName(m[1]!)] = decodeXmlText(m[3] ?? m[4] ?? '');
    }
    const element: XmlElement = { name, attrs, children: [], text: '' };
    top.children.push(element);
    if (!selfClosing) stack.push(element);
  }
  if (stack.length !== 1) throw new SyntaxError(`Unclosed element <${stack[stack.length - 1]!.name}>`);
  return root;
}

function end(source: string, marker: string, from: number): number {
  const at = source.indexOf(marker, from);
  if (at < 0) throw new SyntaxError(`Unterminated ${marker}`);
  return at + marker.length;
}

/** Children of `el` named `name`. */
export function childrenNamed(el: XmlElement, name: string): XmlElement[] {
  return el.children.filter((c) => c.name === name);
}

/** Descendants of `el` named `name`, depth first. */
export function descendants(el: XmlElement, name: string, out: XmlElement[] = []): XmlElement[] {
  for (const child of el.children) {
    if (child.name === name) out.push(child);
    descendants(child, name, out);
  }
  return out;
}
