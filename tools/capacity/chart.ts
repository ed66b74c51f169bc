// The run as an SVG, three panels against time: the fleet (ready, and with booting
// instances), the traffic (page views at the edge, requests offered at the origin and
// served there, shed), and the shell's share of pages with the CPU of the serving instances, the
// group's CPU as the alarm sees it (warming instances included) and the thresholds.
import { legend, niceMax, panelFrame, polyline, svgDocument, type LegendEntry, type LineStyle, type Panel } from '@kiosk/svg';
import type { ScalingPolicy } from './policy';
import type { SimulationResult } from './simulate';
import { shellShareOf } from './summary';

const width = 1000;
const left = 80;
const right = 190;
const height = 710;
const plotRight = width - right;
const panel = (top: number, bottom: number): Panel => ({ left, right: plotRight, top, bottom });
const panels = { fleet: panel(60, 220), traffic: panel(260, 460), share: panel(500, 660) };

function line(points: [number, number][], colour: string, dash = '', width = 2): string {
  return polyline(points, { colour, dash, width });
}

/** Quarter ticks from 0 to `max`. */
function frame(p: Panel, title: string, max: number, format: (v: number) => string): string {
  return panelFrame(
    p,
    title,
    [0, 0.25, 0.5, 0.75, 1].map((f) => [p.bottom - f * (p.bottom - p.top), format(max * f)]),
  );
}

function key(p: Panel, entries: [string, string, string][]): string {
  return legend(
    plotRight + 12,
    p.top + 14,
    entries.map(([label, colour, dash]): LegendEntry => [label, { colour, dash } satisfies LineStyle]),
  );
}

export function renderChart(result: SimulationResult, policy: ScalingPolicy, title: string): string {
  const { seconds } = result;
  const duration = seconds.length;
  const bucket = Math.max(1, Math.ceil(duration / 600));
  const x = (t: number) => left + (t / duration) * (plotRight - left);
  const samples: {
    t: number;
    ready: number;
    launched: number;
    views: number;
    origin: number;
    served: number;
    shed: number;
    shell: number;
    cpu: number;
    groupCpu: number;
  }[] = [];
  for (let start = 0; start < duration; start += bucket) {
    const slice = seconds.slice(start, start + bucket);
    const mean = (f: (s: (typeof slice)[number]) => number) => slice.reduce((sum, s) => sum + f(s), 0) / slice.length;
    samples.push({
      t: start,
      ready: slice[0]!.ready,
      launched: slice[0]!.ready + slice[0]!.booting,
      views: mean((s) => s.viewsPerS),
      origin: mean((s) => s.originPerS),
      served: mean((s) => s.ssr + s.shell + s.api),
      shed: mean((s) => s.shed),
      shell: mean(shellShareOf),
      cpu: mean((s) => s.cpu),
      groupCpu: mean((s) => s.groupCpu),
    });
  }
  const steps = (values: (s: (typeof samples)[number]) => number, y: (v: number) => number): [number, number][] =>
    samples.flatMap((s, i) => {
      const next = samples[i + 1]?.t ?? duration;
      return [
        [x(s.t), y(values(s))],
        [x(next), y(values(s))],
      ];
    });

  // A multiple of 4, so that the quarter ticks are whole instances.
  const fleetMax = Math.ceil((Math.max(...samples.map((s) => s.launched)) + 1) / 4) * 4;
  const fleetY = (v: number) => panels.fleet.bottom - (v / fleetMax) * (panels.fleet.bottom - panels.fleet.top);
  const trafficMax = niceMax(1.05 * Math.max(...samples.map((s) => s.views)));
  const trafficY = (v: number) => panels.traffic.bottom - (v / trafficMax) * (panels.traffic.bottom - panels.traffic.top);
  const shareY = (v: number) => panels.share.bottom - v * (panels.share.bottom - panels.share.top);

  const parts = [
    frame(panels.fleet, 'instances', fleetMax, (v) => String(Math.round(v))),
    line(
      steps((s) => s.launched, fleetY),
      '#999',
      '5 4',
    ),
    line(
      steps((s) => s.ready, fleetY),
      '#1f6fb4',
      '',
      2.5,
    ),
    key(panels.fleet, [
      ['ready', '#1f6fb4', ''],
      ['ready + booting', '#999', '5 4'],
    ]),
    frame(panels.traffic, 'per second', trafficMax, (v) => Math.round(v).toLocaleString('en-US')),
    line(
      steps((s) => s.views, trafficY),
      '#999',
    ),
    line(
      steps((s) => s.served, trafficY),
      '#2a8c3f',
      '',
      3,
    ),
    line(
      steps((s) => s.origin, trafficY),
      '#e08a1e',
      '5 4',
    ),
    line(
      steps((s) => s.shed, trafficY),
      '#c8352b',
    ),
    key(panels.traffic, [
      ['views at the edge', '#999', ''],
      ['offered at origin', '#e08a1e', '5 4'],
      ['served', '#2a8c3f', ''],
      ['shed', '#c8352b', ''],
    ]),
    frame(panels.share, 'share', 1, (v) => `${Math.round(v * 100)}%`),
    line(
      [
        [left, shareY(policy.upperThreshold / 100)],
        [plotRight, shareY(policy.upperThreshold / 100)],
      ],
      '#666',
      '2 4',
      1,
    ),
    line(
      [
        [left, shareY(policy.lowerThreshold / 100)],
        [plotRight, shareY(policy.lowerThreshold / 100)],
      ],
      '#666',
      '2 4',
      1,
    ),
    line(
      steps((s) => s.cpu, shareY),
      '#7a4fb0',
    ),
    line(
      steps((s) => s.groupCpu, shareY),
      '#7a4fb0',
      '5 3',
    ),
    line(
      steps((s) => s.shell, shareY),
      '#c8352b',
      '',
      2.5,
    ),
    key(panels.share, [
      ['shell share of pages', '#c8352b', ''],
      ['CPU, serving instances', '#7a4fb0', ''],
      ['CPU the alarm sees', '#7a4fb0', '5 3'],
      [`thresholds ${policy.lowerThreshold}/${policy.upperThreshold}%`, '#666', '2 4'],
    ]),
  ];
  const tickEvery = duration <= 3600 ? 300 : duration <= 4 * 3600 ? 1800 : 3600;
  for (let t = 0; t <= duration; t += tickEvery) {
    parts.push(`<line x1="${x(t)}" x2="${x(t)}" y1="${panels.share.bottom}" y2="${panels.share.bottom + 5}" stroke="#333"/>`);
    parts.push(`<text x="${x(t)}" y="${panels.share.bottom + 18}" text-anchor="middle">${t / 60}</text>`);
  }
  parts.push(`<text x="${(left + plotRight) / 2}" y="${panels.share.bottom + 38}" text-anchor="middle">minutes</text>`);
  for (const action of result.actions) {
    const ax = x(action.atS);
    parts.push(`<line x1="${ax}" x2="${ax}" y1="${panels.fleet.top}" y2="${panels.share.bottom}" stroke="#1f6fb4" stroke-opacity="0.3"/>`);
    parts.push(`<text x="${ax + 3}" y="${panels.fleet.top + 12}" fill="#1f6fb4">${action.to > action.from ? '+' : ''}${action.to - action.from}</text>`);
  }
  return svgDocument(width, height, title, left, parts);
}
