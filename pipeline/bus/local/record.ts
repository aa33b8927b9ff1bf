// Byte layout of one message in an in-process log segment:
// f64 timestamp | i32 key length (-1 = null) | key | u32 headers length | headers JSON | value
import type { OutgoingMessage } from '../types.js';

export interface StoredMessage {
  timestamp: number;
  key: string | null;
  headers: Record<string, string>;
  value: Buffer;
}

export function encodeMessage(message: OutgoingMessage, timestamp: number): Buffer {
  const key = message.key === null ? null : Buffer.from(message.key, 'utf8');
  const headers = message.headers && Object.keys(message.headers).length > 0 ? Buffer.from(JSON.stringify(message.headers), 'utf8') : null;
  const size = 8 + 4 + (key?.length ?? 0) + 4 + (headers?.length ?? 0) + message.value.length;
  const out = Buffer.allocUnsafe(size);
  let pos = out.writeDoubleBE(timestamp, 0);
  pos = out.writeInt32BE(key ? key.length : -1, pos);
  if (key) pos += key.copy(out, pos);
  pos = out.writeUInt32BE(headers?.length ?? 0, pos);
  if (headers) pos += headers.copy(out, pos);
  message.value.copy(out, pos);
  return out;
}

export function decodeMessage(body: Buffer): StoredMessage {
  let pos = 0;
  const timestamp = body.readDoubleBE(pos);
  pos += 8;
  const keyLength = body.readInt32BE(pos);
  pos += 4;
  const key = keyLength < 0 ? null : body.toString('utf8', pos, pos + keyLength);
  pos += Math.max(keyLength, 0);
  const headersLength = body.readUInt32BE(pos);
  pos += 4;
  const headers = headersLength > 0 ? (JSON.parse(body.toString('utf8', pos, pos + headersLength)) as Record<string, string>) : {};
  pos += headersLength;
  return { timestamp, key, headers, value: body.subarray(pos) };
}
