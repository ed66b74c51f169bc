import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { test } from 'node:test';
import { resolveInstance } from './instance';
import { withCeiling } from '../../test/wait';

async function metadataServer(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test('instance metadata v2: a token by PUT, then the instance id with that token', async () => {
  const seen: string[] = [];
  const imds = await metadataServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.method === 'PUT' && req.url === '/latest/api/token' && req.headers['x-aws-ec2-metadata-token-ttl-seconds']) {
      res.end('token-123');
    } else if (req.method === 'GET' && req.url === '/latest/meta-data/instance-id' && req.headers['x-aws-ec2-metadata-token'] === 'token-123') {
      res.end('i-0123456789abcdef0');
    } else {
      res.writeHead(401).end();
    }
  });
  try {
    assert.deepEqual(await resolveInstance({ endpoint: imds.endpoint }), { id: 'i-0123456789abcdef0', source: 'instance-metadata' });
    assert.deepEqual(seen, ['PUT /latest/api/token', 'GET /latest/meta-data/instance-id']);
  } finally {
    await imds.close();
  }
});

test('metadata that does not answer in time, refuses, or is turned off: the host name', async () => {
  const silent = await metadataServer(() => {});
  try {
    // Resolving at all is the point: the endpoint never answers, so only the timeout ends the wait.
    const resolved = await withCeiling('the instance from a silent endpoint', resolveInstance({ endpoint: silent.endpoint, timeoutMs: 200 }));
    assert.deepEqual(resolved, { id: os.hostname(), source: 'hostname' });
  } finally {
    await silent.close();
  }
  const refusing = await metadataServer((_req, res) => res.writeHead(403).end());
  try {
    assert.equal((await resolveInstance({ endpoint: refusing.endpoint })).source, 'hostname');
  } finally {
    await refusing.close();
  }
  assert.equal((await resolveInstance({ endpoint: 'http://127.0.0.1:9', disabled: true })).source, 'hostname');
});
