// Why a raw artifact could not be parsed.
export class ParseFailure extends Error {
  constructor(
    message: string,
    /** The parser that tried, when one recognised the format. */
    readonly parser?: string,
  ) {
    super(message);
    this.name = 'ParseFailure';
  }
}
