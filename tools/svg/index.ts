// @kiosk/svg: the one SVG writer the tools' charts share (the benchmark's, the capacity
// simulator's, the fleet run's): escaping, scales, lines, framed panels with ticks, legends and
// the document. Each chart keeps only its own layout and data. A library of the tools, not a
// tool: no command, and nothing of the product or of any package (test/boundaries.test.ts).

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export type Scale = (value: number) => number;

export function linearScale(min: number, max: number, from: number, to: number): Scale {
  return (value) => from + ((value - min) / (max - min || 1)) * (to - from);
}

export function logScale(min: number, max: number, from: number, to: number): Scale {
  const span = Math.log(max) - Math.log(min);
  return (value) => from + ((Math.log(value) - Math.log(min)) / span) * (to - from);
}

/** The next round number at or above `value` (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × a power of ten). */
export function niceMax(value: number): number {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  return [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * magnitude).find((m) => m >= value)!;
}

export interface LineStyle {
  colour: string;
  dash?: string;
  width?: number;
  /** A dot on every point (for a few measured points rather than a series). */
  dots?: boolean;
}

/** A polyline through the finite points; nothing when none is. */
export function polyline(points: [number, number][], style: LineStyle): string {
  const drawn = points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  if (drawn.length === 0) return '';
  const path = drawn.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
  const dots = style.dots ? drawn.map(([x, y]) => `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3" fill="${style.colour}"/>`).join('') : '';
  return `<polyline points="${path}" fill="none" stroke="${style.colour}" stroke-width="${style.width ?? 2}" stroke-dasharray="${style.dash ?? ''}"/>${dots}`;
}

export interface Panel {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** A framed panel with its title up the left side and labelled ticks at the given y positions. */
export function panelFrame(panel: Panel, title: string, ticks: [y: number, label: string][]): string {
  const { left, right, top, bottom } = panel;
  const titleX = left - 58;
  const parts = [
    `<rect x="${left}" y="${top}" width="${right - left}" height="${bottom - top}" fill="none" stroke="#333"/>`,
    `<text x="${titleX}" y="${(top + bottom) / 2}" transform="rotate(-90 ${titleX} ${(top + bottom) / 2})" text-anchor="middle">${escapeXml(title)}</text>`,
  ];
  for (const [y, label] of ticks) {
    parts.push(`<line x1="${left - 5}" x2="${left}" y1="${y}" y2="${y}" stroke="#333"/>`);
    parts.push(`<text x="${left - 8}" y="${y + 4}" text-anchor="end">${escapeXml(label)}</text>`);
  }
  return parts.join('');
}

/** A dotted horizontal line across the panel, labelled at its right end. */
export function guideLine(panel: Panel, y: number, label: string): string {
  return (
    `<line x1="${panel.left}" x2="${panel.right}" y1="${y}" y2="${y}" stroke="#999" stroke-dasharray="2 4"/>` +
    `<text x="${panel.right - 4}" y="${y - 4}" text-anchor="end" fill="#666">${escapeXml(label)}</text>`
  );
}

export type LegendEntry = [label: string, style: LineStyle];

/** Legend entries in a column from (x, y), or in a row when `across` gives the step between them. */
export function legend(x: number, y: number, entries: LegendEntry[], across?: number): string {
  return entries
    .map(([label, style], i) => {
      const lx = across ? x + i * across : x;
      const ly = across ? y : y + i * 20;
      return (
        `<line x1="${lx}" x2="${lx + 28}" y1="${ly}" y2="${ly}" stroke="${style.colour}" stroke-width="${style.width ?? 2}" stroke-dasharray="${style.dash ?? ''}"/>` +
        `<text x="${lx + 34}" y="${ly + 4}">${escapeXml(label)}</text>`
      );
    })
    .join('');
}

/** The whole document: white background, a bold title, then the parts. */
export function svgDocument(width: number, height: number, title: string, titleX: number, parts: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${titleX}" y="30" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    ...parts,
    '</svg>',
  ].join('\n');
}
