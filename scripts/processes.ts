// A process's children, from /proc: a cluster's workers, Nginx's worker processes, PostgreSQL's
// backends. What the PostgreSQL harness signals, what the tests kill, what the bench pins and counts.
import fs from 'node:fs';

/** The pids whose parent is `parent` (the parent id is the second field after the command name); none once it is gone. */
export function childPids(parent: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  return entries
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false;
      }
    })
    .map(Number);
}
