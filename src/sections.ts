// The newsroom's sections. The slug is the first path segment of every section and article
// URL, so it is validated against this list on both sides.
export const sections = [
  { slug: 'news', name: 'News' },
  { slug: 'domestic', name: 'Domestic' },
  { slug: 'world', name: 'World' },
  { slug: 'sport', name: 'Sport' },
  { slug: 'entertainment', name: 'Entertainment' },
  { slug: 'business', name: 'Business' },
  { slug: 'health', name: 'Health' },
  { slug: 'travel', name: 'Travel' },
  { slug: 'tech', name: 'Tech' },
  { slug: 'cars', name: 'Cars' },
  { slug: 'style', name: 'Style' },
  { slug: 'housing', name: 'Housing' },
] as const;

export type SectionSlug = (typeof sections)[number]['slug'];
export type Section = (typeof sections)[number];

const bySlug = new Map<string, Section>(sections.map((s) => [s.slug, s]));

/** A slug-shaped string: lower-case letters and hyphens. Anything else is malformed (400). */
export const sectionSlugPattern = /^[a-z][a-z-]{0,31}$/;

/** Newsroom article ids: publish minute (YYYYMMDDHHmm) followed by a six-digit serial. */
export const articleIdPattern = /^\d{18}$/;

export function findSection(slug: string): Section | undefined {
  return bySlug.get(slug);
}

export function isSectionSlug(slug: string): slug is SectionSlug {
  return bySlug.has(slug);
}
