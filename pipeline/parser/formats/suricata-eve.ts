// PLACEHOLDER while the format is being written: recognises nothing.
import type { FormatParser } from '../types.js';

export const suricataEve: FormatParser = {
  name: 'suricata-eve',
  detect: () => false,
  parse: () => null,
};
