import { SaxesParser, type SaxesTagNS } from 'saxes';
import { MetadataParseError } from './parse-error.js';

/** One XML element: local name (prefix dropped), namespace URI, attributes by local name, children. */
export interface XmlElement {
  name: string;
  /** Namespace URI of the element ('' when none). */
  ns: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Text and CDATA directly inside the element, entities decoded. */
  text: string;
  /** 1-based line of the element's start tag in the document (where the tag ends, for one spread over lines). */
  line?: number | undefined;
}

/**
 * Builds an element tree from XML fed in chunks (so a multi-MB `$metadata` never needs to be one
 * string), on saxes: a conforming, non-validating parser that resolves namespaces, decodes entities and
 * character references, and skips comments, processing instructions and the doctype (no external
 * entities are ever loaded). Any well-formedness error is a {@link MetadataParseError} with position.
 * Elements `skip` answers true for are dropped with everything inside them, which saves memory on
 * documents whose bulk is annotations nobody reads.
 */
export class XmlTreeBuilder {
  readonly root: XmlElement = { name: '#document', ns: '', attrs: {}, children: [], text: '' };
  private readonly parser = new SaxesParser({ xmlns: true, position: true });
  private readonly stack: XmlElement[] = [this.root];
  /** Depth inside a skipped element (0: keeping). */
  private skipping = 0;
  /** Still before the first character that is not white space (or a byte order mark). */
  private leading = true;
  /** Line breaks dropped before the first character, added back to reported lines. */
  private droppedLines = 0;

  constructor(private readonly document: string, private readonly skip: (el: XmlElement) => boolean = () => false) {
    const p = this.parser;
    p.on('error', (err) => {
      throw new MetadataParseError(document, err.message.replace(/^\d+:\d+: /, ''), { line: p.line + this.droppedLines, column: p.column });
    });
    p.on('opentag', (tag) => this.open(tag));
    p.on('closetag', () => {
      if (this.skipping > 0) this.skipping--;
      else this.stack.pop();
    });
    const text = (t: string): void => {
      if (this.skipping === 0) this.stack[this.stack.length - 1]!.text += t;
    };
    p.on('text', text);
    p.on('cdata', text);
  }

  private open(tag: SaxesTagNS): void {
    // saxes reports a closetag for self-closing tags too, so every open is balanced by a close.
    if (this.skipping > 0) {
      this.skipping++;
      return;
    }
    const attrs: Record<string, string> = {};
    for (const a of Object.values(tag.attributes)) {
      if (a.prefix === 'xmlns' || a.name === 'xmlns') continue;
      attrs[a.local] = a.value;
    }
    const el: XmlElement = { name: tag.local, ns: tag.uri, attrs, children: [], text: '', line: this.parser.line + this.droppedLines };
    if (this.stack.length > 1 && this.skip(el)) {
      this.skipping = 1;
      return;
    }
    this.stack[this.stack.length - 1]!.children.push(el);
    this.stack.push(el);
  }

  /**
   * Feeds the next piece of the document. White space and a byte order mark before the first markup are
   * dropped: XML allows no white space before `<?xml ...?>`, yet services send it (Northwind's v4
   * `$metadata` starts with a line break), and nothing is lost by reading past it.
   */
  write(chunk: string): void {
    if (this.leading) {
      const start = chunk.search(/[^\s\uFEFF]/);
      const dropped = start < 0 ? chunk : chunk.slice(0, start);
      for (let i = dropped.indexOf('\n'); i >= 0; i = dropped.indexOf('\n', i + 1)) this.droppedLines++;
      if (start < 0) return;
      this.leading = false;
      chunk = chunk.slice(start);
    }
    this.parser.write(chunk);
  }

  /** Ends the document; throws if it is incomplete or has no root element. */
  close(): XmlElement {
    this.parser.close();
    if (this.root.children.length === 0) throw new MetadataParseError(this.document, 'the document has no root element');
    return this.root;
  }
}

/** Parses a whole XML document held as a string (see {@link XmlTreeBuilder}). */
export function parseXml(source: string, document = 'the XML document', skip?: (el: XmlElement) => boolean): XmlElement {
  const builder = new XmlTreeBuilder(document, skip);
  builder.write(source);
  return builder.close();
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
