// Zeek http.log to ECS, as Elastic's zeek package maps it: the request
// (method, Host, target, referrer, user agent), the response status and the
// body sizes; uri is the request target, path and query.
import { count, text } from '../json-values.js';
import type { EventFields } from '../types.js';
import type { ZeekLog } from './log.js';

function addUrl(fields: EventFields, uri: string): void {
  fields['url.original'] = uri;
  const query = uri.indexOf('?');
  const path = query < 0 ? uri : uri.slice(0, query);
  // An absolute-form target (a proxy request) names the host itself: the path starts after it.
  if (path.startsWith('/')) fields['url.path'] = path;
  if (query >= 0 && query < uri.length - 1) fields['url.query'] = uri.slice(query + 1);
}

export const httpLog: ZeekLog = {
  dataset: 'http',
  transport: 'tcp',
  mapped: new Set(['method', 'host', 'uri', 'referrer', 'version', 'user_agent', 'request_body_len', 'response_body_len', 'status_code', 'username']),
  map(fields, record) {
    fields['event.category'] = ['network', 'web'];
    fields['event.type'] = ['connection', 'protocol', 'info'];
    const method = text(record.method);
    if (method) {
      fields['http.request.method'] = method;
      fields['event.action'] = method;
    }
    const host = text(record.host);
    if (host) fields['url.domain'] = host;
    const uri = text(record.uri);
    if (uri) addUrl(fields, uri);
    const referrer = text(record.referrer);
    if (referrer) fields['http.request.referrer'] = referrer;
    const version = text(record.version);
    if (version) fields['http.version'] = version;
    const userAgent = text(record.user_agent);
    if (userAgent) fields['user_agent.original'] = userAgent;
    const requestBytes = count(record.request_body_len);
    const responseBytes = count(record.response_body_len);
    if (requestBytes !== undefined) fields['http.request.body.bytes'] = requestBytes;
    if (responseBytes !== undefined) fields['http.response.body.bytes'] = responseBytes;
    const status = count(record.status_code);
    if (status !== undefined) {
      fields['http.response.status_code'] = status;
      fields['event.outcome'] = status < 400 ? 'success' : 'failure';
    }
    // The user of HTTP basic authentication.
    const username = text(record.username);
    if (username) fields['user.name'] = username;
  },
};
