import { combineReducers, configureStore, type ThunkAction, type UnknownAction } from '@reduxjs/toolkit';
import { latestListSize, type ContentClient } from '../content';
import { articlesSlice, frontPageSlice, latestSlice, sectionsSlice } from './content-slices';

const rootReducer = combineReducers({
  frontPage: frontPageSlice.reducer,
  sections: sectionsSlice.reducer,
  articles: articlesSlice.reducer,
  latest: latestSlice.reducer,
});

export type RootState = ReturnType<typeof rootReducer>;

export interface ThunkExtra {
  content: ContentClient;
  /**
   * How many latest headlines a page loads first. The server sends fewer than the browser
   * shows (the list is below the fold): the browser completes it after hydration.
   */
  latestItems: number;
}

/**
 * One store per request on the server and one per page load in the browser; never a
 * module-level store, or one reader's data would leak into another's page.
 */
export function createStore(content: ContentClient, preloadedState?: Partial<RootState>, options: { latestItems?: number } = {}) {
  return configureStore({
    reducer: rootReducer,
    preloadedState,
    middleware: (getDefault) =>
      getDefault({
        thunk: { extraArgument: { content, latestItems: options.latestItems ?? latestListSize } satisfies ThunkExtra },
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
