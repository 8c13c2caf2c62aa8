import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time spent so far, in ms: by this process (the app and the benchmark's client), and by every
 * PostgreSQL server process on the machine, ended ones included, read from /proc (Linux only; null
 * elsewhere, or when the server runs on another machine and shows no process here). On a machine
 * whose cores are the bottleneck, CPU per unit of work is steadier from run to run than wall-clock
 * rates.
 */
export interface CpuTimes {
  nodeMs: number;
  postgresMs: number | null;
}

// /proc reports times in USER_HZ ticks, fixed at 100 a second by the kernel's ABI.
const MS_PER_TICK = 10;

export function cpuTimes(): CpuTimes {
  const { user, system } = process.cpuUsage();
  return { nodeMs: (user + system) / 1000, postgresMs: postgresCpuMs() };
}

export function cpuSince(start: CpuTimes): CpuTimes {
  const now = cpuTimes();
  return {
    nodeMs: now.nodeMs - start.nodeMs,
    postgresMs:
      now.postgresMs === null || start.postgresMs === null ? null : now.postgresMs - start.postgresMs,
  };
}

function postgresCpuMs(): number | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  let ticks = 0;
  let found = false;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // the process ended meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces, so split after its closing parenthesis.
    const close = stat.lastIndexOf(')');
    if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
    const fields = stat.slice(close + 2).split(' ');
    // utime, stime, cutime and cstime are fields 14-17 of the line, 12-15 after "state". cutime
    // and cstime hold the children a process has reaped: a backend or autovacuum worker that
    // exits mid-measurement has its time moved into the postmaster's, so none is lost.
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    found = true;
  }
  return found ? ticks * MS_PER_TICK : null;
}

/** CPU ms per 1000 units of work, as printed; n/a when it could not be read. */
export const perThousand = (ms: number | null, units: number) =>
  ms === null ? 'n/a' : ((ms * 1000) / units).toFixed(0);
