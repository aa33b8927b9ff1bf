// PLACEHOLDER while the format is being written: recognises nothing.
import type { FormatParser } from '../types.js';

export const ciscoAsa: FormatParser = {
  name: 'cisco-asa',
  detect: () => false,
  parse: () => null,
};
