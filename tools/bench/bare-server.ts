// The reference ceiling: node:http answering the shell's bytes with nothing in between.
// Usage (by the orchestrator only): node --import tsx tools/bench/bare-server.ts PORT BODY_FILE HEADERS_JSON
import fs from 'node:fs';
import http from 'node:http';

const [portArg, bodyFile, headersJson] = process.argv.slice(2);
const body = fs.readFileSync(bodyFile ?? '');
const headers = { ...(JSON.parse(headersJson ?? '{}') as Record<string, string>), 'Content-Length': String(body.length) };

const server = http.createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
// The same socket settings as a Kiosk worker, so the comparison is of what runs per request.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.listen({ port: Number(portArg), backlog: 4096 }, () => console.log(`bare server listening on ${portArg}`));
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
