// The overload steps as an SVG: latency (log scale) above, server-rendered share below,
// both against the offered rate (log scale), fallback on against off.
import { perS } from './report';
import type { BenchResults, FallbackMode, OverloadStep } from './results';

const width = 960;
const left = 80;
const right = 40;
const latencyPanel = { top: 70, bottom: 370 };
const sharePanel = { top: 430, bottom: 590 };
const height = 660;
const colours: Record<FallbackMode, string> = { on: '#1f6fb4', off: '#c8352b', nginx: '#2a8c3f', 'nginx-keepalive': '#8a5cb8' };
const modes = ['off', 'on', 'nginx', 'nginx-keepalive'] as const;

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function logScale(min: number, max: number, from: number, to: number) {
  const span = Math.log(max) - Math.log(min);
  return (value: number) => from + ((Math.log(value) - Math.log(min)) / span) * (to - from);
}

function polyline(points: [number, number][], colour: string, dash: string, strokeWidth: number): string {
  const drawn = points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  if (drawn.length === 0) return '';
  const path = drawn.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
  const dots = drawn.map(([x, y]) => `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3" fill="${colour}"/>`).join('');
  return `<polyline points="${path}" fill="none" stroke="${colour}" stroke-width="${strokeWidth}" stroke-dasharray="${dash}"/>${dots}`;
}

function guide(y: number, label: string): string {
  return (
    `<line x1="${left}" x2="${width - right}" y1="${y}" y2="${y}" stroke="#999" stroke-dasharray="2 4"/>` +
    `<text x="${width - right - 4}" y="${y - 4}" text-anchor="end" fill="#666">${escape(label)}</text>`
  );
}

function axes(top: number, bottom: number, title: string): string {
  return (
    `<rect x="${left}" y="${top}" width="${width - left - right}" height="${bottom - top}" fill="none" stroke="#333"/>` +
    `<text x="${left - 56}" y="${(top + bottom) / 2}" transform="rotate(-90 ${left - 56} ${(top + bottom) / 2})" text-anchor="middle">${escape(title)}</text>`
  );
}

function latencyPanelSvg(steps: OverloadStep[], x: (rate: number) => number, maxMs: number): string {
  const y = logScale(1, maxMs, latencyPanel.bottom, latencyPanel.top);
  const clamp = (value: number) => y(Math.min(maxMs, Math.max(1, value)));
  const parts = [axes(latencyPanel.top, latencyPanel.bottom, 'latency, ms (log)')];
  for (let tick = 1; tick <= maxMs; tick *= 10) {
    parts.push(`<line x1="${left - 5}" x2="${left}" y1="${y(tick)}" y2="${y(tick)}" stroke="#333"/>`);
    parts.push(`<text x="${left - 8}" y="${y(tick) + 4}" text-anchor="end">${perS(tick)}</text>`);
  }
  parts.push(guide(y(100), '100 ms: capacity'), guide(y(250), '250 ms'), guide(y(500), '500 ms'));
  for (const mode of modes) {
    const series = steps.filter((s) => s.mode === mode);
    parts.push(polyline(series.map((s) => [x(s.offeredPerS), clamp(s.latencyMs.p50)]), colours[mode], '5 4', 1.5));
    parts.push(polyline(series.map((s) => [x(s.offeredPerS), clamp(s.latencyMs.p99)]), colours[mode], '', 2.5));
  }
  return parts.join('');
}

function sharePanelSvg(steps: OverloadStep[], x: (rate: number) => number): string {
  const { top, bottom } = sharePanel;
  const y = (share: number) => bottom - share * (bottom - top);
  const parts = [axes(top, bottom, 'server-rendered')];
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line x1="${left - 5}" x2="${left}" y1="${y(tick)}" y2="${y(tick)}" stroke="#333"/>`);
    parts.push(`<text x="${left - 8}" y="${y(tick) + 4}" text-anchor="end">${tick * 100}%</text>`);
  }
  for (const mode of modes) {
    const series = steps.filter((s) => s.mode === mode);
    parts.push(polyline(series.map((s) => [x(s.offeredPerS), y(s.ssrShare)]), colours[mode], '', 2.5));
  }
  return parts.join('');
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
        `<text x="${at}" y="${latencyPanel.bottom - 8 - i * 14}" dx="4" fill="#2a8f4a">${escape(`${label} ${perS(rate)}/s`)}</text>`
      );
    })
    .join('');
}

function legend(): string {
  const entries: [string, string, string][] = [
    ['fallback on, p99', colours.on, ''],
    ['fallback on, p50', colours.on, '5 4'],
    ['fallback off, p99', colours.off, ''],
    ['fallback off, p50', colours.off, '5 4'],
    ['Nginx, new conns, p99', colours.nginx, ''],
    ['Nginx, keep-alive, p99', colours['nginx-keepalive'], ''],
  ];
  return entries
    .map(([label, colour, dash], i) => {
      const lx = left + 10 + i * 140;
      return (
        `<line x1="${lx}" x2="${lx + 30}" y1="52" y2="52" stroke="${colour}" stroke-width="2.5" stroke-dasharray="${dash}"/>` +
        `<text x="${lx + 36}" y="56">${escape(label)}</text>`
      );
    })
    .join('');
}

export function renderChart(results: BenchResults): string {
  const steps = results.steps;
  const references = [results.reference.shellPath?.ratePerS, results.reference.bare?.ratePerS].filter((r): r is number => r !== undefined && r > 0);
  const rates = steps.map((s) => s.offeredPerS).filter((r) => r > 0);
  const sample = results.page.sample;
  const title =
    `Kiosk article page: fallback on vs off, SSR capacity ${perS(results.capacity?.ratePerS)} req/s` +
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
            `<text x="${(left + width - right) / 2}" y="${height - 8}" text-anchor="middle">offered, req/s (log)</text>`
          );
        })();
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${left}" y="22" font-size="15" font-weight="bold">${escape(title)}</text>`,
    `<text x="${left}" y="38" fill="#555">${escape(subtitle)}</text>`,
    legend(),
    body,
    '</svg>',
    '',
  ].join('\n');
}
