// Server-sent events read from a fetch body (the assistant's answer is a POST
// with the bearer token, which EventSource cannot send). Only what cairn
// writes is needed: `event:` and `data:` lines, a blank line ending each
// event, `\n` line ends.

export interface ServerEvent {
  event: string;
  data: string;
}

/** One event's block of lines; null for a block with no data (a comment or keep-alive). */
function parseBlock(block: string): ServerEvent | null {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    // The format allows one space after the colon, which is not part of the value.
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length ? { event, data: data.join('\n') } : null;
}

/** The events of a stream, each as soon as its blank line has arrived. */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += decoder.decode(value, { stream: !done });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const parsed = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (parsed) yield parsed;
      }
      if (done) break;
    }
    const last = parseBlock(buffer);
    if (last) yield last;
  } finally {
    // A reader that stops early lets the connection go (the server keeps answering into the session).
    void reader.cancel().catch(() => undefined);
  }
}
