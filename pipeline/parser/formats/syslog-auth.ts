// PLACEHOLDER while the format is being written: recognises nothing.
import type { FormatParser } from '../types.js';

export const syslogAuth: FormatParser = {
  name: 'syslog-auth',
  detect: () => false,
  parse: () => null,
};
