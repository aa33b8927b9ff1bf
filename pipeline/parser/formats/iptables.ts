// PLACEHOLDER while the format is being written: recognises nothing.
import type { FormatParser } from '../types.js';

export const iptables: FormatParser = {
  name: 'iptables',
  detect: () => false,
  parse: () => null,
};
