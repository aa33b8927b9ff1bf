/** `text` as a regular expression that matches it literally (RegExp.escape, which Node 20 lacks, does the same). */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
