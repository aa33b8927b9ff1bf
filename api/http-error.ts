// Errors a handler throws to answer with a 4xx; the error middleware turns
// them into the error envelope.

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export function notFound(what: string): HttpError {
  return new HttpError(404, 'not_found', `${what} not found`);
}

export function badRequest(message: string, details: unknown = null): HttpError {
  return new HttpError(400, 'bad_request', message, details);
}

/** Error codes for statuses raised by middleware we do not own (body parser, koa-jwt). */
export function codeForStatus(status: number): string {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'too_many_requests';
    case 503:
      return 'unavailable';
    default:
      return status >= 500 ? 'internal_error' : 'error';
  }
}
