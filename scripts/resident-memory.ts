// Where a process's resident memory is, by kind, from what the kernel says of each of its mappings
// (/proc/<pid>/smaps): files (the node binary's code, mostly), glibc malloc's main arena (what the
// main thread allocates outside V8: SQLite's page cache, better-sqlite3's rows), malloc's thread
// arenas (V8's helper threads, libuv's pool) and the rest of anonymous memory (V8's heap, code
// and thread stacks). For the memory test and tools/bench/young-generation.ts.
import fs from 'node:fs';

export interface ResidentMemory {
  /** Everything resident (VmRSS), MB. */
  totalMb: number;
  /** Mapped files: the node binary, shared libraries, the native addons. */
  fileMb: number;
  /** glibc's main arena, the `[heap]` mapping. */
  mainArenaMb: number;
  /** glibc's thread arenas: anonymous read-write mappings at the start of a 64 MB-aligned reservation. */
  threadArenas: number;
  threadArenasMb: number;
  /** Every other anonymous mapping: V8's heap first. */
  otherAnonMb: number;
}

interface Mapping {
  start: bigint;
  end: bigint;
  perms: string;
  name: string;
  rssKb: number;
}

/** glibc reserves each thread arena as one 64 MB-aligned region of 64 MB (HEAP_MAX_SIZE on 64-bit). */
const arenaBytes = 64n * 1024n * 1024n;

function mappings(pid: number): Mapping[] {
  const found: Mapping[] = [];
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) found.push({ start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), perms: head[3]!, name: head[4] ?? '', rssKb: 0 });
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && found.length > 0) found[found.length - 1]!.rssKb = Number(rss[1]);
  }
  return found;
}

function isThreadArena(mapping: Mapping, next: Mapping | undefined): boolean {
  if (mapping.name !== '' || !mapping.perms.startsWith('rw') || mapping.start % arenaBytes !== 0n) return false;
  if (mapping.end - mapping.start === arenaBytes) return true;
  // The part not yet used is reserved without access, right after.
  return next !== undefined && next.name === '' && next.perms.startsWith('---') && next.start === mapping.end && next.end === mapping.start + arenaBytes;
}

/** A live process's resident memory by kind, in MB. Linux only. */
export function residentMemory(pid: number): ResidentMemory {
  const all = mappings(pid);
  const kb = { total: 0, file: 0, main: 0, arenas: 0, other: 0 };
  let threadArenas = 0;
  all.forEach((mapping, i) => {
    kb.total += mapping.rssKb;
    if (mapping.name.startsWith('/')) kb.file += mapping.rssKb;
    else if (mapping.name === '[heap]') kb.main += mapping.rssKb;
    else if (isThreadArena(mapping, all[i + 1])) {
      threadArenas++;
      kb.arenas += mapping.rssKb;
    } else kb.other += mapping.rssKb;
  });
  const mb = (n: number) => n / 1024;
  return { totalMb: mb(kb.total), fileMb: mb(kb.file), mainArenaMb: mb(kb.main), threadArenas, threadArenasMb: mb(kb.arenas), otherAnonMb: mb(kb.other) };
}
