/** What the shell shows inside the chrome until the browser has loaded and rendered the page. */
export function ShellPlaceholder() {
  return (
    <div className="shell-placeholder" aria-busy="true">
      <p>Loading the latest news…</p>
      <noscript>
        <p>This page needs JavaScript while the site is very busy. Please reload in a moment.</p>
      </noscript>
    </div>
  );
}
