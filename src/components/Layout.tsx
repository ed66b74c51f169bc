import type { ReactNode } from 'react';
import { sections } from '../sections';
import { standingTopics, tagName, tagPath } from '../tags';

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
        <ul className="site-header__links">
          <li>
            <a href="/news">Latest news</a>
          </li>
          <li>
            <a href="mailto:tips@kiosk.example">Send us a tip</a>
          </li>
        </ul>
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

/** The newsroom's standing pages; Kiosk has none of its own yet, so they are mail links to the desks. */
const newsroomLinks = [
  { href: 'mailto:tips@kiosk.example', label: 'Send us a tip' },
  { href: 'mailto:corrections@kiosk.example', label: 'Corrections' },
  { href: 'mailto:letters@kiosk.example', label: 'Letters to the editor' },
  { href: 'mailto:press@kiosk.example', label: 'Press office' },
  { href: 'mailto:ads@kiosk.example', label: 'Advertise with us' },
  { href: 'mailto:jobs@kiosk.example', label: 'Work with us' },
  { href: 'mailto:privacy@kiosk.example', label: 'Privacy questions' },
  { href: 'mailto:reader@kiosk.example', label: 'Reader services' },
] as const;

/** Plain links to the newsroom's profiles: no widget, no script. */
const followLinks = [
  { href: 'https://bsky.app/profile/kiosk.example', label: 'Bluesky' },
  { href: 'https://www.facebook.com/kiosk.example', label: 'Facebook' },
  { href: 'https://www.instagram.com/kiosk.example', label: 'Instagram' },
  { href: 'https://www.linkedin.com/company/kiosk-example', label: 'LinkedIn' },
] as const;

export function Footer() {
  return (
    <footer className="site-footer">
      <div className="site-footer__columns">
        <nav aria-labelledby="footer-sections">
          <h2 id="footer-sections">All sections</h2>
          <ul>
            <li>
              <a href="/">Front page</a>
            </li>
            {sections.map((s) => (
              <li key={s.slug}>
                <a href={`/${s.slug}`}>{s.name}</a>
              </li>
            ))}
          </ul>
        </nav>
        <nav aria-labelledby="footer-topics">
          <h2 id="footer-topics">Topics</h2>
          <ul>
            {standingTopics.map((tag) => (
              <li key={tag}>
                <a href={tagPath(tag)}>{tagName(tag)}</a>
              </li>
            ))}
          </ul>
        </nav>
        <nav aria-labelledby="footer-newsroom">
          <h2 id="footer-newsroom">The newsroom</h2>
          <ul>
            {newsroomLinks.map((l) => (
              <li key={l.href}>
                <a href={l.href}>{l.label}</a>
              </li>
            ))}
          </ul>
        </nav>
        <nav aria-labelledby="footer-follow">
          <h2 id="footer-follow">Follow Kiosk</h2>
          <ul>
            {followLinks.map((l) => (
              <li key={l.href}>
                <a href={l.href} rel="noopener noreferrer">
                  {l.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </div>
      <p>Kiosk — an open news site that stays up when the news breaks.</p>
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
