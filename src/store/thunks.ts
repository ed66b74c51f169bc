import type { Article, FrontPage, Headline, SectionPage } from '../content';
import { latestListSize } from '../content';
import type { SectionSlug } from '../sections';
import { articleLoaded, frontPageLoaded, latestLoaded, moreFailed, moreLoaded, moreRequested, sectionLoaded } from './content-slices';
import type { AppThunk } from './index';

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
    const cached = getState().sections[slug];
    if (cached) return { section: slug, items: cached.items, nextCursor: cached.nextCursor };
    const page = await content.section(slug);
    if (page) dispatch(sectionLoaded(page));
    return page;
  };

export const loadMoreOfSection =
  (slug: SectionSlug): AppThunk<Promise<void>> =>
  async (dispatch, getState, { content }) => {
    const listing = getState().sections[slug];
    if (!listing || !listing.nextCursor || listing.loadingMore) return;
    dispatch(moreRequested(slug));
    try {
      const page = await content.section(slug, { cursor: listing.nextCursor });
      if (page) dispatch(moreLoaded(page));
      else dispatch(moreFailed(slug));
    } catch {
      dispatch(moreFailed(slug));
    }
  };

export const loadArticle =
  (id: string): AppThunk<Promise<Article | null>> =>
  async (dispatch, getState, { content }) => {
    const cached = getState().articles[id];
    if (cached) return cached;
    const article = await content.article(id);
    if (article) dispatch(articleLoaded(article));
    return article;
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
