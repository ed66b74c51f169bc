// Free ports on this machine, for whatever starts Kiosk, Nginx or PostgreSQL beside other things:
// the PostgreSQL harness, the tests, and the tools (through the surface). One implementation.
import net from 'node:net';

/** A port nobody listens on right now (the kernel's pick for port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * `count` consecutive free loopback ports, for per-worker listening. Drawn below Linux's
 * ephemeral range (32768 and up), which a load test fills with its own client ports.
 */
export async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = 20_000 + Math.floor(Math.random() * (12_000 - count));
    const probes: net.Server[] = [];
    let free = true;
    for (let port = first; port < first + count && free; port++) {
      const probe = net.createServer();
      free = await new Promise<boolean>((resolve) => {
        probe.once('error', () => resolve(false));
        probe.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (free) probes.push(probe);
    }
    await Promise.all(probes.map((probe) => new Promise<void>((resolve) => probe.close(() => resolve()))));
    if (free) return first;
  }
  throw new Error(`found no ${count} consecutive free ports`);
}
