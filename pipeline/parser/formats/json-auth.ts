// PLACEHOLDER while the format is being written: recognises nothing.
import type { FormatParser } from '../types.js';

export const jsonAuth: FormatParser = {
  name: 'json-auth',
  detect: () => false,
  parse: () => null,
};
