// How much of a long message the pattern readers (the decoder catalogue, device
// message patterns) look at.
/**
 * How much of a message the readers see. A pattern that scans ahead for a
 * closing character costs, on a line that repeats its opening text, time that
 * grows with the square of the length; real messages are a few hundred
 * characters, and a peer or verdict beyond this point is not worth that.
 */
export const READABLE_LENGTH = 16 * 1024;

export function readablePart(text: string): string {
  return text.length > READABLE_LENGTH ? text.slice(0, READABLE_LENGTH) : text;
}
