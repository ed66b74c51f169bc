import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { Article, ArticleWithTeasers, FrontPage, Headline, SectionPage, TagPage, Teaser } from '../content';
import { emptyKeyed, entryOf, setEntry, type Keyed } from './keyed';

export interface FrontPageState {
  page: FrontPage | null;
}

export const frontPageSlice = createSlice({
  name: 'frontPage',
  initialState: { page: null } as FrontPageState,
  reducers: {
    frontPageLoaded(state, action: PayloadAction<FrontPage>) {
      state.page = action.payload;
    },
  },
});

/** A list of teasers paged by cursor: a section's or a tag's. */
export interface Listing {
  items: Teaser[];
  nextCursor: string | null;
  loadingMore: boolean;
  moreFailed: boolean;
}

export type ListingsState = Keyed<Listing>;

interface ListingPage {
  key: string;
  items: Teaser[];
  nextCursor: string | null;
}

/** Sections and tags page the same way: one slice shape, keyed by slug. */
function listingSlice<N extends string>(name: N) {
  return createSlice({
    name,
    initialState: emptyKeyed<Listing>() as ListingsState,
    reducers: {
      listingLoaded(state, action: PayloadAction<ListingPage>) {
        const { key, items, nextCursor } = action.payload;
        setEntry(state, key, { items, nextCursor, loadingMore: false, moreFailed: false });
      },
      moreRequested(state, action: PayloadAction<string>) {
        const listing = entryOf(state, action.payload);
        if (listing) {
          listing.loadingMore = true;
          listing.moreFailed = false;
        }
      },
      moreLoaded(state, action: PayloadAction<ListingPage>) {
        const listing = entryOf(state, action.payload.key);
        if (!listing) return;
        const seen = new Set(listing.items.map((t) => t.id));
        listing.items.push(...action.payload.items.filter((t) => !seen.has(t.id)));
        listing.nextCursor = action.payload.nextCursor;
        listing.loadingMore = false;
      },
      moreFailed(state, action: PayloadAction<string>) {
        const listing = entryOf(state, action.payload);
        if (listing) {
          listing.loadingMore = false;
          listing.moreFailed = true;
        }
      },
    },
  });
}

export const sectionsSlice = listingSlice('sections');
export const tagsSlice = listingSlice('tags');

export function sectionListingPage(page: SectionPage): ListingPage {
  return { key: page.section, items: page.items, nextCursor: page.nextCursor };
}

export function tagListingPage(page: TagPage): ListingPage {
  return { key: page.tag, items: page.items, nextCursor: page.nextCursor };
}

export type ArticlesState = Keyed<Article>;

export const articlesSlice = createSlice({
  name: 'articles',
  initialState: emptyKeyed<Article>() as ArticlesState,
  reducers: {
    articleLoaded(state, action: PayloadAction<Article>) {
      setEntry(state, action.payload.id, action.payload);
    },
  },
});

/** The teasers an article page shows besides the article, by article id. */
export type ArticleTeasers = Pick<ArticleWithTeasers, 'related' | 'moreFromSection'>;

export type ArticleTeasersState = Keyed<ArticleTeasers>;

export const articleTeasersSlice = createSlice({
  name: 'articleTeasers',
  initialState: emptyKeyed<ArticleTeasers>() as ArticleTeasersState,
  reducers: {
    articleTeasersLoaded(state, action: PayloadAction<ArticleWithTeasers>) {
      const { article, related, moreFromSection } = action.payload;
      setEntry(state, article.id, { related, moreFromSection });
    },
  },
});

export interface MostReadState {
  items: Headline[] | null;
}

export const mostReadSlice = createSlice({
  name: 'mostRead',
  initialState: { items: null } as MostReadState,
  reducers: {
    mostReadLoaded(state, action: PayloadAction<Headline[]>) {
      state.items = action.payload;
    },
  },
});

/**
 * How this page was rendered, written by the server into the state: with the DOM budget on,
 * the blocks below the fold were left out of the server's HTML, and the browser renders them
 * once hydrated. A page the browser renders itself (the shell, a navigation) shows them at once.
 */
export interface RenderState {
  belowFoldDeferred: boolean;
  /** The canonical origin (SITE_URL), for share links; '' in the shell, which has no state. */
  siteUrl: string;
}

export const renderSlice = createSlice({
  name: 'render',
  initialState: { belowFoldDeferred: false, siteUrl: '' } as RenderState,
  reducers: {},
});

export interface LatestState {
  items: Headline[] | null;
  /** How many were asked for: fewer than that came back only if there are no more. */
  requested: number;
}

export const latestSlice = createSlice({
  name: 'latest',
  initialState: { items: null, requested: 0 } as LatestState,
  reducers: {
    latestLoaded(state, action: PayloadAction<{ items: Headline[]; requested: number }>) {
      state.items = action.payload.items;
      state.requested = action.payload.requested;
    },
  },
});

export const { frontPageLoaded } = frontPageSlice.actions;
export const { articleLoaded } = articlesSlice.actions;
export const { articleTeasersLoaded } = articleTeasersSlice.actions;
export const { mostReadLoaded } = mostReadSlice.actions;
export const { latestLoaded } = latestSlice.actions;
