// PLACEHOLDER while the format is being written: recognises nothing.
import type { FormatParser } from '../types.js';

export const zeekDns: FormatParser = {
  name: 'zeek-dns',
  detect: () => false,
  parse: () => null,
};
