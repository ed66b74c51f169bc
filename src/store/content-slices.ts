import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { Article, FrontPage, Headline, SectionPage, Teaser } from '../content';

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

export interface SectionListing {
  items: Teaser[];
  nextCursor: string | null;
  loadingMore: boolean;
  moreFailed: boolean;
}

export type SectionsState = Partial<Record<string, SectionListing>>;

export const sectionsSlice = createSlice({
  name: 'sections',
  initialState: {} as SectionsState,
  reducers: {
    sectionLoaded(state, action: PayloadAction<SectionPage>) {
      const { section, items, nextCursor } = action.payload;
      state[section] = { items, nextCursor, loadingMore: false, moreFailed: false };
    },
    moreRequested(state, action: PayloadAction<string>) {
      const listing = state[action.payload];
      if (listing) {
        listing.loadingMore = true;
        listing.moreFailed = false;
      }
    },
    moreLoaded(state, action: PayloadAction<SectionPage>) {
      const listing = state[action.payload.section];
      if (!listing) return;
      const seen = new Set(listing.items.map((t) => t.id));
      listing.items.push(...action.payload.items.filter((t) => !seen.has(t.id)));
      listing.nextCursor = action.payload.nextCursor;
      listing.loadingMore = false;
    },
    moreFailed(state, action: PayloadAction<string>) {
      const listing = state[action.payload];
      if (listing) {
        listing.loadingMore = false;
        listing.moreFailed = true;
      }
    },
  },
});

export type ArticlesState = Partial<Record<string, Article>>;

export const articlesSlice = createSlice({
  name: 'articles',
  initialState: {} as ArticlesState,
  reducers: {
    articleLoaded(state, action: PayloadAction<Article>) {
      state[action.payload.id] = action.payload;
    },
  },
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
export const { sectionLoaded, moreRequested, moreLoaded, moreFailed } = sectionsSlice.actions;
export const { articleLoaded } = articlesSlice.actions;
export const { latestLoaded } = latestSlice.actions;
