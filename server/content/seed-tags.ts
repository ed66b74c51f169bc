import type { SectionSlug } from '../../src/sections';
import { seededRandom } from './seeded-random';

// The seed's topics. Drawn from a generator of their own, seeded from the article's serial, so
// adding tags left every other seeded field (titles, bodies, ids) exactly as it was.

const deskTags: Record<SectionSlug, readonly string[]> = {
  news: ['city-council', 'courts', 'transport', 'policing', 'schools', 'weather', 'local-elections', 'budget'],
  domestic: ['parliament', 'elections', 'budget', 'immigration', 'schools', 'pensions', 'courts', 'regions'],
  world: ['elections', 'diplomacy', 'conflict', 'refugees', 'trade', 'summits', 'human-rights', 'climate'],
  sport: ['football', 'ice-hockey', 'athletics', 'tennis', 'cycling', 'transfers', 'olympics', 'skiing'],
  entertainment: ['film', 'television', 'music', 'festivals', 'books', 'theatre', 'awards', 'streaming'],
  business: ['markets', 'interest-rates', 'trade', 'energy', 'start-ups', 'jobs', 'inflation', 'housing-market'],
  health: ['hospitals', 'vaccines', 'mental-health', 'research', 'ageing', 'nutrition', 'waiting-lists', 'pandemics'],
  travel: ['city-breaks', 'rail', 'airlines', 'hiking', 'islands', 'hotels', 'winter-holidays', 'food'],
  tech: ['artificial-intelligence', 'privacy', 'smartphones', 'start-ups', 'cyber-security', 'gaming', 'social-media', 'energy'],
  cars: ['electric-cars', 'road-safety', 'car-reviews', 'fuel-prices', 'charging', 'motorsport', 'used-cars', 'transport'],
  style: ['fashion', 'design', 'food', 'interiors', 'beauty', 'sustainability', 'gardens', 'weddings'],
  housing: ['housing-market', 'interest-rates', 'renting', 'building', 'renovation', 'planning', 'energy', 'interiors'],
};

// Stories that cut across desks: a few pieces of every desk carry one of these.
const crossTags = ['climate', 'inflation', 'elections', 'analysis', 'explainer'];

/** Two to four of the desk's topics, sometimes one that cuts across desks; never twice the same. */
export function seedTags(section: SectionSlug, serial: number, seed: number): string[] {
  const next = seededRandom((seed ^ Math.imul(serial, 0x9e3779b1)) >>> 0);
  const pool = [...deskTags[section]];
  const tags: string[] = [];
  const count = 2 + Math.floor(next() * 3);
  while (tags.length < count) tags.push(pool.splice(Math.floor(next() * pool.length), 1)[0]!);
  const cross = crossTags[Math.floor(next() * crossTags.length * 3)];
  if (cross !== undefined && !tags.includes(cross)) tags.push(cross);
  return tags;
}
