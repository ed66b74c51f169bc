import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import type { Article, Block } from '../../src/content';
import { pathUnder } from '../../src/request-kinds';
import { sections, type SectionSlug } from '../../src/sections';
import { seededRandom } from './seeded-random';
import { seedTags } from './seed-tags';
import { openSqliteStore } from './sqlite';

/** Same seed, same options: the same articles, byte for byte, on every machine. */
export const defaultSeed = 0x4b696f73;
/** The seeded newsroom's "now": the newest article goes out at this minute. */
export const newestPublishedAt = Date.UTC(2026, 10, 21, 21, 0);
export const defaultPublished = 10_000;
export const defaultDrafts = 200;
const batchSize = 1_000;
const minute = 60_000;
const maxSerial = 999_999;

export interface GenerateOptions {
  published: number;
  drafts: number;
  seed?: number;
  /** The sections articles are filed to (default: every section of src/sections.ts). */
  sections?: readonly SectionSlug[];
}

export interface SeedOptions {
  published?: number;
  drafts?: number;
  seed?: number;
  /** Delete whatever is there first; without it a store with articles is left alone. */
  reset?: boolean;
  log?: (line: string) => void;
}

export class StoreNotEmptyError extends Error {
  constructor(
    readonly path: string,
    readonly articles: number,
  ) {
    super(`content store ${path} already has ${articles} articles; reset it to seed again`);
    this.name = 'StoreNotEmptyError';
  }
}

/**
 * Newest first, a few minutes apart. Drafts are spread evenly among the published pieces
 * (a draft holds the slot it is planned for), so listings must skip them mid-page.
 *
 * Each thing is drawn from a random stream of its own, so a change to one leaves the others as
 * they were: the publish times (and so the ids) from one stream that knows nothing of sections;
 * each article's section by a draw per article and per section, the lowest weighted draw winning
 * (a new section takes only the articles it wins and moves no other); and each article's words
 * from a stream of its serial and section. Adding a section keeps every id and every article
 * that stays in its section, byte for byte.
 */
export function* generateArticles(options: GenerateOptions): Generator<Article, void, undefined> {
  const { published, drafts, seed = defaultSeed, sections: filedTo = sections.map((s) => s.slug) } = options;
  const total = published + drafts;
  if (!Number.isInteger(published) || !Number.isInteger(drafts) || published < 0 || drafts < 0) {
    throw new RangeError(`article counts must be whole numbers >= 0, got ${published} and ${drafts}`);
  }
  if (total > maxSerial) throw new RangeError(`at most ${maxSerial} articles fit the id serial, asked for ${total}`);

  if (filedTo.length === 0) throw new RangeError('seed: no section to file articles to');
  const clock = new Dice(seededRandom(mix(seed, clockStream)));
  let publishedMs = newestPublishedAt;
  for (let position = 0; position < total; position += 1) {
    if (position > 0) publishedMs -= clock.int(1, 8) * minute;
    const isDraft = draftsBefore(position + 1, drafts, total) > draftsBefore(position, drafts, total);
    // Serials count up with time, so even two pieces in one minute would sort by publish order.
    const serial = total - position;
    const section = fileTo(filedTo, serial, seed);
    const dice = new Dice(seededRandom(mix(seed, serial, slugHash(section))));
    yield writeArticle(dice, section, publishedMs, serial, isDraft ? 'draft' : 'published', seed);
  }
}

/** The publish times' stream, apart from every article's. */
const clockStream = 0x636c6f63;

/** One 32-bit seed from several numbers (FNV-1a over them, with a shift so nearby parts differ widely). */
function mix(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) h = Math.imul(h ^ (part >>> 0), 0x01000193) ^ (h >>> 15);
  return h >>> 0;
}

function slugHash(slug: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < slug.length; i += 1) h = Math.imul(h ^ slug.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The article's section: every section draws for it from its own stream (the article's serial
 * and the section's slug), weighted as often as its desk files, and the lowest draw wins.
 */
function fileTo(filedTo: readonly SectionSlug[], serial: number, seed: number): SectionSlug {
  let best: SectionSlug = filedTo[0]!;
  let bestDraw = Infinity;
  for (const slug of filedTo) {
    // An exponential draw with rate = weight: the lowest of them lands on each section in
    // proportion to its weight, and one section's draw never depends on which others there are.
    const draw = -Math.log(1 - seededRandom(mix(seed, serial, slugHash(slug), sectionStream))()) / (deskWeight[slug] ?? 1);
    if (draw < bestDraw) [best, bestDraw] = [slug, draw];
  }
  return best;
}

/** The section draws' stream, apart from the words'. */
const sectionStream = 0x73656374;

/** Spreads drafts evenly, half a gap in from either end, so none is the newest or oldest piece. */
function draftsBefore(position: number, drafts: number, total: number): number {
  return Math.floor((position * drafts + Math.floor(total / 2)) / total);
}

/** Fills a store with generated articles in transactions of 1,000, logging progress. */
export async function seedStore(path: string, options: SeedOptions = {}): Promise<{ inserted: number; ms: number }> {
  const { published = defaultPublished, drafts = defaultDrafts, seed = defaultSeed, reset = false, log = () => undefined } = options;
  const started = performance.now();
  mkdirSync(dirname(resolve(path)), { recursive: true });
  const store = openSqliteStore(path);
  try {
    const existing = store.countAll();
    if (existing > 0 && !reset) throw new StoreNotEmptyError(path, existing);
    if (existing > 0) log(`seed: reset, deleted ${store.deleteAll()} articles`);

    const total = published + drafts;
    let inserted = 0;
    for (const batch of batches(generateArticles({ published, drafts, seed }), batchSize)) {
      inserted += store.insertMany(batch);
      log(`seed: ${inserted}/${total} articles (${Math.floor((inserted * 100) / total)}%)`);
      // Lets a server sharing the process (dev mode) answer requests between batches.
      await new Promise((done) => setImmediate(done));
    }
    const ms = Math.round(performance.now() - started);
    log(`seed: wrote ${inserted} articles (${published} published, ${drafts} drafts) in ${ms} ms`);
    return { inserted, ms };
  } finally {
    store.close();
  }
}

/** True when there is nothing to serve yet: no file, no table, or no rows (drafts count as rows). */
export function isEmptyStore(path: string): boolean {
  if (!existsSync(path)) return true;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'articles'").get();
    return table === undefined || db.prepare('SELECT 1 FROM articles LIMIT 1').get() === undefined;
  } finally {
    db.close();
  }
}

/**
 * Seeds the store only when it is empty, and atomically: the articles go into a file beside
 * it that is renamed into place once complete, so a process killed mid-seed (an instance
 * stopped during its first deploy) leaves no half-filled store for the cluster to serve, and
 * the next start seeds again. Nothing may have the store open meanwhile: it runs before the
 * cluster starts (the Procfile's first command).
 */
export async function seedIfEmpty(path: string, options: Omit<SeedOptions, 'reset'> = {}): Promise<{ seeded: boolean; inserted: number; ms: number }> {
  if (!isEmptyStore(path)) return { seeded: false, inserted: 0, ms: 0 };
  const partial = `${path}.seeding`;
  // WAL and shared-memory files of an earlier store at the same path would be replayed into
  // the new one; of an earlier attempt, into the wrong file.
  for (const leftover of [partial, `${partial}-wal`, `${partial}-shm`, `${path}-wal`, `${path}-shm`]) {
    rmSync(leftover, { force: true });
  }
  const { inserted, ms } = await seedStore(partial, options);
  // Closing the last connection checkpointed the WAL into the file and removed it.
  renameSync(partial, path);
  return { seeded: true, inserted, ms };
}

function* batches<T>(items: Iterable<T>, size: number): Generator<T[], void, undefined> {
  let batch: T[] = [];
  for (const item of items) {
    batch.push(item);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

class Dice {
  constructor(private readonly next: () => number) {}

  /** Inclusive at both ends. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(list: readonly T[]): T {
    const item = list[Math.floor(this.next() * list.length)];
    if (item === undefined) throw new RangeError('seed: cannot pick from an empty list');
    return item;
  }
}

type Slots = Readonly<Record<string, readonly string[]>>;

/**
 * One story's facts: the first time a template asks for {city} one is picked, and every
 * later {city} in the headline, lead and body is the same place. {city2} is another city.
 */
class StoryFacts {
  private readonly chosen = new Map<string, string>();

  constructor(
    private readonly dice: Dice,
    private readonly slots: Slots,
  ) {}

  fill(template: string): string {
    if (!template.includes('{')) return template;
    return template.replace(/\{(\w+)\}/g, (_, key: string) => this.fact(key));
  }

  private fact(key: string): string {
    const known = this.chosen.get(key);
    if (known !== undefined) return known;
    const kind = key.replace(/\d+$/, '');
    const words = this.slots[kind];
    if (words === undefined) throw new Error(`seed: no words for {${key}}`);
    const taken = [...this.chosen].filter(([k]) => k !== key && k.replace(/\d+$/, '') === kind).map(([, v]) => v);
    const value = this.dice.pick(taken.length === 0 ? words : words.filter((word) => !taken.includes(word)));
    this.chosen.set(key, value);
    return value;
  }
}

function writeArticle(dice: Dice, section: SectionSlug, publishedMs: number, serial: number, status: Article['status'], seed: number): Article {
  const desk = desks[section];
  const { facts, story, title, lead } = writeHeadline(dice, desk);
  const id = `${publishMinute(publishedMs)}${String(serial).padStart(6, '0')}`;
  // A third of pieces get corrected or added to later, never past the newsroom's "now".
  const updatedMs = dice.chance(0.35) ? Math.min(newestPublishedAt, publishedMs + dice.int(4, 240) * minute) : publishedMs;
  return {
    id,
    section,
    title,
    lead,
    image: {
      src: pathUnder('media', `${id}.svg`),
      alt: facts.fill(story[2]),
      caption: facts.fill(dice.pick(captions)),
      credit: 'Kiosk / Photo desk',
      width: 1200,
      height: 675,
    },
    publishedAt: new Date(publishedMs).toISOString(),
    author: dice.pick(bylines),
    updatedAt: new Date(Math.max(publishedMs, updatedMs)).toISOString(),
    tags: seedTags(section, serial, seed),
    body: writeBody(dice, desk, facts),
    status,
  };
}

function publishMinute(ms: number): string {
  const at = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${at.getUTCFullYear()}${two(at.getUTCMonth() + 1)}${two(at.getUTCDate())}${two(at.getUTCHours())}${two(at.getUTCMinutes())}`;
}

export const titleLength = { min: 40, max: 90 } as const;
export const leadLength = { min: 120, max: 200 } as const;

function writeHeadline(dice: Dice, desk: Desk) {
  // Some word choices make a headline too long for a teaser; re-pick rather than truncate.
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const story = dice.pick(desk.stories);
    const facts = new StoryFacts(dice, { ...sharedSlots, ...desk.slots });
    const title = capitalise(facts.fill(story[0]));
    const lead = capitalise(facts.fill(story[1]));
    if (fits(title, titleLength) && fits(lead, leadLength)) return { facts, story, title, lead };
  }
  throw new Error('seed: no headline fits; check the story templates');
}

function fits(text: string, range: { min: number; max: number }): boolean {
  return text.length >= range.min && text.length <= range.max;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function writeBody(dice: Dice, desk: Desk, facts: StoryFacts): Block[] {
  const size = dice.int(8, 15);
  // Longer pieces are broken up by subheadings; never first, last or back to back.
  const subheadingsAt = new Set(size >= 14 ? [Math.round(size / 3), Math.round((2 * size) / 3)] : size >= 11 ? [dice.int(4, size - 4)] : []);
  const quoteSpots = range(2, size - 2).filter((i) => !subheadingsAt.has(i));
  const quoteAt = dice.chance(0.55) ? dice.pick(quoteSpots) : -1;
  const subheadings = [...desk.subheadings, ...commonSubheadings];
  const used = new Set<string>();
  const blocks: Block[] = [];
  for (let i = 0; i < size; i += 1) {
    if (subheadingsAt.has(i)) {
      blocks.push({ type: 'subheading', text: unused(used, () => dice.pick(subheadings)) });
    } else if (i === quoteAt) {
      blocks.push({
        type: 'quote',
        text: facts.fill(dice.pick([...desk.quotes, ...commonQuotes])),
        attribution: `${facts.fill('{speaker}')}, ${facts.fill(dice.pick([...desk.roles, ...commonRoles]))}`,
      });
    } else {
      const sentences = range(0, dice.int(2, 4)).map(() => unused(used, () => writeSentence(dice, desk, facts, used)));
      blocks.push({ type: 'paragraph', text: sentences.join(' ') });
    }
  }
  return blocks;
}

function writeSentence(dice: Dice, desk: Desk, facts: StoryFacts, used: Set<string>): string {
  const roll = dice.int(1, 20);
  if (roll <= 8) return facts.fill(dice.pick(desk.sentences));
  if (roll <= 15) return facts.fill(dice.pick(commonSentences));
  // "Analysts warned ..." then "Campaigners warned ..." reads like a loop: one use of each predicate.
  const predicate = dice.pick(sentencePredicates);
  if (used.has(predicate)) return facts.fill(dice.pick(commonSentences));
  used.add(predicate);
  return facts.fill(`${dice.pick(sentenceSubjects)} ${predicate}`);
}

/** Avoids saying the same thing twice in one article, within reason. */
function unused(used: Set<string>, write: () => string): string {
  let text = write();
  for (let attempt = 0; attempt < 8 && used.has(text); attempt += 1) text = write();
  used.add(text);
  return text;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}

/** [headline, lead, image alt text] */
type Story = readonly [string, string, string];

interface Desk {
  stories: readonly Story[];
  sentences: readonly string[];
  subheadings: readonly string[];
  quotes: readonly string[];
  /** Who a quote's speaker is, after their name. */
  roles: readonly string[];
  slots?: Slots;
}

// News is the busiest desk; everybody else files about as often as each other.
const deskWeight: Partial<Record<SectionSlug, number>> = { news: 3 };

const bylines = [
  'Anna Holm',
  'Ben Carter',
  'Chiara Rossi',
  'Daniel Kim',
  'Eva Lindgren',
  'Farid Khan',
  "Grace O'Neill",
  'Henrik Dahl',
  'Isabel Costa',
  'Jakob Meyer',
  'Karin Vos',
  'Liam Byrne',
  'Mina Park',
  'Nils Eriksen',
];

const sharedSlots: Slots = {
  city: [
    'Lindenvale',
    'Port Ellery',
    'Marrow Bay',
    'Westholm',
    'Carrick',
    'Ashby Green',
    'Brightwater',
    'Kellenford',
    'Dunmore',
    'Ravensby',
    'Halston',
    'Norwick',
  ],
  district: ['harbour', 'old town', 'university quarter', 'river district', 'north end', 'station area', 'east docks', 'market district'],
  person: [
    'Maria Lindqvist',
    'Tom Okafor',
    'Aino Virtanen',
    'David Mensah',
    'Sofia Marques',
    'Jonas Berg',
    'Leila Haddad',
    'Peter Novak',
    'Hannah Schultz',
    'Oliver Grant',
    'Priya Raman',
    'Mateo Ruiz',
    'Elin Sandberg',
    'Kwame Asante',
    'Clara Dubois',
    'Samuel Reyes',
  ],
  speaker: [
    'Ruth Adler',
    'Marcus Bell',
    'Nadia Petrova',
    'Owen Hughes',
    'Lucia Ferrante',
    'Erik Strand',
    'Yasmin Aziz',
    'Joel Mäkinen',
    'Fiona Walsh',
    'Tariq Said',
  ],
  n: ['three', 'four', 'five', 'six', 'seven', 'eight', 'ten', 'twelve'],
  num: ['2', '3', '4', '5', '6', '7', '8', '9'],
  big: ['1,200', '4,500', '8,000', '12,000', '18,500', '25,000', '40,000', '60,000'],
  pct: ['3', '4', '6', '8', '9', '12', '15', '18'],
  money: ['450,000', '2.4 million', '6 million', '18 million', '35 million', '120 million'],
  day: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'],
  month: ['December', 'January', 'February', 'March', 'April'],
  country: ['Valdoria', 'Estmark', 'Karelin', 'Soreland', 'Amberia', 'Lusova'],
};

const captions = [
  'The scene in {city} on {day} morning.',
  '{city} on {day} afternoon.',
  'Photographed in {city} earlier this month.',
  'An archive picture from {city}.',
  'The scene on {day}, a few hours after the announcement.',
];

const commonSentences = [
  'The details are expected to be published later this week.',
  '{person}, who has followed the issue for years, said the decision had been a long time coming.',
  'Officials declined to give a timetable, saying only that work was under way.',
  'Critics say the plan leaves too many questions unanswered.',
  'It is the first change of its kind in {city} since the early nineties.',
  'Similar schemes elsewhere have had mixed results.',
  'A final decision is expected before the end of {month}.',
  'Not everyone is convinced.',
  'Figures seen by Kiosk suggest the costs could be higher than first thought.',
  'The figures will be reviewed again in the spring.',
  'Those affected have been told they will be contacted directly.',
  'Supporters argue that doing nothing would cost more in the long run.',
  '{person} said it was too early to draw firm conclusions.',
  'The story has been widely shared on social media since {day}.',
  'Questions remain about who will pay.',
  'Several people Kiosk spoke to on {day} said they had heard nothing about the plans.',
  'For now, the mood is one of cautious optimism.',
  'Both sides have agreed to meet again next month.',
  'The change will be phased in gradually.',
  'Kiosk will update this story as more information becomes available.',
  'The announcement came earlier than many had expected.',
  'Some of the details are still being worked out.',
  'It is not yet clear how many people will be affected.',
  'A similar proposal was rejected {n} years ago.',
  'The timing has surprised some observers.',
  'Documents released on {day} shed some light on how the decision was reached.',
  'There was no immediate response from the other side.',
  'The numbers have been disputed.',
  'Further announcements are expected in the coming weeks.',
  'A petition on the subject has gathered more than {big} signatures.',
  'The debate is likely to continue well into {month}.',
  '{person} said the public had been kept in the dark for too long.',
  'Independent checks have so far found nothing unusual.',
  'Many of those Kiosk spoke to asked not to be named.',
  'The mood on {day} was noticeably calmer.',
];

// Any subject works with any predicate, which gives a hundred-odd plausible sentences.
const sentenceSubjects = [
  'Officials',
  'Council members',
  'Local residents',
  'Independent experts',
  'Opposition politicians',
  'Business owners',
  'Campaigners',
  'Several people Kiosk spoke to',
  'Analysts',
  'Union representatives',
];

const sentencePredicates = [
  'said they expected more details before the end of {month}.',
  'warned that the costs could rise further.',
  'welcomed the news but asked for a clear timetable.',
  'questioned whether the figures added up.',
  'said the change was overdue.',
  'pointed to similar plans elsewhere that had worked well.',
  'said they would be watching closely.',
  'argued that the decision should have been made years ago.',
  'called for an independent review.',
  'said it was too early to judge the impact.',
  'asked for the full figures to be made public.',
  'said they had been given little warning.',
  'described the move as a sensible compromise.',
  'expressed concern about the short timetable.',
  'urged everyone involved to stay calm.',
  'said they had been consulted only at the last minute.',
];

const commonSubheadings = [
  'What happens next',
  'The background',
  'Why it matters',
  'Mixed reactions',
  'The numbers',
  'A long road',
  'What critics say',
  'Looking ahead',
];

const commonQuotes = [
  'We have waited a long time for this, and now we need to see it delivered.',
  'This is not the end of the matter, and we will keep asking questions.',
  'Nobody pretends this will be easy, but it is the right thing to do.',
  'People deserve clear answers, not more promises.',
  'It has been an extraordinary few weeks for everyone involved.',
  'We listened carefully, and we changed the plan as a result.',
];

const commonRoles = ['who has lived in {city} for thirty years', 'a researcher at the University of {city}', 'a spokesperson for the organisers'];

const desks: Record<SectionSlug, Desk> = {
  news: {
    stories: [
      [
        '{city} council approves new tram line to the {district}',
        'The line, debated for more than a decade, should carry {big} passengers a day when it opens, and building work could start as early as next spring, the council said.',
        'A tram waiting at a stop on a rainy evening in {city}',
      ],
      [
        "Police appeal for witnesses after warehouse fire in {city}'s {district}",
        'Crews fought the blaze for {n} hours before bringing it under control; nobody was hurt, but police say they are keeping an open mind about what started it.',
        'Firefighters spraying water onto the roof of a burnt-out warehouse',
      ],
      [
        'Storm warning issued as heavy rain and strong winds head for {city}',
        'Forecasters expect up to {num}0 millimetres of rain by {day} evening, and the city has asked residents in low-lying streets to move their cars and keep drains clear.',
        'Waves breaking over the sea wall on the promenade in {city}',
      ],
      [
        "Residents split over plan to close {city}'s {district} to cars",
        'Shop owners fear losing passing trade, while parents say the streets around the schools have become unsafe; the council will put the plan to a vote in {month}.',
        'Cyclists and pedestrians sharing a narrow street lined with shops',
      ],
      [
        'Ferry services between {city} and {city2} suspended after engine failure',
        'The operator said about {big} passengers were affected and that replacement buses would run until the vessel has been inspected, which could take until {day}.',
        'A passenger ferry moored at an empty quay in {city}',
      ],
      [
        '{city} mayor unveils budget with {money} euros for road repairs',
        '{person} said the money would go first to the worst-hit streets in the {district}, but opposition councillors called the plan too little, too late.',
        'Road workers resurfacing a city street with a steamroller',
      ],
    ],
    sentences: [
      'The council will publish a full consultation report in {month}.',
      'Police have asked anyone with information to contact them.',
      'Emergency services were at the scene within minutes.',
      'The {district} has seen several similar incidents this year.',
      'A public meeting is planned for {day} evening at the town hall.',
    ],
    subheadings: ['At the scene', 'What the council says'],
    quotes: ['We knew something had to change in the {district}, and this is a start.', 'Our priority is keeping people safe, and we will not rush this.'],
    roles: ['a spokesperson for {city} council', "chair of the {district} residents' association", 'a local shop owner'],
  },
  domestic: {
    stories: [
      [
        'Government backs plan to raise the minimum wage by {pct} per cent',
        "Ministers say the increase will lift the pay of around {big} workers from next year, but employers' groups warn that small businesses may cut hours instead.",
        'Cafe staff preparing coffee behind a busy counter',
      ],
      [
        'Parliament votes to extend free school meals to all primary pupils',
        'The measure passed by {num} votes after a late-night debate and will cost {money} euros a year, to be paid for by closing tax loopholes, the ministry says.',
        'Children eating lunch at long tables in a school canteen',
      ],
      [
        'Rail strike set to disrupt commuter services across the country on {day}',
        'The union says talks over pay and staffing have broken down, and the national operator has advised passengers to work from home or expect one train an hour.',
        'Commuters checking a departure board at a crowded station',
      ],
      [
        'Survey finds more young adults than ever still live with their parents',
        'Nearly a third of people under thirty now share a home with a parent, up sharply from a decade ago, with high rents and short contracts blamed by researchers.',
        'A young man carrying moving boxes up a flight of stairs',
      ],
      [
        'Opposition demands inquiry into delays at the national passport office',
        'Applicants have waited up to {num} months for documents this year; the minister responsible blamed a new computer system and promised extra staff by {month}.',
        'People queuing outside a government office building',
      ],
    ],
    sentences: [
      'The bill now goes to a second reading.',
      'The finance ministry has not yet published its own estimate of the cost.',
      'Opinion polls suggest the public is evenly divided.',
      'The opposition has promised to reverse the decision if it wins the next election.',
      'Ministers are expected to set out further details on {day}.',
    ],
    subheadings: ['In parliament', 'The cost'],
    quotes: ['This is about fairness, plain and simple.', 'Working families cannot wait another year for a decision.'],
    roles: ['a government minister', 'an opposition MP', 'general secretary of the union'],
  },
  world: {
    stories: [
      [
        'Leaders agree to new talks on fishing rights in the {sea}',
        'After two days of negotiations, delegations from {num} coastal states said they would meet again in {month} to settle quotas that have divided them for years.',
        'Fishing boats tied up in a harbour at dawn',
      ],
      [
        'Floods force thousands from their homes along the {river}',
        'Aid agencies say the water is still rising in places and that clean drinking water and shelter are the most urgent needs as the rainy season reaches its peak.',
        'Residents wading through a flooded street carrying their belongings',
      ],
      [
        'Election in {country} heads for a run-off after a tight first round',
        'Neither of the two leading candidates won more than half of the votes, officials said, and the campaigns now have {n} weeks to win over undecided voters.',
        'Election officials counting paper ballots at a long table',
      ],
      [
        '{country} and {country2} sign trade deal after years of negotiations',
        'The agreement removes tariffs on most farm goods and machinery, and both governments say it will create jobs, though unions on each side remain sceptical.',
        'Two delegations shaking hands in front of a row of flags',
      ],
      [
        'Volcanic ash cloud grounds flights across the region for a second day',
        'Airlines cancelled more than {big} flights as the ash drifted over busy air corridors; scientists say the eruption is weakening but could flare up again.',
        'A plume of grey ash rising from a volcano above the clouds',
      ],
    ],
    sentences: [
      'The United Nations has called on all sides to show restraint.',
      'Foreign ministers are expected to discuss the situation at a summit next week.',
      'Neighbouring countries have offered help.',
      'Independent observers described the process as broadly fair.',
      'The government in {country} has not responded to requests for comment.',
    ],
    subheadings: ['The region reacts', 'International response'],
    quotes: ['We are ready to talk, but not at any price.', 'The people here need help now, not next month.'],
    roles: ['foreign minister of {country}', 'a regional coordinator for an aid agency', 'an election observer'],
    slots: {
      sea: ['North Sea', 'Baltic', 'Adriatic', 'Aegean', 'Barents Sea', 'Celtic Sea'],
      river: ['Danube', 'Mekong', 'Rhine', 'Niger', 'Paraná', 'Ganges'],
    },
  },
  sport: {
    stories: [
      [
        '{team} beat {team2} in late drama to go top of the league',
        'A header in the {minute} minute settled a tense match, sending the home fans into raptures and leaving the visitors {num} points behind with {n} games left.',
        'Players celebrating a goal in front of a packed stand',
      ],
      [
        '{team} appoint former captain {person} as new head coach',
        '{person} returns to the club after {num} years away and takes charge with the team in the bottom half of the table and supporters demanding a new direction.',
        'A coach in a club tracksuit speaking at a press conference',
      ],
      [
        '{city} marathon breaks participation record as {big} runners take part',
        'Cool weather and a flat course produced fast times, and organisers say the race raised more money for local charities than in any previous year.',
        'Runners crossing a bridge in the early morning light',
      ],
      [
        'Injury blow for the national team as star striker is out for {n} weeks',
        'Scans confirmed a hamstring tear picked up in training, and the coach must now find a replacement before the crucial qualifier against {country} on {day}.',
        'A football lying on an empty training pitch',
      ],
      [
        '{person} wins national tennis title after a five-set battle',
        "The {age}-year-old saved two match points in the fourth set and came back to win a final that lasted nearly four hours, the longest in the tournament's history.",
        'A tennis player stretching to return a ball on a clay court',
      ],
    ],
    sentences: [
      'The result leaves the title race wide open.',
      'The club said it would make a further statement after the weekend.',
      'Tickets for the next home game sold out within an hour.',
      '{team} have now won {n} of their last {num} matches.',
      'The coach has been criticised for resting key players.',
    ],
    subheadings: ['Turning point', 'The view from the dressing room'],
    quotes: ['The lads never stopped believing, and that is what I will remember.', 'We were not good enough today, and we all know it.'],
    roles: ['head coach of {team}', 'the club captain', 'a season-ticket holder for twenty years'],
    slots: {
      team: ['Harbour City', 'Westholm United', 'Carrick Rovers', 'Norwick Athletic', 'Dunmore FC', 'Ravensby Town', 'Halston Albion', 'Port Ellery'],
      minute: ['87th', '89th', '90th', '92nd', '94th'],
      age: ['19', '21', '23', '26', '31'],
    },
  },
  entertainment: {
    stories: [
      [
        "Crime drama set in {city} becomes the year's most-watched series",
        'The {n}-part series drew an average of {big} viewers an episode, and the broadcaster has already confirmed a second season, with filming to start in the spring.',
        'A film crew setting up lights on a cobbled street at night',
      ],
      [
        '{person} to headline the summer music festival in {city}',
        'Organisers say tickets for the three-day event sold out within hours, and they are now working with the city to add trains and night buses for festival-goers.',
        'A crowd with raised hands in front of an outdoor stage',
      ],
      [
        'Review: a quiet, clever debut novel about a family hotel on the coast',
        "{person}'s first book follows three generations who run a small seaside hotel, and it rewards patience with some of the sharpest dialogue of the year.",
        'A stack of hardback books on a wooden table',
      ],
      [
        '{city} theatre reopens after a {money} euro renovation',
        'The century-old building has new seats, a larger stage and better access for wheelchair users, and the first season opens with a new staging of a classic comedy.',
        'The restored interior of a theatre with red velvet seats',
      ],
      [
        "Local band's debut album climbs to number {num} in the national charts",
        'The four-piece from {city} recorded the album in a converted barn over {n} weeks, and they say they are still getting used to hearing their songs on the radio.',
        'A band performing on a small stage in a dimly lit club',
      ],
    ],
    sentences: [
      'Critics have been almost unanimous in their praise.',
      'The soundtrack has also been a hit on streaming services.',
      'A limited run of extra performances has been added for {month}.',
      'It is not the first time {city} has attracted film-makers.',
      'Fans queued overnight for the best seats.',
    ],
    subheadings: ['Behind the scenes', 'The verdict'],
    quotes: [
      'We made the thing we wanted to watch ourselves, and people seem to feel the same.',
      'Playing at home in front of friends and family is something else entirely.',
    ],
    roles: ['the director', 'the lead singer', 'artistic director of the festival'],
  },
  business: {
    stories: [
      [
        '{company} shares jump after profits beat expectations',
        'The company reported quarterly profit up {pct} per cent on the year and raised its outlook, sending its shares to their highest level since the start of the year.',
        'A trader watching share prices on several screens',
      ],
      [
        '{company} to cut {big} jobs as it moves production abroad',
        'Unions called the decision a betrayal of loyal staff, while management said rising costs had left it no choice; the cuts will be phased in over two years.',
        'Workers leaving a factory gate at the end of a shift',
      ],
      [
        'Central bank holds interest rates as inflation eases to {inflation} per cent',
        'The bank said price growth was slowing faster than expected but warned it was too early to cut rates, disappointing homeowners hoping for cheaper mortgages.',
        'The stone facade of the central bank building',
      ],
      [
        'Small shops in {city} struggle as rents rise and footfall falls',
        'Shop owners in the {district} say trade has dropped by as much as {pct} per cent this year, and several long-standing businesses have already closed their doors.',
        'A shop window with a closing-down sale sign',
      ],
      [
        '{company} agrees {money} euro takeover of a smaller rival',
        "The deal, which still needs approval from competition authorities, would create the country's largest firm in the sector, and both boards back it.",
        'Two executives signing documents at a boardroom table',
      ],
    ],
    sentences: [
      'Shares in {company} closed {pct} per cent higher.',
      'The company will report full-year results in {month}.',
      'Economists had expected a smaller increase.',
      'The wider market was little changed.',
      'Analysts say the outlook for the sector remains uncertain.',
    ],
    subheadings: ['Market reaction', 'What it means for customers'],
    quotes: ['These are difficult decisions, but they protect the business for the long term.', 'The numbers are better than anyone dared to hope a year ago.'],
    roles: ['chief executive of {company}', 'an analyst at Halston Bank', 'chief economist at the chamber of commerce'],
    slots: {
      company: ['Nordhavn Shipping', 'Ellery Foods', 'Brightwater Energy', 'Halston Bank', 'Carrick Steel', 'Kestrel Air', 'Marrow Bay Brewery'],
      inflation: ['2.1', '2.4', '2.8', '3.2'],
    },
  },
  health: {
    stories: [
      [
        'Hospital waiting times in {city} fall for the first time in {n} years',
        'Patients now wait an average of {num} weeks for routine operations, and the health authority credits new weekend clinics and the hiring of more theatre nurses.',
        'A nurse walking along a bright hospital corridor',
      ],
      [
        'Study links short daily walks to better sleep in older adults',
        'Researchers followed {big} people over the age of sixty for two years and found those who walked for half an hour a day slept longer and woke less often.',
        'Two older women walking along a path in a park',
      ],
      [
        'Flu season arrives early, and doctors urge people to get vaccinated',
        'Cases have risen sharply in the past {n} weeks, especially among children, and pharmacies are offering walk-in vaccinations without appointments until {month}.',
        'A pharmacist preparing a vaccine injection',
      ],
      [
        'New mental health helpline for teenagers opens in {city}',
        'The service is staffed by trained volunteers every evening until midnight, and it was set up after schools reported a rise in pupils struggling with anxiety.',
        'A volunteer wearing a headset in a quiet call centre',
      ],
      [
        "Dentists warn that sugary sports drinks are damaging children's teeth",
        'A survey of {num}00 dentists found most had seen more tooth decay linked to energy and sports drinks, and they are calling for clearer labelling on bottles.',
        'Rows of brightly coloured drinks bottles on a supermarket shelf',
      ],
    ],
    sentences: [
      'The study was published in a peer-reviewed journal on {day}.',
      'Doctors stress that anyone with symptoms should stay at home.',
      'The health authority says it will publish updated figures every month.',
      'The researchers say larger studies are needed to confirm the findings.',
      'Patient groups have welcomed the move.',
    ],
    subheadings: ['What the research says', 'Advice for patients'],
    quotes: ['Small changes, made every day, add up to a lot.', 'Our staff have worked incredibly hard to get those numbers down.'],
    roles: ['a GP in {city}', 'lead author of the study', 'chief nurse at {city} General Hospital'],
  },
  travel: {
    stories: [
      [
        'Night train from {city} to the mountains returns after a decade',
        'The service will run three times a week during the winter season, with sleeper cabins and a dining car, and the first departures are already almost fully booked.',
        'A sleeper train standing at a platform in the evening',
      ],
      [
        'A weekend in {city}: markets, harbour walks and the best fish soup',
        'Our travel writer spent two days exploring the {district}, from early-morning fish auctions to tiny cafes, and found a city that rewards visitors who go slowly.',
        'Colourful wooden houses along a harbour on a sunny day',
      ],
      [
        'Airlines add new direct routes as winter holiday bookings soar',
        'Bookings for the coming season are up {pct} per cent on last year, and {n} new routes to sunny destinations will start flying from the main airport in {month}.',
        'A passenger plane taking off at sunset',
      ],
      [
        'Island hopping on a budget: {n} ferry routes worth taking this summer',
        'You do not need a yacht to explore the archipelago; public ferries reach most of the islands, and a season ticket costs less than one night in a city hotel.',
        'A small ferry approaching a rocky island',
      ],
      [
        'Tourist tax in {city} to rise as visitor numbers hit a record',
        'The city says the extra money will pay for cleaning and for protecting the historic {district}, but hotel owners fear visitors will simply stay elsewhere.',
        'Tourists taking photographs in a crowded old town square',
      ],
    ],
    sentences: [
      'Book early: the cheapest tickets go first.',
      'The best time to visit is late spring, before the crowds arrive.',
      'Most of the sights are within walking distance of the station.',
      'Prices have risen sharply since last season.',
      'Local guides recommend avoiding the weekend if you can.',
    ],
    subheadings: ['Getting there', 'Where to eat'],
    quotes: [
      'Visitors are always welcome, but we want them to stay longer and spend less time queuing.',
      'Once people try the train, they rarely go back to flying.',
    ],
    roles: ['head of the {city} tourist board', 'a hotel owner in the {district}', 'a travel agent'],
  },
  tech: {
    stories: [
      [
        '{company} launches app that lets passengers track buses in real time',
        'The app, built with the city transport authority, shows live bus positions and how crowded they are, and it was downloaded {big} times in its first week.',
        'A person checking a bus timetable on a smartphone at a bus stop',
      ],
      [
        'Data breach at {company} exposes details of {big} customers',
        'The company says passwords were encrypted and card numbers were not taken, but it has advised customers to watch out for phishing emails in the coming weeks.',
        'Lines of code on a laptop screen in a dark room',
      ],
      [
        'Schools in {city} to ban mobile phones in classrooms from {month}',
        'Head teachers say the ban will help pupils concentrate, while some parents worry about reaching their children in an emergency; phones will be kept in lockers.',
        "Pupils' mobile phones stored in a row of small lockers",
      ],
      [
        'Review: {gadget} is fast, light and far too expensive',
        "The battery lasts all day and the screen is superb, but at this price most people will be happier with last year's model, which does nearly everything as well.",
        'A thin laptop open on a desk beside a cup of coffee',
      ],
      [
        'Start-up from {city} raises {money} euros to build greener batteries',
        'The company, founded by {n} university researchers, wants to replace rare metals with salt-based materials and hopes to open its first factory within three years.',
        'A researcher in a lab coat holding a small battery cell',
      ],
    ],
    sentences: [
      'The update is rolling out to users over the next few days.',
      'Security researchers say the problem had existed for months.',
      '{company} said it had informed the data protection authority.',
      'The code has been made available for others to inspect.',
      'Early reviews have been mostly positive.',
    ],
    subheadings: ['How it works', 'Privacy concerns'],
    quotes: ['Good technology should disappear into the background.', 'We take the security of our customers extremely seriously.'],
    roles: ['founder of {company}', 'a security researcher', 'head of digital services in {city}'],
    slots: {
      company: ['Fjordsoft', 'Kestrel Labs', 'Brightline Systems', 'Northwind Data', 'Pixelhaven'],
      gadget: ['the new Kestrel X2 laptop', 'the Pixelhaven 9 phone', 'the Fjordsoft smartwatch'],
    },
  },
  cars: {
    stories: [
      [
        'Road test: {car} is a sensible family car with a surprising turn of speed',
        'It is roomy, quiet on the motorway and cheap to run, and while the interior feels a little plain, few rivals at this price are as comfortable on long journeys.',
        'A grey estate car driving along a coastal road',
      ],
      [
        'Electric cars outsell diesel models for the first time',
        'New figures show electric models made up {pct} per cent of new car sales last month, helped by falling prices and more charging points along the main motorways.',
        'An electric car plugged in at a roadside charging station',
      ],
      [
        '{city} to introduce a low-emission zone in the {district} next year',
        'Older petrol and diesel vehicles will pay a daily charge to enter the zone, and the council says the money will be spent on buses and safer cycle routes.',
        'Traffic queuing at a junction in a city centre',
      ],
      [
        'Winter tyres: what drivers need to know before the first frost',
        'Mechanics say many drivers leave the change too late; we explain the rules, how to check tread depth and why all-season tyres are a compromise worth considering.',
        'A mechanic changing a tyre in a garage',
      ],
      [
        'Car makers recall {big} vehicles over faulty brake sensors',
        'Owners will be contacted by letter and the repair takes about an hour, the manufacturer said, adding that it knew of no accidents caused by the fault so far.',
        'Rows of new cars parked at a port awaiting shipment',
      ],
    ],
    sentences: [
      'Prices start at just under thirty thousand euros.',
      'Insurance costs for younger drivers remain a concern.',
      'The motoring organisation has welcomed the change.',
      'Charging at home is still far cheaper than at the roadside.',
      'Dealers report long waiting lists for the most popular models.',
    ],
    subheadings: ['On the road', 'Running costs'],
    quotes: ['Drivers want something that just works, every single morning.', 'Safety has to come before everything else.'],
    roles: ['a spokesperson for the motoring organisation', 'a mechanic in {city}', 'a car dealer'],
    slots: {
      car: ['the Volta E4', 'the Norden Estate', 'the Kestrel GT', 'the Arden city car'],
    },
  },
  style: {
    stories: [
      [
        'Second-hand clothing shops thrive as shoppers look for bargains',
        'Vintage and charity shops in {city} report their busiest year yet, with younger customers in particular hunting for quality coats, boots and knitwear.',
        'Racks of second-hand coats in a vintage clothing shop',
      ],
      [
        "Autumn's key trend is the oversized wool coat, and here is how to wear it",
        'Designers have gone big this season, and our fashion editor picks {n} coats at every price and explains how to keep the look sharp rather than shapeless.',
        'A model in a long camel wool coat walking down a street',
      ],
      [
        'Designer from {city} wins award for furniture made from recycled sails',
        "{person} turns old sailcloth from the harbour's boatyards into chairs and lampshades, and the judges praised work that is both practical and beautiful.",
        'A chair upholstered with weathered white sailcloth',
      ],
      [
        'The small kitchen makeover: {n} changes that make the biggest difference',
        'Fresh paint, better lighting and clever storage can transform a cramped kitchen without a full renovation, and most of our ideas cost less than you think.',
        'A small bright kitchen with open wooden shelves',
      ],
      [
        'Why the humble cardigan is back in fashion this winter',
        'Once seen as something your grandfather wore, the cardigan has returned to the catwalks, and shops say sales have doubled compared with last winter.',
        'A folded knitted cardigan on a wooden chair',
      ],
    ],
    sentences: [
      'Quality, not quantity, is the message this season.',
      'Prices range from under fifty euros to well over five hundred.',
      'Neutral colours dominate, with the odd flash of deep red.',
      'Many of the pieces are made locally.',
      'The look works just as well with trainers as with boots.',
    ],
    subheadings: ['How to wear it', 'Where to buy'],
    quotes: ['Buy less, choose well, and make it last.', 'People want things with a story behind them.'],
    roles: ['a designer based in {city}', 'owner of a vintage shop in the {district}', 'our fashion editor'],
  },
  housing: {
    stories: [
      [
        'House prices in {city} rise {pct} per cent in a year',
        'Estate agents say demand from first-time buyers remains strong despite higher mortgage costs, and homes in the {district} are selling in a matter of days.',
        'A row of terraced houses with estate agent signs outside',
      ],
      [
        'Council plans {big} new homes on former rail yards in {city}',
        'A third of the homes would be let at below-market rents, but neighbours worry about traffic and want a new school built before the first tenants move in.',
        'An aerial view of disused railway tracks next to a river',
      ],
      [
        'Tenants in {city} win the right to keep pets after a long campaign',
        'New rules mean landlords can no longer refuse pets without a good reason, a change campaigners say will help thousands of renters who feared losing their homes.',
        'A woman sitting on a sofa with a dog in a rented flat',
      ],
      [
        'Renovating an old farmhouse: what we learned in our first year',
        'Rotten beams, a leaking roof and a boiler older than the children: one family tells us how they turned a wreck into a warm home, and what they would change.',
        'A stone farmhouse with scaffolding on one side',
      ],
      [
        'Mortgage rates fall for the third month in a row',
        'Lenders cut their fixed rates again this week, and brokers say it is a good time for homeowners coming to the end of a deal to shop around before committing.',
        'A couple looking over mortgage papers at a kitchen table',
      ],
    ],
    sentences: [
      'Average rents in {city} have risen faster than wages for {n} years in a row.',
      'The planning application will be decided in {month}.',
      'First-time buyers now need a deposit of around a fifth of the price.',
      'The housing association says demand far outstrips supply.',
      'Building costs have stabilised after two difficult years.',
    ],
    subheadings: ['For buyers', 'For renters'],
    quotes: ['Everyone deserves a safe, warm home they can afford.', 'The market is calmer than it was, but it is far from cheap.'],
    roles: ['an estate agent in {city}', "a spokesperson for the tenants' union", 'a mortgage broker'],
  },
};
