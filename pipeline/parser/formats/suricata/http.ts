// HTTP request and response metadata, of http records and of the alerts and
// files that carry it; url.* split from the request target.
import { count, text, type Json } from '../../json-values.js';
import type { EventFields } from '../../types.js';
import { addDestinationDomain } from './shared.js';

/** url.* from the request target: origin form ("/a?b#c") or, through proxies, absolute form. */
function addUrl(fields: EventFields, url: string): void {
  fields['url.original'] = url;
  let target = url;
  if (url.charCodeAt(0) !== 0x2f) {
    const schemeEnd = url.indexOf('://');
    if (schemeEnd <= 0) return; // authority form (CONNECT host:port): no path
    const authorityStart = schemeEnd + 3;
    const pathStart = url.indexOf('/', authorityStart);
    const authority = url.slice(authorityStart, pathStart < 0 ? undefined : pathStart);
    const host = authority.slice(authority.lastIndexOf('@') + 1);
    const portAt = host.startsWith('[') ? host.indexOf(']:') + 1 : host.lastIndexOf(':');
    fields['url.scheme'] = url.slice(0, schemeEnd).toLowerCase();
    const domain = portAt > 0 ? host.slice(0, portAt) : host;
    if (domain) fields['url.domain'] = domain;
    target = pathStart < 0 ? '/' : url.slice(pathStart);
  }
  const fragmentAt = target.indexOf('#');
  if (fragmentAt >= 0) {
    if (fragmentAt + 1 < target.length) fields['url.fragment'] = target.slice(fragmentAt + 1);
    target = target.slice(0, fragmentAt);
  }
  const queryAt = target.indexOf('?');
  if (queryAt >= 0) {
    if (queryAt + 1 < target.length) fields['url.query'] = target.slice(queryAt + 1);
    target = target.slice(0, queryAt);
  }
  if (target) fields['url.path'] = target;
}

export function addHttp(fields: EventFields, http: Json, eventType: string): void {
  const hostname = text(http.hostname);
  const url = text(http.url);
  if (url) addUrl(fields, url);
  if (hostname) {
    addDestinationDomain(fields, hostname);
    fields['url.domain'] = hostname;
  }
  const method = text(http.http_method);
  // ECS (since 1.6) keeps the method's case as sent.
  if (method) fields['http.request.method'] = method;
  const status = count(http.status);
  if (status !== undefined) {
    fields['http.response.status_code'] = status;
    // Only an http record describes the exchange; other records just carry its metadata.
    if (eventType === 'http') fields['event.outcome'] = status < 400 ? 'success' : 'failure';
  }
  const length = count(http.length);
  if (length !== undefined) fields['http.response.body.bytes'] = length;
  const userAgent = text(http.http_user_agent);
  if (userAgent) fields['user_agent.original'] = userAgent;
  const referrer = text(http.http_refer);
  if (referrer) fields['http.request.referrer'] = referrer;
  const protocol = text(http.protocol);
  if (protocol?.startsWith('HTTP/')) fields['http.version'] = protocol.slice(5);
}
