// One JSON line per event on stdout/stderr: Elastic Beanstalk ships both to CloudWatch Logs,
// where JSON fields are queryable.
type Fields = Record<string, unknown>;

function write(stream: NodeJS.WriteStream, level: string, message: string, fields?: Fields) {
  stream.write(`${JSON.stringify({ time: new Date().toISOString(), level, pid: process.pid, message, ...fields })}\n`);
}

export const log = {
  info: (message: string, fields?: Fields) => write(process.stdout, 'info', message, fields),
  warn: (message: string, fields?: Fields) => write(process.stderr, 'warn', message, fields),
  error: (message: string, fields?: Fields) => write(process.stderr, 'error', message, fields),
};

export function describeError(error: unknown): Fields {
  if (error instanceof Error) return { error: error.message, name: error.name, stack: error.stack };
  return { error: String(error) };
}
