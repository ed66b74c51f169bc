// The newsroom's letters a reader can sign up for from the article page; the endpoint
// (server/newsletter.ts) accepts these ids and nothing else.
export const newsletters = [
  { id: 'morning', name: 'The morning briefing, daily' },
  { id: 'sport', name: 'Sport, after the weekend' },
  { id: 'business', name: 'Business, on Fridays' },
] as const;

export type NewsletterId = (typeof newsletters)[number]['id'];

export function isNewsletterId(value: string): value is NewsletterId {
  return newsletters.some((n) => n.id === value);
}
