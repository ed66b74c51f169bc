// Tags are the newsroom's topics across sections ("elections", "climate"). A tag is a slug, the
// last path segment of its page (/tag/climate); its name is written from the slug, so a tag
// needs no table of its own and every store, the CMS and the API agree on it by construction.

/** Lower-case letters and digits in hyphen-joined words, at most 40 characters. */
export const tagSlugPattern = /^(?=.{1,40}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Most tags an article may carry. */
export const maxTagsPerArticle = 8;

export function isTagSlug(value: string): boolean {
  return tagSlugPattern.test(value);
}

/** "climate-policy" → "Climate policy". */
export function tagName(slug: string): string {
  const words = slug.replace(/-/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function tagPath(slug: string): string {
  return `/tag/${slug}`;
}

/** The newsroom's standing topics, linked from every page's footer (the editors' choice, not computed). */
export const standingTopics = [
  'elections',
  'climate',
  'inflation',
  'interest-rates',
  'housing-market',
  'artificial-intelligence',
  'football',
  'transport',
  'explainer',
  'analysis',
] as const;
