import type { Article, FrontPage, Headline, SectionPage, TagPage } from '../content';
import { latestListSize, mostReadSize } from '../content';
import type { SectionSlug } from '../sections';
import {
  articleLoaded,
  articleTeasersLoaded,
  frontPageLoaded,
  latestLoaded,
  mostReadLoaded,
  sectionListingPage,
  sectionsSlice,
  tagListingPage,
  tagsSlice,
} from './content-slices';
import type { AppThunk } from './index';
import { entryOf } from './keyed';

// Each loader returns what it loaded, from the store when it is already there, so a route
// can decide its status (404) from the result. The store already holding the data is what
// makes hydration free: the browser resolves the same route against the serialized state.

export const loadFrontPage =
  (): AppThunk<Promise<FrontPage>> =>
  async (dispatch, getState, { content }) => {
    const cached = getState().frontPage.page;
    if (cached) return cached;
    const page = await content.frontPage();
    dispatch(frontPageLoaded(page));
    return page;
  };

export const loadSection =
  (slug: SectionSlug): AppThunk<Promise<SectionPage | null>> =>
  async (dispatch, getState, { content }) => {
    const cached = entryOf(getState().sections, slug);
    if (cached) return { section: slug, items: cached.items, nextCursor: cached.nextCursor };
    const page = await content.section(slug);
    if (page) dispatch(sectionsSlice.actions.listingLoaded(sectionListingPage(page)));
    return page;
  };

export const loadTag =
  (slug: string): AppThunk<Promise<TagPage | null>> =>
  async (dispatch, getState, { content }) => {
    const cached = entryOf(getState().tags, slug);
    if (cached) return { tag: slug, items: cached.items, nextCursor: cached.nextCursor };
    const page = await content.tag(slug);
    if (page) dispatch(tagsSlice.actions.listingLoaded(tagListingPage(page)));
    return page;
  };

/** The next page of a section's or a tag's listing, after the button below it. */
export const loadMoreOf =
  (kind: 'section' | 'tag', slug: string): AppThunk<Promise<void>> =>
  async (dispatch, getState, { content }) => {
    const slice = kind === 'section' ? sectionsSlice : tagsSlice;
    const listing = entryOf(kind === 'section' ? getState().sections : getState().tags, slug);
    if (!listing || !listing.nextCursor || listing.loadingMore) return;
    dispatch(slice.actions.moreRequested(slug));
    try {
      const cursor = listing.nextCursor;
      const page =
        kind === 'section'
          ? await content.section(slug as SectionSlug, { cursor }).then((p) => p && sectionListingPage(p))
          : await content.tag(slug, { cursor }).then((p) => p && tagListingPage(p));
      if (page) dispatch(slice.actions.moreLoaded(page));
      else dispatch(slice.actions.moreFailed(slug));
    } catch {
      dispatch(slice.actions.moreFailed(slug));
    }
  };

/** The article and the teasers its page shows: one request when the store lacks them. */
export const loadArticle =
  (id: string): AppThunk<Promise<Article | null>> =>
  async (dispatch, getState, { content }) => {
    const cached = entryOf(getState().articles, id);
    if (cached && entryOf(getState().articleTeasers, id)) return cached;
    const page = await content.articleWithTeasers(id);
    if (!page) return null;
    dispatch(articleLoaded(page.article));
    dispatch(articleTeasersLoaded(page));
    return page.article;
  };

/** What a page needs to render: whatever list is there, else the first `latestItems`. */
export const loadLatest =
  (): AppThunk<Promise<Headline[]>> =>
  async (dispatch, getState, { content, latestItems }) => {
    const cached = getState().latest.items;
    if (cached) return cached;
    const items = await content.latest(latestItems);
    dispatch(latestLoaded({ items, requested: latestItems }));
    return items;
  };

/** In the browser after hydration: the rest of the list the server left out. */
export const completeLatest =
  (): AppThunk<Promise<void>> =>
  async (dispatch, getState, { content }) => {
    if (getState().latest.requested >= latestListSize) return;
    try {
      const items = await content.latest(latestListSize);
      dispatch(latestLoaded({ items, requested: latestListSize }));
    } catch {
      // The shorter list stays: it is below the fold and nothing else depends on it.
    }
  };

/**
 * Most read: by the server's route when it renders the whole page (DOM_BUDGET=off), else by the
 * block itself once in the browser. A failure leaves the block empty: nothing depends on it.
 */
export const loadMostRead =
  (options: { forRoute?: boolean } = {}): AppThunk<Promise<void>> =>
  async (dispatch, getState, { content, loadBelowFold }) => {
    if (options.forRoute && !loadBelowFold) return;
    if (getState().mostRead.items) return;
    try {
      dispatch(mostReadLoaded(await content.mostRead(mostReadSize)));
    } catch {
      // Below the fold, and ranked again within seconds: an empty block until the next page.
    }
  };
