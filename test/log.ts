// A log that keeps its lines, in the shape of server/log.ts's, for tests that check what was said.
export interface LoggedLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

export function collectingLog() {
  const lines: LoggedLine[] = [];
  const at = (level: LoggedLine['level']) => (message: string, fields?: Record<string, unknown>) => void lines.push({ level, message, fields });
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } };
}
