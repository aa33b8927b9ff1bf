import net from 'node:net';
import tls from 'node:tls';
import { generate as selfsigned } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundError, outboundPolicy } from './client.js';
import { addressRefusal, guardedConnect, literalAddressRefusal } from './tcp.js';

describe('the outbound policy for TCP destinations', () => {
  it('refuses private, loopback, link-local (metadata) and reserved addresses unless allowed', () => {
    const none = outboundPolicy([]);
    for (const address of ['127.0.0.1', '10.1.2.3', '192.168.0.1', '169.254.169.254', '::1', 'fe80::1', 'fc00::1', '::ffff:10.0.0.1', '100.64.0.1']) {
      expect(addressRefusal(none, address), address).toMatch(/CAIRN_OUTBOUND_ALLOW/);
    }
    expect(addressRefusal(none, '203.0.113.7')).toMatch(/CAIRN_OUTBOUND_ALLOW/); // documentation range: reserved
    expect(addressRefusal(none, '8.8.8.8')).toBeNull();
    expect(addressRefusal(none, '2001:4860:4860::8888')).toBeNull();

    const allowed = outboundPolicy(['10.0.0.0/8', 'syslog.internal']);
    expect(addressRefusal(allowed, '10.9.8.7')).toBeNull();
    expect(addressRefusal(allowed, '::ffff:10.0.0.1')).toBeNull();
    expect(addressRefusal(allowed, '192.168.0.1')).not.toBeNull();
    // An allowed name may resolve to private addresses, never to the unspecified one.
    expect(addressRefusal(allowed, '192.168.0.1', 'syslog.internal')).toBeNull();
    expect(addressRefusal(allowed, '0.0.0.0', 'syslog.internal')).not.toBeNull();

    expect(literalAddressRefusal(none, '[::1]')).not.toBeNull();
    expect(literalAddressRefusal(none, 'localhost')).toBeNull(); // a name: checked when it resolves
  });

  describe('connections', () => {
    let plain: net.Server;
    let secure: tls.Server;
    let certificate = '';
    const port = (server: net.Server) => (server.address() as net.AddressInfo).port;

    beforeAll(async () => {
      const pems = await selfsigned([{ name: 'commonName', value: 'localhost' }], { keySize: 2048, extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }] });
      certificate = pems.cert;
      plain = net.createServer((s) => s.end());
      secure = tls.createServer({ key: pems.private, cert: pems.cert }, (s) => s.end());
      await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
      await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      await new Promise((r) => plain.close(r));
      await new Promise((r) => secure.close(r));
    });

    const refusedWith = async (promise: Promise<net.Socket>) => {
      const err = await promise.then((s) => (s.destroy(), null), (e: unknown) => e);
      expect(err).toBeInstanceOf(OutboundError);
      return err as OutboundError;
    };

    it('refuses an address, and a name by what it resolves to, before connecting', async () => {
      const none = outboundPolicy([]);
      expect((await refusedWith(guardedConnect(none, { host: '127.0.0.1', port: port(plain), tls: null }))).code).toBe('blocked_address');
      const byName = await refusedWith(guardedConnect(none, { host: 'localhost', port: port(plain), tls: null }));
      expect(byName.code).toBe('blocked_address');
      expect(byName.message).toMatch(/^localhost resolves to/);
    });

    it('connects where the policy allows, over TCP and over TLS with the CA given', async () => {
      const policy = outboundPolicy(['127.0.0.1', '::1']);
      (await guardedConnect(policy, { host: '127.0.0.1', port: port(plain), tls: null })).destroy();
      (await guardedConnect(policy, { host: 'localhost', port: port(secure), tls: { ca: certificate } })).destroy();
      // Without the CA the certificate is not trusted.
      const untrusted = await refusedWith(guardedConnect(policy, { host: '127.0.0.1', port: port(secure), tls: {} }));
      expect(untrusted.code).toBe('network');
      expect(untrusted.message).toMatch(/self.signed/i);
      const closed = await refusedWith(guardedConnect(policy, { host: '127.0.0.1', port: 1, tls: null }));
      expect(closed.message).toMatch(/ECONNREFUSED/);
    });
  });
});
