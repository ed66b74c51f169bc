// What the server writes into the HTML document and the browser reads back, named once so
// the two sides cannot drift apart.

/** The element React renders into. */
export const rootElementId = 'root';

/** `<script type="application/json">` carrying the serialized Redux state. */
export const stateElementId = '__KIOSK_STATE__';

/** Attribute on the root element: `ssr` → hydrateRoot; `shell` → load data, then createRoot. */
export const renderModeAttribute = 'data-render-mode';

export type RenderMode = 'ssr' | 'shell';

const unsafe = /[<>&\u2028\u2029]/g;
const replacements: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON safe to place inside a `<script>` element: no `</script>`, `<!--` or `&` can close or
 * confuse the element, and U+2028/2029 cannot break older JavaScript parsers. The only way
 * state crosses from server to browser.
 */
export function serializeState(state: unknown): string {
  return JSON.stringify(state).replace(unsafe, (c) => replacements[c] ?? c);
}
