import { legacy_createStore } from '@reduxjs/toolkit';
import { mostReadSize, type Article, type ContentClient, type FrontPage, type Headline, type SectionPage, type TagPage } from '../src/content';
import type { SectionSlug } from '../src/sections';
import { rootReducer, type AppStore, type RootState } from '../src/store';
import { withEntry } from '../src/store/keyed';
import type { PageData } from '../src/store/page-data';

// The server's side of a route's data (src/store/page-data.ts): read straight from the content
// into the state the page renders from, which is also the state the browser hydrates. One store
// is made from it afterwards. In the browser the same routes go through thunks and reducers;
// both leave the same state behind (server/page-state.test.ts), so hydration matches.
//
// Per request this replaces a store with thunk middleware and a dispatch per loaded answer
// through immer's reducers: measured in the bench's in-process table (docs/performance.md).

export interface PageStateOptions {
  /** Latest headlines the page shows first (SSR_LATEST_ITEMS with the DOM budget on). */
  latestItems: number;
  /** 'browser': the blocks below the fold are left to it (DOM_BUDGET=on); 'server': rendered here. */
  belowFold: 'server' | 'browser';
  siteUrl: string;
}

const init = { type: '@@kiosk/page-state' };

export class PageState implements PageData {
  /** Each slice is replaced, never changed in place: the reducers' initial states are shared and frozen. */
  readonly state: RootState;

  constructor(
    private readonly content: ContentClient,
    private readonly options: PageStateOptions,
  ) {
    this.state = { ...rootReducer(undefined, init), render: { belowFoldDeferred: options.belowFold === 'browser', siteUrl: options.siteUrl } };
  }

  async frontPage(): Promise<FrontPage> {
    const page = await this.content.frontPage();
    this.state.frontPage = { page };
    return page;
  }

  async section(slug: SectionSlug): Promise<SectionPage | null> {
    const page = await this.content.section(slug);
    if (page)
      this.state.sections = withEntry(this.state.sections, slug, { items: page.items, nextCursor: page.nextCursor, loadingMore: false, moreFailed: false });
    return page;
  }

  async tag(slug: string): Promise<TagPage | null> {
    const page = await this.content.tag(slug);
    if (page) this.state.tags = withEntry(this.state.tags, slug, { items: page.items, nextCursor: page.nextCursor, loadingMore: false, moreFailed: false });
    return page;
  }

  async article(id: string): Promise<Article | null> {
    const page = await this.content.articleWithTeasers(id);
    if (!page) return null;
    this.state.articles = withEntry(this.state.articles, id, page.article);
    this.state.articleTeasers = withEntry(this.state.articleTeasers, id, { related: page.related, moreFromSection: page.moreFromSection });
    return page.article;
  }

  async latest(): Promise<Headline[]> {
    const items = await this.content.latest(this.options.latestItems);
    this.state.latest = { items, requested: this.options.latestItems };
    return items;
  }

  async mostReadWithPage(): Promise<void> {
    if (this.options.belowFold !== 'server') return;
    try {
      this.state.mostRead = { items: await this.content.mostRead(mostReadSize) };
    } catch {
      // Below the fold, and ranked again within seconds: an empty block until the next page.
    }
  }

  /** The one store the page renders from: the state as loaded, nothing to dispatch. */
  store(): AppStore {
    return legacy_createStore(rootReducer, this.state) as unknown as AppStore;
  }
}
