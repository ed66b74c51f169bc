import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientAddress, clientKey } from './client-address';

test('the client is the X-Forwarded-For entry so many hops back, believed only from a local proxy', () => {
  const chain = '198.51.100.7, 130.176.1.1, 10.0.1.5';
  assert.equal(clientAddress('127.0.0.1', chain, 3), '198.51.100.7');
  assert.equal(clientAddress('127.0.0.1', chain, 1), '10.0.1.5');
  assert.equal(clientAddress('::ffff:127.0.0.1', chain, 2), '130.176.1.1');
  assert.equal(clientAddress('127.0.0.1', chain, 0), '127.0.0.1');
  assert.equal(clientAddress('127.0.0.1', undefined, 3), '127.0.0.1');
  // A client that reached Node itself could have written any header: its own address names it.
  assert.equal(clientAddress('203.0.113.50', chain, 3), '203.0.113.50');
});

// Regression: with fewer entries than the hops configured, the first entry named the client, and
// that entry may be the client's own claim (sent to a proxy it reached directly).
test("a chain shorter than the hops names the nearest proxy's entry, never the client's own claim", () => {
  // The client went straight to Nginx (no CloudFront, no load balancer) with a made-up header:
  // Nginx appended the address it saw.
  assert.equal(clientAddress('127.0.0.1', '203.0.113.250, 192.0.2.44', 3), '192.0.2.44');
  assert.equal(clientAddress('127.0.0.1', '192.0.2.44', 3), '192.0.2.44');
  assert.equal(clientAddress('127.0.0.1', ' , ', 3), '127.0.0.1');
});

test('a per-client key is an IPv4 address as it is, an IPv6 address by its /64', () => {
  assert.equal(clientKey('198.51.100.7'), '198.51.100.7');
  assert.equal(clientKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:0db8:0001:0002::ffff'), '2001:db8:1:2::/64', 'any spelling of the same network');
  assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(clientKey('::ffff:192.0.2.1'), '192.0.2.1');
  assert.equal(clientKey('not-an-address'), 'not-an-address');
});
