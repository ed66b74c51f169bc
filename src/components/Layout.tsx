import type { ReactNode } from 'react';
import { sections } from '../sections';

export function Header() {
  return (
    <header className="site-header">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <div className="site-header__bar">
        <a className="site-logo" href="/" aria-label="Kiosk, front page">
          Kiosk
        </a>
      </div>
      <nav className="section-nav" aria-label="Sections">
        <ul>
          {sections.map((s) => (
            <li key={s.slug}>
              <a href={`/${s.slug}`}>{s.name}</a>
            </li>
          ))}
        </ul>
      </nav>
    </header>
  );
}

export function Footer() {
  return (
    <footer className="site-footer">
      <p>Kiosk — an open news site that stays up when the news breaks.</p>
      <nav aria-label="Footer">
        <ul>
          <li>
            <a href="/">Front page</a>
          </li>
          <li>
            <a href="/news">Latest news</a>
          </li>
        </ul>
      </nav>
    </footer>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  return (
    <>
      <Header />
      <main id="main" className="site-main" tabIndex={-1}>
        {children}
      </main>
      <Footer />
    </>
  );
}
