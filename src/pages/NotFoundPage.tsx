import { sections } from '../sections';

export function NotFoundPage() {
  return (
    <div className="not-found">
      <h1>Page not found</h1>
      <p>There is nothing at this address. The story may have been moved or unpublished, or the link may be mistyped.</p>
      <p>
        <a href="/">Go to the front page</a> or choose a section:
      </p>
      <ul className="not-found__sections">
        {sections.map((s) => (
          <li key={s.slug}>
            <a href={`/${s.slug}`}>{s.name}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}
