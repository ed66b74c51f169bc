import type { Article, FrontPage, Headline, SectionPage, TagPage } from '../content';
import type { SectionSlug } from '../sections';
import type { AppStore } from './index';
import { loadArticle, loadFrontPage, loadLatest, loadMostRead, loadSection, loadTag } from './thunks';

/**
 * How a route gets its page's data. In the browser, through the store: thunks answer from the
 * state when it holds the data (hydration is free) and fetch from /api what it lacks. On the
 * server, straight from the content into the state the page renders from and the browser
 * hydrates (server/page-state.ts): data first, then one store, no thunks or middleware per
 * request. Both must leave the same state behind (server/page-state.test.ts checks).
 */
export interface PageData {
  frontPage(): Promise<FrontPage>;
  section(slug: SectionSlug): Promise<SectionPage | null>;
  tag(slug: string): Promise<TagPage | null>;
  /** The article with the teasers its page shows; null when there is no such published article. */
  article(id: string): Promise<Article | null>;
  /** The latest headlines a page shows first. */
  latest(): Promise<Headline[]>;
  /** Most read, where the page's own render shows it (the server with DOM_BUDGET=off); else nothing. */
  mostReadWithPage(): Promise<void>;
}

/** The browser's: through the store's thunks. */
export function storeData(store: AppStore): PageData {
  return {
    frontPage: () => store.dispatch(loadFrontPage()),
    section: (slug) => store.dispatch(loadSection(slug)),
    tag: (slug) => store.dispatch(loadTag(slug)),
    article: (id) => store.dispatch(loadArticle(id)),
    latest: () => store.dispatch(loadLatest()),
    mostReadWithPage: () => store.dispatch(loadMostRead({ forRoute: true })),
  };
}
