// A query that does not parse: what is wrong and where (1-based character position, 0 when not tied to one).
export class QuerySyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly position: number,
  ) {
    super(position > 0 ? `${reason} at character ${position}` : reason);
    this.name = 'QuerySyntaxError';
  }
}
