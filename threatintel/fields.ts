// The event fields indicators are looked for in, by what they hold. Matching
// at ingest and the retro-hunt over stored events read the same ones.
export const INTEL_FIELDS = {
  address: ['source.ip', 'destination.ip', 'client.ip', 'server.ip', 'host.ip', 'source.nat.ip', 'destination.nat.ip', 'dns.resolved_ip'],
  domain: ['dns.question.name', 'url.domain', 'destination.domain', 'source.domain', 'server.domain', 'tls.client.server_name'],
  url: ['url.full', 'url.original'],
  hash: ['file.hash.md5', 'file.hash.sha1', 'file.hash.sha256', 'hash.md5', 'hash.sha1', 'hash.sha256', 'process.hash.md5', 'process.hash.sha1', 'process.hash.sha256'],
  email: ['user.email', 'email.from.address', 'email.to.address', 'email.sender.address', 'source.user.email', 'destination.user.email'],
} as const;

export type FieldClass = keyof typeof INTEL_FIELDS;
