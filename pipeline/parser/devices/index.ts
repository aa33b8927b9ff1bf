// Device formats as one parser: a line goes to the first format (files in
// name order, formats in file order) whose marker it contains (or, for a
// format without markers, whose vendor the artifact's source names) and whose
// start pattern finds its payload. One pattern of all markers answers detect().
import type { EventFields, FormatParser, ParseContext } from '../types.js';
import { LiteralIndex } from '../literal-index.js';
import { readWithFormat } from './read.js';
import { loadVendors, type CompiledFormat, type Vendor } from './spec.js';
import { escapeRegExp } from '../../../lib/regex-escape.js';

export class DeviceCatalogue {
  private readonly formats: CompiledFormat[];
  private readonly anyMarker: RegExp;
  /** Which formats' markers a line holds, found in one pass over it. */
  private readonly markerIndex = new LiteralIndex<CompiledFormat>();
  private readonly sources: Set<string>;

  constructor(readonly vendors: Vendor[]) {
    this.formats = vendors.flatMap((v) => v.formats);
    const markers = [...new Set(this.formats.flatMap((f) => f.markers))];
    this.anyMarker = new RegExp(markers.map(escapeRegExp).join('|'));
    for (const format of this.formats) for (const marker of format.markers) this.markerIndex.add(marker, format);
    this.sources = new Set(vendors.flatMap((v) => v.spec.sources.map((s) => s.toLowerCase())));
  }

  detect(raw: string): boolean {
    return this.anyMarker.test(raw);
  }

  /** Whether an artifact source names a vendor's devices. */
  namesDevice(source: string): boolean {
    return this.sources.has(source.toLowerCase());
  }

  /** The line as ECS fields with `cairn.device_format` naming the format, or null when no format reads it. */
  parse(raw: string, ctx: ParseContext): EventFields | null {
    const marked = new Set<CompiledFormat>();
    this.markerIndex.collect(raw, marked);
    const source = ctx.source.toLowerCase();
    for (const format of this.formats) {
      if (format.markers.length === 0 ? !format.sources.has(source) : !marked.has(format)) continue;
      const start = format.start.exec(raw);
      if (!start) continue;
      const fields = readWithFormat(format, raw, start, ctx);
      if (!fields) continue;
      fields['cairn.decoder'] = `${format.vendor}/${format.name}`;
      return fields;
    }
    return null;
  }
}

let shared: DeviceCatalogue | null = null;

/** The device catalogue shipped with cairn, loaded on first use. */
export function deviceCatalogue(): DeviceCatalogue {
  shared ??= new DeviceCatalogue(loadVendors());
  return shared;
}

export const deviceFormats: FormatParser = {
  name: 'device',
  detect: (raw) => deviceCatalogue().detect(raw),
  parse: (raw, ctx) => deviceCatalogue().parse(raw, ctx),
};
