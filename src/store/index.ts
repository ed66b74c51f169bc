import { combineReducers, configureStore, type ThunkAction, type UnknownAction } from '@reduxjs/toolkit';
import { latestListSize, type ContentClient } from '../content';
import { keyedFrom } from './keyed';
import { articlesSlice, articleTeasersSlice, frontPageSlice, latestSlice, mostReadSlice, renderSlice, sectionsSlice, tagsSlice } from './content-slices';

export const rootReducer = combineReducers({
  frontPage: frontPageSlice.reducer,
  sections: sectionsSlice.reducer,
  tags: tagsSlice.reducer,
  articles: articlesSlice.reducer,
  articleTeasers: articleTeasersSlice.reducer,
  latest: latestSlice.reducer,
  mostRead: mostReadSlice.reducer,
  render: renderSlice.reducer,
});

export type RootState = ReturnType<typeof rootReducer>;

export interface ThunkExtra {
  content: ContentClient;
  /**
   * How many latest headlines a page loads first. The server sends fewer than the browser
   * shows (the list is below the fold): the browser completes it after hydration.
   */
  latestItems: number;
  /** The server with the DOM budget off renders most read too, so its route loads it. */
  loadBelowFold: boolean;
}

/**
 * The keyed records of a state from elsewhere (the server's, parsed from the page) as the slices
 * keep theirs: without a prototype, so that no slug or id reads or writes through one.
 */
function withKeyedRecords(state: Partial<RootState> | undefined): Partial<RootState> | undefined {
  if (!state) return state;
  const copy = { ...state };
  if (state.sections) copy.sections = keyedFrom(state.sections);
  if (state.tags) copy.tags = keyedFrom(state.tags);
  if (state.articles) copy.articles = keyedFrom(state.articles);
  if (state.articleTeasers) copy.articleTeasers = keyedFrom(state.articleTeasers);
  return copy;
}

/**
 * One store per request on the server and one per page load in the browser; never a
 * module-level store, or one reader's data would leak into another's page.
 */
export function createStore(
  content: ContentClient,
  preloadedState?: Partial<RootState>,
  options: { latestItems?: number; belowFold?: 'server' | 'browser'; siteUrl?: string } = {},
) {
  // On the server, say in the state whether the blocks below the fold were left to the browser.
  const render = options.belowFold === undefined ? undefined : { belowFoldDeferred: options.belowFold === 'browser', siteUrl: options.siteUrl ?? '' };
  const preloaded = withKeyedRecords(preloadedState);
  return configureStore({
    reducer: rootReducer,
    preloadedState: render ? { ...preloaded, render } : preloaded,
    middleware: (getDefault) =>
      getDefault({
        thunk: {
          extraArgument: { content, latestItems: options.latestItems ?? latestListSize, loadBelowFold: options.belowFold === 'server' } satisfies ThunkExtra,
        },
        // The checks walk the whole state on every dispatch; worth it only while developing.
        serializableCheck: false,
        immutableCheck: false,
      }),
    devTools: false,
  });
}

export type AppStore = ReturnType<typeof createStore>;
export type AppDispatch = AppStore['dispatch'];
export type AppThunk<R> = ThunkAction<R, RootState, ThunkExtra, UnknownAction>;
