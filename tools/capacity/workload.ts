// What reaches one instance and what it does with it. Work is counted in instance-seconds:
// one instance has one second of work to give each second (all its vCPUs together).
//   a server-rendered page costs 1 / ssrPerS, a shell 1 / shellPerS,
//   an /api request apiCost × a server-rendered page.
// The overload guard is taken at its best: it server-renders as many pages as fit beside the
// shells for the rest, and sheds only what does not fit even as shells.

export interface InstanceCapacity {
  vcpus: number;
  /** Server-rendered pages per second one instance can answer (per-vCPU figure × vCPUs). */
  ssrPerS: number;
  /** Shells per second one instance can answer. */
  shellPerS: number;
  /** An /api request's cost as a fraction of a server-rendered page's. */
  apiCost: number;
}

export interface Traffic {
  /** Share of page views CloudFront answers from its cache, applied to pages and /api alike. */
  cdnHit: number;
  /** A session's first view is an HTML page load; the others are in-browser navigations (/api). */
  pagesPerSession: number;
}

export interface OriginLoad {
  originPerS: number;
  htmlPerS: number;
  apiPerS: number;
}

export function originLoad(viewsPerS: number, traffic: Traffic): OriginLoad {
  const originPerS = viewsPerS * (1 - traffic.cdnHit);
  const htmlPerS = originPerS / traffic.pagesPerSession;
  return { originPerS, htmlPerS, apiPerS: originPerS - htmlPerS };
}

/** What one instance serves in one second. */
export interface InstanceService {
  ssr: number;
  shell: number;
  api: number;
  shed: number;
  /** Work / capacity, at most 1. */
  cpu: number;
}

export function serveOnInstance(htmlPerS: number, apiPerS: number, capacity: InstanceCapacity): InstanceService {
  const ssrCost = 1 / capacity.ssrPerS;
  const shellCost = 1 / capacity.shellPerS;
  const apiWork = apiPerS * capacity.apiCost * ssrCost;
  const allRendered = htmlPerS * ssrCost + apiWork;
  if (allRendered <= 1) return { ssr: htmlPerS, shell: 0, api: apiPerS, shed: 0, cpu: allRendered };
  const allShells = htmlPerS * shellCost + apiWork;
  if (allShells <= 1) {
    // Each page moved from a shell to a render costs the difference; render as many as the spare second pays for.
    const ssr = Math.min(htmlPerS, (1 - allShells) / (ssrCost - shellCost));
    return { ssr, shell: htmlPerS - ssr, api: apiPerS, shed: 0, cpu: 1 };
  }
  // Past even that, requests are turned away (503) in proportion, pages and /api alike.
  const kept = 1 / allShells;
  return { ssr: 0, shell: htmlPerS * kept, api: apiPerS * kept, shed: (htmlPerS + apiPerS) * (1 - kept), cpu: 1 };
}

/** vCPUs from an instance type's size name, where the rule holds (c5, m5, r5, c6i, c7g, …). */
export function vcpusOfType(instanceType: string): number | null {
  const size = instanceType.split('.')[1];
  if (size === 'large') return 2;
  if (size === 'xlarge') return 4;
  const multiple = /^(\d+)xlarge$/.exec(size ?? '');
  return multiple ? Number(multiple[1]) * 4 : null;
}
