// The overload steps as an SVG: latency (log scale) above, server-rendered share below,
// both against the offered rate (log scale), fallback on against off, the uniform path mix;
// then, for every step through Nginx (SQLite, each path mix), where its answers came from:
// fresh, last good, shell, 503, failures, stacked.
import { escapeXml, guideLine, legend, logScale, panelFrame, polyline, svgDocument, type LegendEntry, type Panel } from '@kiosk/svg';
import { describeMix } from './path-mix';
import { perS, sourcesOf, type Sources } from './report';
import type { BenchResults, FallbackMode, OverloadStep } from './results';

const width = 960;
const left = 80;
const right = 40;
const latencyPanel: Panel = { left, right: width - right, top: 96, bottom: 370 };
const sharePanel: Panel = { left, right: width - right, top: 430, bottom: 590 };
const sourcesPanel: Panel = { left, right: width - right, top: 700, bottom: 880 };
const height = 980;
// The SQLite layouts only: the PostgreSQL steps through Nginx are in the report's table.
const modes = ['off', 'on', 'nginx', 'nginx-keepalive'] as const satisfies readonly FallbackMode[];
const colours: Record<(typeof modes)[number], string> = { on: '#1f6fb4', off: '#c8352b', nginx: '#2a8c3f', 'nginx-keepalive': '#8a5cb8' };

function latencyPanelSvg(steps: OverloadStep[], x: (rate: number) => number, maxMs: number): string {
  const y = logScale(1, maxMs, latencyPanel.bottom, latencyPanel.top);
  const clamp = (value: number) => y(Math.min(maxMs, Math.max(1, value)));
  const ticks: [number, string][] = [];
  for (let tick = 1; tick <= maxMs; tick *= 10) ticks.push([y(tick), perS(tick)]);
  const parts = [panelFrame(latencyPanel, 'latency, ms (log)', ticks)];
  parts.push(guideLine(latencyPanel, y(100), '100 ms: capacity'), guideLine(latencyPanel, y(250), '250 ms'), guideLine(latencyPanel, y(500), '500 ms'));
  for (const mode of modes) {
    const series = steps.filter((s) => s.mode === mode);
    parts.push(
      polyline(
        series.map((s) => [x(s.offeredPerS), clamp(s.latencyMs.p50)]),
        { colour: colours[mode], dash: '5 4', width: 1.5, dots: true },
      ),
    );
    parts.push(
      polyline(
        series.map((s) => [x(s.offeredPerS), clamp(s.latencyMs.p99)]),
        { colour: colours[mode], width: 2.5, dots: true },
      ),
    );
  }
  return parts.join('');
}

function sharePanelSvg(steps: OverloadStep[], x: (rate: number) => number): string {
  const { top, bottom } = sharePanel;
  const y = (share: number) => bottom - share * (bottom - top);
  const parts = [
    panelFrame(
      sharePanel,
      'server-rendered',
      [0, 0.25, 0.5, 0.75, 1].map((tick) => [y(tick), `${tick * 100}%`]),
    ),
  ];
  for (const mode of modes) {
    const series = steps.filter((s) => s.mode === mode);
    parts.push(
      polyline(
        series.map((s) => [x(s.offeredPerS), y(s.ssrShare)]),
        { colour: colours[mode], width: 2.5, dots: true },
      ),
    );
  }
  return parts.join('');
}

/** Each kind of answer's colour in the stacked bars, bottom to top. */
const sourceColours: [keyof Sources, string, string][] = [
  ['fresh', 'fresh (SSR)', '#2a8c3f'],
  ['lastGood', 'last good', '#1f6fb4'],
  ['shellNode', 'shell from Node', '#f2b447'],
  ['shellNginx', 'shell from Nginx', '#d9822b'],
  ['status503', '503', '#c8352b'],
  ['otherNon2xx', 'other non-2xx', '#7a1f1a'],
  ['errors', 'errors', '#444'],
  ['timeouts', 'timeouts', '#888'],
  ['other2xx', 'other 2xx', '#ccc'],
];

const kindLabels: Partial<Record<FallbackMode, string>> = { nginx: 'new conn.', 'nginx-keepalive': 'keep-alive' };

/** One stacked bar per step through Nginx (SQLite), grouped by path mix and kind of client. */
function sourcesPanelSvg(steps: OverloadStep[]): string {
  const bars = steps.filter((s) => s.mode === 'nginx' || s.mode === 'nginx-keepalive');
  const { top, bottom } = sourcesPanel;
  const y = (share: number) => bottom - share * (bottom - top);
  const parts = [
    panelFrame(
      sourcesPanel,
      'answers through Nginx',
      [0, 0.5, 1].map((tick) => [y(tick), `${tick * 100}%`]),
    ),
  ];
  if (bars.length === 0) return parts.join('');
  const slot = (sourcesPanel.right - sourcesPanel.left) / bars.length;
  let group = '';
  bars.forEach((step, i) => {
    const x = sourcesPanel.left + i * slot + slot * 0.15;
    const from = sourcesOf(step);
    let at = 0;
    for (const [key, label, colour] of sourceColours) {
      const share = step.scheduled > 0 ? from[key] / step.scheduled : 0;
      if (share <= 0) continue;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y(at + share).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${(share * (bottom - top)).toFixed(1)}" fill="${colour}">` +
          `<title>${escapeXml(`${step.multiplier}x ${kindLabels[step.mode] ?? step.mode}, ${describeMix(step.pathMix ?? 'uniform')}: ${label} ${Math.round(share * 100)}%`)}</title></rect>`,
      );
      at += share;
    }
    const centre = (x + slot * 0.35).toFixed(1);
    parts.push(`<text x="${centre}" y="${bottom + 16}" text-anchor="middle">${step.multiplier}x</text>`);
    const name = `${describeMix(step.pathMix ?? 'uniform')}, ${kindLabels[step.mode] ?? step.mode}`;
    if (name !== group) {
      group = name;
      parts.push(`<text x="${(sourcesPanel.left + i * slot + 4).toFixed(1)}" y="${bottom + 32}" fill="#555">${escapeXml(name)}</text>`);
    }
  });
  return parts.join('');
}

function sourcesLegend(): string {
  return sourceColours
    .map(([, label, colour], i) => {
      const x = left + 10 + (i % 5) * 170;
      const y = sourcesPanel.bottom + 52 + Math.floor(i / 5) * 18;
      return `<rect x="${x}" y="${y - 9}" width="14" height="10" fill="${colour}"/><text x="${x + 20}" y="${y}">${escapeXml(label)}</text>`;
    })
    .join('');
}

function xTicks(steps: OverloadStep[], x: (rate: number) => number): string {
  const seen = new Map<number, number>();
  for (const s of steps) seen.set(s.offeredPerS, s.multiplier);
  return [...seen]
    .map(([rate, multiplier]) => {
      const at = x(rate).toFixed(1);
      return (
        `<line x1="${at}" x2="${at}" y1="${sharePanel.bottom}" y2="${sharePanel.bottom + 5}" stroke="#333"/>` +
        `<text x="${at}" y="${sharePanel.bottom + 20}" text-anchor="middle">${perS(rate)}</text>` +
        `<text x="${at}" y="${sharePanel.bottom + 36}" text-anchor="middle" fill="#666">${multiplier}x</text>`
      );
    })
    .join('');
}

/** Where the shell path and bare node:http top out: no step beyond them can be all answered. */
function referenceLines(results: BenchResults, x: (rate: number) => number): string {
  const lines: [string, number | undefined][] = [
    ['shell path max', results.reference.shellPath?.ratePerS],
    ['bare node:http max', results.reference.bare?.ratePerS],
  ];
  return lines
    .filter((line): line is [string, number] => line[1] !== undefined && line[1] > 0)
    .map(([label, rate], i) => {
      const at = x(rate).toFixed(1);
      return (
        `<line x1="${at}" x2="${at}" y1="${latencyPanel.top}" y2="${sharePanel.bottom}" stroke="#2a8f4a" stroke-dasharray="6 3"/>` +
        // Labels near the right edge run leftwards, so they stay inside the picture.
        `<text x="${at}" y="${latencyPanel.bottom - 8 - i * 14}" ${x(rate) > width * 0.7 ? 'dx="-4" text-anchor="end"' : 'dx="4"'} fill="#2a8f4a">${escapeXml(`${label} ${perS(rate)}/s`)}</text>`
      );
    })
    .join('');
}

const legendEntries: LegendEntry[] = [
  ['direct, fallback on, p99', { colour: colours.on, width: 2.5 }],
  ['direct, fallback on, p50', { colour: colours.on, dash: '5 4', width: 2.5 }],
  ['direct, fallback off, p99', { colour: colours.off, width: 2.5 }],
  ['direct, fallback off, p50', { colour: colours.off, dash: '5 4', width: 2.5 }],
  ['Nginx, new connections, p99', { colour: colours.nginx, width: 2.5 }],
  ['Nginx, new connections, p50', { colour: colours.nginx, dash: '5 4', width: 2.5 }],
  ['Nginx, keep-alive clients, p99', { colour: colours['nginx-keepalive'], width: 2.5 }],
  ['Nginx, keep-alive clients, p50', { colour: colours['nginx-keepalive'], dash: '5 4', width: 2.5 }],
];

export function renderChart(results: BenchResults): string {
  // The lines compare layouts on the uniform mix; the bars below show every mix through Nginx.
  const steps = results.steps.filter((s) => (s.pathMix ?? 'uniform') === 'uniform');
  const references = [results.reference.shellPath?.ratePerS, results.reference.bare?.ratePerS].filter((r): r is number => r !== undefined && r > 0);
  const rates = steps.map((s) => s.offeredPerS).filter((r) => r > 0);
  const sample = results.page.sample;
  const title =
    `Kiosk article page: direct and through Nginx, SSR capacity ${perS(results.capacity?.ratePerS)} req/s` +
    (sample ? ` (${sample.elements} elements, ${perS(sample.bytes)} bytes)` : '');
  const subtitle = `${results.environment.cpuModel}, server on core 0, generator on core 1; Node ${results.environment.nodeVersion}; commit ${results.environment.commit}; ${results.startedAt}`;
  const body =
    rates.length === 0
      ? `<text x="${width / 2}" y="${height / 2}" text-anchor="middle">no overload steps in this run</text>`
      : (() => {
          const domain = [...rates, ...references];
          const x = logScale(Math.min(...domain) / 1.25, Math.max(...domain) * 1.25, left, width - right);
          const maxMs = 10 ** Math.ceil(Math.log10(Math.max(results.options.timeoutMs, 1000)));
          return (
            latencyPanelSvg(steps, x, maxMs) +
            sharePanelSvg(steps, x) +
            xTicks(steps, x) +
            referenceLines(results, x) +
            `<text x="${(left + width - right) / 2}" y="${sharePanel.bottom + 56}" text-anchor="middle">offered, req/s (log)</text>` +
            sourcesPanelSvg(results.steps) +
            sourcesLegend()
          );
        })();
  return `${svgDocument(width, height, title, left, [`<text x="${left}" y="46" fill="#555">${escapeXml(subtitle)}</text>`, legend(left + 10, 62, legendEntries.slice(0, 4), 210), legend(left + 10, 80, legendEntries.slice(4), 210), body])}\n`;
}
