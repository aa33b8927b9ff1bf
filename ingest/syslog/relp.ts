// RELP, rsyslog's Reliable Event Logging Protocol, server side. Every frame
// in either direction is
//
//     TXNR SP COMMAND SP DATALEN [SP DATA] LF
//
// TXNR a transaction number (1 to 999999999) the answer repeats, COMMAND one
// word, DATALEN the byte length of DATA (0: no SP and no DATA). A client
// opens a session with "open" (its offers: relp_version, relp_software,
// commands), sends each message with "syslog", and ends with "close". The
// server answers every command with "rsp", whose data starts with a status:
// "200 OK" or an error. We answer a "syslog" only once the bus holds the
// message, so a message rsyslog saw acknowledged is never lost; one sent but
// not acknowledged when cairn died is sent again by rsyslog after it
// reconnects (a duplicate at most, within rsyslog's window of unacknowledged
// messages, 128 by default).
import type { Socket } from 'node:net';
import { ConnectionFlow } from './flow.js';
import { submit, type ListenerContext } from './listeners.js';
import { MAX_MESSAGE_BYTES, senderAddress, type Origin } from './message.js';
import { syslogMetrics } from './metrics.js';

const LF = 0x0a;
const SPACE = 0x20;
const MAX_TXNR_DIGITS = 9;
const MAX_COMMAND_LENGTH = 32;
const MAX_DATALEN_DIGITS = 9;
/** What we offer when a session opens: the commands this server understands. */
const OPEN_OFFERS = 'relp_version=0\nrelp_software=cairn\ncommands=syslog';

export interface RelpFrame {
  txnr: number;
  command: string;
  data: Buffer;
  /** DATA was longer than the limit: these are its first bytes. */
  truncated: boolean;
}

export class RelpProtocolError extends Error {}

/** Reads RELP frames from a byte stream; memory stays bounded by the message limit whatever the peer sends. */
export class RelpReader {
  private buffer: Buffer = Buffer.alloc(0);
  /** Header read, DATA (and its LF) still coming. */
  private current: { txnr: number; command: string; length: number; kept: number } | null = null;
  /** Bytes of an oversize DATA still to skip, then its LF. */
  private skip = 0;
  private truncatedFrame: RelpFrame | null = null;

  constructor(private readonly maxData = MAX_MESSAGE_BYTES) {}

  /** The frames `chunk` completes; throws RelpProtocolError on a malformed frame (the session cannot recover from one). */
  push(chunk: Buffer): RelpFrame[] {
    const frames: RelpFrame[] = [];
    let data = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      if (this.truncatedFrame) {
        const skipped = Math.min(this.skip, data.length);
        this.skip -= skipped;
        data = data.subarray(skipped);
        if (this.skip > 0 || data.length === 0) break;
        this.expectTrailer(data[0]!);
        frames.push(this.truncatedFrame);
        this.truncatedFrame = null;
        data = data.subarray(1);
        continue;
      }
      if (!this.current) {
        const header = this.readHeader(data);
        if (!header) break;
        data = data.subarray(header.consumed);
        if (header.length === 0) {
          frames.push({ txnr: header.txnr, command: header.command, data: Buffer.alloc(0), truncated: false });
          continue;
        }
        this.current = { txnr: header.txnr, command: header.command, length: header.length, kept: Math.min(header.length, this.maxData) };
      }
      const { txnr, command, length, kept } = this.current;
      if (kept < length) {
        if (data.length < kept) break;
        this.truncatedFrame = { txnr, command, data: Buffer.from(data.subarray(0, kept)), truncated: true };
        this.skip = length - kept;
        this.current = null;
        data = data.subarray(kept);
        continue;
      }
      if (data.length < length + 1) break;
      this.expectTrailer(data[length]!);
      frames.push({ txnr, command, data: Buffer.from(data.subarray(0, length)), truncated: false });
      this.current = null;
      data = data.subarray(length + 1);
    }
    this.buffer = data.length ? Buffer.from(data) : Buffer.alloc(0);
    return frames;
  }

  private expectTrailer(byte: number): void {
    if (byte !== LF) throw new RelpProtocolError('a frame does not end with LF where its DATALEN says');
  }

  /** "TXNR SP COMMAND SP DATALEN" and then SP (data follows) or LF (no data); null until the header is complete. */
  private readHeader(data: Buffer): { txnr: number; command: string; length: number; consumed: number } | null {
    const txnrEnd = this.field(data, 0, MAX_TXNR_DIGITS, isDigit, 'TXNR');
    if (txnrEnd === null) return null;
    const commandEnd = this.field(data, txnrEnd + 1, MAX_COMMAND_LENGTH, isLetter, 'COMMAND');
    if (commandEnd === null) return null;
    const lengthEnd = this.field(data, commandEnd + 1, MAX_DATALEN_DIGITS, isDigit, 'DATALEN', true);
    if (lengthEnd === null) return null;
    const txnr = Number(data.toString('latin1', 0, txnrEnd));
    const command = data.toString('latin1', txnrEnd + 1, commandEnd);
    const length = Number(data.toString('latin1', commandEnd + 1, lengthEnd));
    const after = data[lengthEnd];
    if (length === 0 && after === LF) return { txnr, command, length, consumed: lengthEnd + 1 };
    if (length > 0 && after === SPACE) return { txnr, command, length, consumed: lengthEnd + 1 };
    throw new RelpProtocolError(`DATALEN ${length} is followed by neither SP and data nor LF`);
  }

  /** The end of a field starting at `start` (the index of the separator after it); null if the chunk ends first. */
  private field(data: Buffer, start: number, max: number, accepts: (byte: number) => boolean, name: string, lastField = false): number | null {
    let i = start;
    while (i < data.length && i - start <= max && accepts(data[i]!)) i++;
    if (i - start > max) throw new RelpProtocolError(`${name} is longer than ${max} characters`);
    if (i === data.length) return null;
    const separator = data[i];
    if (i === start || (separator !== SPACE && !(lastField && separator === LF))) throw new RelpProtocolError(`${name} is malformed`);
    return i;
  }
}

function isDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x39;
}

function isLetter(byte: number): boolean {
  return (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x41 && byte <= 0x5a);
}

function response(txnr: number, data: string): string {
  const length = Buffer.byteLength(data);
  return length === 0 ? `${txnr} rsp 0\n` : `${txnr} rsp ${length} ${data}\n`;
}

/** Serves one RELP session on an admitted connection. */
export function serveRelpSession(socket: Socket, port: number, ctx: ListenerContext): void {
  const origin: Origin = { sender: senderAddress(socket.remoteAddress), listener: `relp/${port}` };
  const reader = new RelpReader();
  const flow = new ConnectionFlow(socket, 'relp', ctx.lag);
  let opened = false;
  const reply = (text: string) => {
    if (!socket.destroyed) socket.write(text);
  };
  const fail = (reason: string) => {
    syslogMetrics.refused.inc({ listener: 'relp', reason: 'protocol_error' });
    ctx.logger.info({ listener: origin.listener, sender: origin.sender, reason }, 'RELP session closed: protocol error');
    // The spec's way to tell a client the server is going away; then the connection ends.
    reply('0 serverclose 0\n');
    socket.end();
    socket.destroySoon();
  };
  socket.on('data', (chunk: Buffer) => {
    let frames: RelpFrame[];
    try {
      frames = reader.push(chunk);
    } catch (err) {
      if (!(err instanceof RelpProtocolError)) throw err;
      return fail(err.message);
    }
    const messages: RelpFrame[] = [];
    for (const frame of frames) {
      if (frame.command === 'syslog') {
        if (!opened) return fail('syslog before open');
        messages.push(frame);
      } else if (frame.command === 'open') {
        opened = true;
        reply(response(frame.txnr, `200 OK\n${OPEN_OFFERS}`));
      } else if (frame.command === 'close') {
        reply(response(frame.txnr, ''));
        socket.end();
      } else {
        reply(response(frame.txnr, `500 unknown command ${frame.command.slice(0, MAX_COMMAND_LENGTH)}`));
      }
    }
    if (messages.length === 0) return;
    const bytes = messages.map((m) => ({ bytes: m.data, truncated: m.truncated }));
    flow.inFlight += messages.length;
    const held = submit(bytes, origin, 'relp', ctx, (n) => flow.settled(n));
    held.forEach((promise, i) =>
      promise.then(
        () => reply(response(messages[i]!.txnr, '200 OK')),
        // Not acknowledged: the sender keeps the message and sends it again on its next connection.
        () => socket.destroy(),
      ),
    );
    flow.afterRead(ctx.rate.take(origin.sender, messages.length));
  });
  // A frame cut off by a broken connection was not acknowledged: the sender still has it, nothing to count.
}
